// Units of the rail scheduler that need no sockets: reorder buffer, policy choice, stripe
// split, rail selection, rail pairing and the card field.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "mcm/rails/card.hpp"
#include "mcm/rails/policy.hpp"
#include "mcm/rails/rail_list.hpp"
#include "mcm/rails/reorder.hpp"
#include "mcm/rails/stripe.hpp"

namespace railmpi::mcm::rails {
namespace {

using device::Marker;

std::vector<std::byte> bytes_of(std::uint32_t v, std::size_t n) {
  std::vector<std::byte> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = std::byte((v + i) & 0xff);
  return b;
}

struct Delivered {
  std::vector<std::uint32_t> ids;  // header value of each delivered frame, in order
  bool payload_ok = true;
  void operator()(std::span<const std::byte> h, std::span<const std::byte> p) {
    std::uint32_t id = 0;
    std::memcpy(&id, h.data(), sizeof id);
    ids.push_back(id);
    const auto want = bytes_of(id, p.size());
    if (!std::equal(p.begin(), p.end(), want.begin()) || p.size() != id % 300) payload_ok = false;
  }
};

// Pushes frame `seq` (header = seq, payload of seq % 300 bytes).
ReorderBuffer::Outcome push(ReorderBuffer& rb, std::uint32_t seq, Delivered& d) {
  const auto payload = bytes_of(seq, seq % 300);
  std::byte header[4];
  std::memcpy(header, &seq, 4);
  return rb.push(seq, header, payload, d);
}

TEST(ReorderBuffer, InOrderFramesPassStraightThrough) {
  ReorderBuffer rb;
  Delivered d;
  for (std::uint32_t s = 1; s <= 100; ++s) EXPECT_EQ(push(rb, s, d), ReorderBuffer::Outcome::delivered);
  EXPECT_EQ(d.ids.size(), 100u);
  EXPECT_TRUE(std::is_sorted(d.ids.begin(), d.ids.end()));
  EXPECT_EQ(rb.held(), 0u);
}

TEST(ReorderBuffer, ShuffledFramesComeOutInOrderWithTheirPayloads) {
  std::vector<std::uint32_t> seqs(2000);
  std::iota(seqs.begin(), seqs.end(), 1u);
  // Two "channels": interleave odd and even numbers with random lag, as two rails would.
  std::mt19937 rng(7);
  for (std::size_t i = 0; i + 1 < seqs.size(); i += 2)
    if (rng() % 2) std::swap(seqs[i], seqs[i + 1]);
  std::shuffle(seqs.begin() + 1000, seqs.end(), rng);
  ReorderBuffer rb;
  Delivered d;
  for (std::uint32_t s : seqs) push(rb, s, d);
  ASSERT_EQ(d.ids.size(), 2000u);
  for (std::uint32_t i = 0; i < 2000; ++i) ASSERT_EQ(d.ids[i], i + 1);
  EXPECT_TRUE(d.payload_ok);
  EXPECT_EQ(rb.held(), 0u);
  EXPECT_EQ(rb.expected(), 2001u);
}

TEST(ReorderBuffer, EarlyFrameIsHeldUntilTheGapCloses) {
  ReorderBuffer rb;
  Delivered d;
  EXPECT_EQ(push(rb, 3, d), ReorderBuffer::Outcome::held);
  EXPECT_EQ(push(rb, 2, d), ReorderBuffer::Outcome::held);
  EXPECT_TRUE(d.ids.empty());
  EXPECT_EQ(rb.held(), 2u);
  EXPECT_EQ(push(rb, 1, d), ReorderBuffer::Outcome::delivered);
  EXPECT_EQ(d.ids, (std::vector<std::uint32_t>{1, 2, 3}));
  EXPECT_EQ(rb.held(), 0u);
}

TEST(ReorderBuffer, DuplicatesAreDropped) {
  ReorderBuffer rb;
  Delivered d;
  push(rb, 1, d);
  push(rb, 2, d);
  EXPECT_EQ(push(rb, 1, d), ReorderBuffer::Outcome::duplicate);  // already delivered
  EXPECT_EQ(push(rb, 4, d), ReorderBuffer::Outcome::held);
  EXPECT_EQ(push(rb, 4, d), ReorderBuffer::Outcome::held);  // held twice: the copy is dropped
  EXPECT_EQ(rb.duplicates(), 2u);
  push(rb, 3, d);
  EXPECT_EQ(d.ids, (std::vector<std::uint32_t>{1, 2, 3, 4}));
}

TEST(ReorderBuffer, NumbersWrapPastZero) {
  EXPECT_EQ(next_seq(0xffffffffu), 1u);  // 0 is skipped (it marks placeable frames)
  ReorderBuffer rb(0xfffffffeu);
  Delivered d;
  EXPECT_EQ(push(rb, 1, d), ReorderBuffer::Outcome::held);  // after the wrap: early, not old
  EXPECT_EQ(push(rb, 0xffffffffu, d), ReorderBuffer::Outcome::held);
  EXPECT_EQ(push(rb, 0xfffffffeu, d), ReorderBuffer::Outcome::delivered);
  EXPECT_EQ(d.ids, (std::vector<std::uint32_t>{0xfffffffeu, 0xffffffffu, 1}));
  EXPECT_EQ(push(rb, 0xffffffffu, d), ReorderBuffer::Outcome::duplicate);  // before the wrap: old
  EXPECT_EQ(rb.expected(), 2u);
}

TEST(Policy, ChoiceFollowsPolicyAndMarker) {
  const std::size_t th = 16384;
  EXPECT_EQ(place(Policy::binding, Marker::blocking, true, 1 << 20, th), Placement::bound);
  EXPECT_EQ(place(Policy::round_robin, Marker::blocking, true, 1 << 20, th), Placement::rotate);
  EXPECT_EQ(place(Policy::round_robin, Marker::collective, false, 8, th), Placement::rotate);
  EXPECT_EQ(place(Policy::striping, Marker::nonblocking, true, th, th), Placement::stripe);
  EXPECT_EQ(place(Policy::striping, Marker::blocking, true, th - 1, th), Placement::bound);
  EXPECT_EQ(place(Policy::striping, Marker::blocking, false, 1 << 20, th), Placement::bound);  // ordered: whole
  // epc: blocking and collective stripe, non-blocking round-robins.
  EXPECT_EQ(place(Policy::epc, Marker::blocking, true, 1 << 20, th), Placement::stripe);
  EXPECT_EQ(place(Policy::epc, Marker::collective, true, 1 << 20, th), Placement::stripe);
  EXPECT_EQ(place(Policy::epc, Marker::nonblocking, true, 1 << 20, th), Placement::rotate);
  EXPECT_EQ(place(Policy::epc, Marker::blocking, false, 100, th), Placement::bound);
  EXPECT_EQ(place(Policy::epc, Marker::nonblocking, false, 100, th), Placement::rotate);
}

TEST(Policy, NamesParseBothWays) {
  for (Policy p : {Policy::binding, Policy::round_robin, Policy::striping, Policy::epc}) {
    Policy q = Policy::binding;
    ASSERT_TRUE(parse_policy(policy_name(p), q));
    EXPECT_EQ(p, q);
  }
  Policy q;
  EXPECT_FALSE(parse_policy("roundrobin", q));
  EXPECT_FALSE(parse_policy("", q));
  EXPECT_TRUE(may_stripe(Policy::epc));
  EXPECT_TRUE(may_stripe(Policy::striping));
  EXPECT_FALSE(may_stripe(Policy::binding));
  EXPECT_FALSE(may_stripe(Policy::round_robin));
}

std::vector<std::size_t> split(std::size_t bytes, std::vector<double> w) {
  std::vector<std::size_t> out(w.size());
  split_stripe(bytes, w, out);
  return out;
}

TEST(Stripe, EqualOrUnknownWeightsSplitEvenly) {
  auto s = split(1 << 20, {0, 0});
  EXPECT_EQ(s, (std::vector<std::size_t>{512 * 1024, 512 * 1024}));
  s = split(1 << 20, {100e6, 110e6});  // within the noise band: even
  EXPECT_EQ(s, (std::vector<std::size_t>{512 * 1024, 512 * 1024}));
  s = split(1000003, {1, 1, 1});
  EXPECT_EQ(std::accumulate(s.begin(), s.end(), std::size_t{0}), 1000003u);
  for (std::size_t i = 0; i + 1 < s.size(); ++i) EXPECT_EQ(s[i] % kPartAlign, 0u);
  EXPECT_LE(*std::max_element(s.begin(), s.end()) - *std::min_element(s.begin(), s.end()), 2 * kPartAlign);
}

TEST(Stripe, WeightsFollowThroughput) {
  // One rail three times as fast: it carries three quarters.
  auto s = split(4 << 20, {300e6, 100e6});
  EXPECT_EQ(s[0] + s[1], std::size_t{4} << 20);
  EXPECT_NEAR(double(s[0]) / double(4 << 20), 0.75, 0.01);
  // A channel with no measurement next to measured ones: even (nothing known to weigh by).
  s = split(1 << 20, {300e6, 0});
  EXPECT_EQ(s[0], s[1]);
}

TEST(Stripe, SmallFramesUseFewerParts) {
  auto s = split(kMinPart + 10, {1, 1, 1, 1});
  EXPECT_EQ(std::count_if(s.begin(), s.end(), [](std::size_t v) { return v != 0; }), 1);
  EXPECT_EQ(std::accumulate(s.begin(), s.end(), std::size_t{0}), kMinPart + 10);
  s = split(3 * kMinPart, {1, 1, 1, 1});
  EXPECT_EQ(std::count_if(s.begin(), s.end(), [](std::size_t v) { return v != 0; }), 3);
  for (std::size_t v : s) EXPECT_TRUE(v == 0 || v >= kMinPart);
  s = split(0, {1, 1});
  EXPECT_EQ(std::accumulate(s.begin(), s.end(), std::size_t{0}), 0u);
}

in_addr ip(const char* text) {
  in_addr a{};
  inet_pton(AF_INET, text, &a);
  return a;
}

std::vector<Interface> host() {
  return {Interface{"lo", ip("127.0.0.1"), 8, true, true}, Interface{"eth0", ip("10.1.0.5"), 24, true, false},
          Interface{"eth1", ip("10.2.0.5"), 24, true, false}, Interface{"eth2", ip("10.3.0.5"), 24, false, false}};
}

TEST(RailList, DefaultIsEveryUpNonLoopbackInterface) {
  std::vector<Rail> rails;
  std::string error;
  ASSERT_TRUE(select_rails(host(), "", "", rails, error)) << error;
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].name, "eth0");
  EXPECT_EQ(rails[1].name, "eth1");
  EXPECT_EQ(rails[1].prefix, 24);
  // Only loopback: 127.0.0.1.
  std::vector<Interface> lo_only{host()[0]};
  ASSERT_TRUE(select_rails(lo_only, "", "", rails, error));
  ASSERT_EQ(rails.size(), 1u);
  EXPECT_EQ(address_text(rails[0].address), "127.0.0.1");
}

TEST(RailList, ItemsAreNamesAddressesOrSubnets) {
  std::vector<Rail> rails;
  std::string error;
  ASSERT_TRUE(select_rails(host(), "eth1,10.1.0.5", "", rails, error)) << error;
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].name, "eth1");
  EXPECT_EQ(rails[1].name, "eth0");
  ASSERT_TRUE(select_rails(host(), "10.0.0.0/8", "", rails, error)) << error;
  EXPECT_EQ(rails.size(), 2u);  // eth2 is down
  ASSERT_TRUE(select_rails(host(), "127.0.0.1,127.0.0.2", "", rails, error)) << error;
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_TRUE(rails[1].loopback);
  EXPECT_EQ(address_text(rails[1].address), "127.0.0.2");
  ASSERT_TRUE(select_rails(host(), "eth0,eth0", "", rails, error));
  EXPECT_EQ(rails.size(), 1u);  // duplicates removed
  // The one-rail form.
  ASSERT_TRUE(select_rails(host(), "", "eth1", rails, error));
  ASSERT_EQ(rails.size(), 1u);
  EXPECT_EQ(rails[0].name, "eth1");
}

TEST(RailList, UnknownItemsAreErrorsNamingTheSetting) {
  std::vector<Rail> rails;
  std::string error;
  EXPECT_FALSE(select_rails(host(), "eth9", "", rails, error));
  EXPECT_NE(error.find("RAILMPI_TCP_RAILS"), std::string::npos) << error;
  EXPECT_NE(error.find("eth9"), std::string::npos) << error;
  EXPECT_FALSE(select_rails(host(), "192.168.7.7", "", rails, error));
  EXPECT_FALSE(select_rails(host(), "172.16.0.0/12", "", rails, error));
  EXPECT_FALSE(select_rails(host(), "", "wlan0", rails, error));
  EXPECT_NE(error.find("RAILMPI_TCP_INTERFACE"), std::string::npos) << error;
}

TEST(RailPairing, SameSubnetPairsWhateverTheOrder) {
  const std::vector<RailAddress> mine{{ip("10.1.0.5"), 24}, {ip("10.2.0.5"), 24}, {ip("10.9.0.5"), 24}};
  const std::vector<RailAddress> theirs{{ip("10.2.0.7"), 24}, {ip("10.1.0.7"), 24}};
  EXPECT_EQ(pair_rails(mine, theirs), (std::vector<int>{1, 0, -1}));
  // Different prefix length: different subnets.
  const std::vector<RailAddress> other{{ip("10.1.0.7"), 16}};
  EXPECT_EQ(pair_rails(std::span(mine).first(1), other), (std::vector<int>{-1}));
}

TEST(RailPairing, LoopbackRailsPairByIndex) {
  const std::vector<RailAddress> mine{{ip("127.0.0.1"), 8}, {ip("127.0.0.2"), 8}};
  const std::vector<RailAddress> theirs{{ip("127.0.0.1"), 8}, {ip("127.0.0.2"), 8}, {ip("127.0.0.3"), 8}};
  EXPECT_EQ(pair_rails(mine, theirs), (std::vector<int>{0, 1}));
  EXPECT_EQ(pair_rails(theirs, mine), (std::vector<int>{0, 1, -1}));
}

TEST(Card, FieldRoundTripsRailsAndConnections) {
  const std::string field = card_entry("10.1.0.5:4000", 24) + "," + card_entry("10.1.0.5:4001", 24) + "," +
                            card_entry("10.2.0.5:4002", 24) + "," + card_entry("10.2.0.5:4003", 24);
  std::vector<AdvertisedRail> rails;
  ASSERT_TRUE(parse_card_field(field, rails));
  ASSERT_EQ(rails.size(), 2u);
  EXPECT_EQ(rails[0].endpoints, (std::vector<std::string>{"10.1.0.5:4000", "10.1.0.5:4001"}));
  EXPECT_EQ(rails[1].endpoints, (std::vector<std::string>{"10.2.0.5:4002", "10.2.0.5:4003"}));
  EXPECT_EQ(rails[1].rail.prefix, 24);
  EXPECT_FALSE(parse_card_field("10.1.0.5:4000", rails));  // no prefix
  EXPECT_FALSE(parse_card_field("10.1.0.5:4000/33", rails));
  EXPECT_FALSE(parse_card_field("x:1/8", rails));
  EXPECT_FALSE(parse_card_field("", rails));
}

}  // namespace
}  // namespace railmpi::mcm::rails
