// Acknowledgement bookkeeping of the rail failover: the receiver's Receipts (duplicates,
// cumulative acknowledgement) and the sender's Unacked list (release by acknowledgement,
// frames per channel for a resend); and LinkState, which turns link events into channels
// taken out of use and given back.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <arpa/inet.h>

#include "mcm/rails/link_state.hpp"
#include "mcm/rails/receipts.hpp"
#include "mcm/rails/unacked.hpp"

namespace railmpi::mcm::rails {
namespace {

TEST(Receipts, InOrderNumbersAdvanceTheAcknowledgement) {
  Receipts r;
  for (std::uint32_t x = 1; x <= 100; ++x) EXPECT_TRUE(r.accept(x));
  EXPECT_EQ(r.cumulative(), 100u);
  EXPECT_EQ(r.early(), 0u);
}

TEST(Receipts, DuplicatesAreRefusedBelowAndAboveTheAcknowledgement) {
  Receipts r;
  EXPECT_TRUE(r.accept(1));
  EXPECT_TRUE(r.accept(3));
  EXPECT_FALSE(r.accept(1));  // below the cumulative number
  EXPECT_FALSE(r.accept(3));  // early, seen
  EXPECT_EQ(r.cumulative(), 1u);
  EXPECT_TRUE(r.accept(2));
  EXPECT_EQ(r.cumulative(), 3u);
  EXPECT_FALSE(r.accept(2));
  EXPECT_FALSE(r.accept(3));
}

TEST(Receipts, ShuffledNumbersEachAcceptedOnceAndFullyAcknowledged) {
  // More early numbers than the first ring holds (a stalled channel), in random order, each sent twice.
  constexpr std::uint32_t kCount = 20000;
  std::vector<std::uint32_t> order(kCount);
  std::iota(order.begin(), order.end(), 1u);
  std::mt19937 rng(5);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::uint32_t> twice = order;
  twice.insert(twice.end(), order.begin(), order.end());
  std::shuffle(twice.begin() + kCount / 2, twice.end(), rng);
  Receipts r;
  std::vector<int> accepted(kCount + 1, 0);
  for (std::uint32_t x : twice)
    if (r.accept(x)) ++accepted[x];
  for (std::uint32_t x = 1; x <= kCount; ++x) ASSERT_EQ(accepted[x], 1) << x;
  EXPECT_EQ(r.cumulative(), kCount);
  EXPECT_EQ(r.early(), 0u);
}

TEST(Receipts, NumbersWrapPastZero) {
  Receipts r(0xfffffffdu);  // next expected: 0xfffffffe
  EXPECT_TRUE(r.accept(1));  // after the wrap: early, not old
  EXPECT_TRUE(r.accept(0xffffffffu));
  EXPECT_EQ(r.cumulative(), 0xfffffffdu);
  EXPECT_TRUE(r.accept(0xfffffffeu));
  EXPECT_EQ(r.cumulative(), 1u);
  EXPECT_FALSE(r.accept(0xffffffffu));
  EXPECT_TRUE(r.accept(2));
}

std::vector<TxOp> make_tx(std::uint32_t first, int n) {
  std::vector<TxOp> v(static_cast<std::size_t>(n));
  std::uint32_t x = first;
  for (int i = 0; i < n; ++i) {
    v[i].xmit = x;
    v[i].lane = i % 2;
    x = next_seq(x);
  }
  return v;
}

TEST(Unacked, AcknowledgementReleasesThePrefixInOrder) {
  auto tx = make_tx(1, 10);
  Unacked u;
  for (auto& t : tx) u.push(&t);
  std::vector<std::uint32_t> released;
  EXPECT_EQ(u.ack(0, [&](TxOp* t) { released.push_back(t->xmit); }), 0u);  // 0: nothing yet
  EXPECT_EQ(u.ack(4, [&](TxOp* t) { released.push_back(t->xmit); }), 4u);
  EXPECT_EQ(u.ack(3, [&](TxOp* t) { released.push_back(t->xmit); }), 0u);  // old news
  EXPECT_EQ(u.ack(10, [&](TxOp* t) { released.push_back(t->xmit); }), 6u);
  EXPECT_EQ(released, (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_TRUE(u.empty());
}

TEST(Unacked, FramesOfAChannelAreFoundForAResend) {
  auto tx = make_tx(0xfffffffcu, 8);  // crosses the wrap (0 is skipped)
  Unacked u;
  for (auto& t : tx) u.push(&t);
  u.ack(0xfffffffdu, [](TxOp*) {});  // the first two released
  std::vector<TxOp*> lost;
  u.on_lane(1, lost);
  ASSERT_EQ(lost.size(), 3u);
  for (TxOp* t : lost) EXPECT_EQ(t->lane, 1);
  EXPECT_EQ(lost[0], &tx[3]);
  EXPECT_EQ(u.size(), 6u);
}

// Release may send again (push) from inside ack(): the list stays consistent.
TEST(Unacked, ReleaseMayPushNewFrames) {
  auto tx = make_tx(1, 4);
  Unacked u;
  u.push(&tx[0]);
  u.push(&tx[1]);
  int pushed = 2;
  u.ack(2, [&](TxOp*) { u.push(&tx[static_cast<std::size_t>(pushed++)]); });
  EXPECT_EQ(u.size(), 2u);
  std::vector<std::uint32_t> left;
  u.ack(4, [&](TxOp* t) { left.push_back(t->xmit); });
  EXPECT_EQ(left, (std::vector<std::uint32_t>{3, 4}));
}

// ---- link events ----

in_addr addr(const char* text) {
  in_addr a{};
  inet_pton(AF_INET, text, &a);
  return a;
}

device::tcp::LinkEvent link_event(int index, bool usable, bool admin_up) {
  device::tcp::LinkEvent e;
  e.kind = device::tcp::LinkEvent::Kind::link;
  e.index = index;
  e.usable = usable;
  e.admin_up = admin_up;
  return e;
}

device::tcp::LinkEvent address_event(int index, const char* ip, bool added) {
  device::tcp::LinkEvent e;
  e.kind = device::tcp::LinkEvent::Kind::address;
  e.index = index;
  e.usable = added;
  e.address = addr(ip);
  return e;
}

// Channels 0, 1 on rail0 (ifindex 3, two connections), channel 2 on rail1 (ifindex 4),
// channel 3 a loopback rail (not watched).
LinkState four_channels() {
  LinkState s;
  s.add(3, addr("10.0.0.1"), "rail0");
  s.add(3, addr("10.0.0.1"), "rail0");
  s.add(4, addr("10.0.1.1"), "rail1");
  s.add(0, addr("127.0.0.2"), "lo");
  return s;
}

TEST(LinkState, AnInterfaceSetDownTakesEachOfItsChannelsOutOnceAndBackWhenUp) {
  LinkState s = four_channels();
  EXPECT_TRUE(s.watched());
  std::vector<LinkState::Change> out;
  s.apply(link_event(4, false, false), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].channel, 2);
  EXPECT_FALSE(out[0].usable);
  EXPECT_EQ(out[0].why, "interface rail1 set down");
  out.clear();
  s.apply(link_event(4, false, true), out);  // up, still no carrier: no change
  EXPECT_TRUE(out.empty());
  s.apply(link_event(4, true, true), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].usable);
  EXPECT_TRUE(s.usable(2));
  out.clear();
  s.apply(link_event(3, false, true), out);  // carrier lost: both connections of rail0
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].channel, 0);
  EXPECT_EQ(out[1].channel, 1);
  EXPECT_EQ(out[1].why, "interface rail0 lost its carrier");
  out.clear();
  s.apply(link_event(1, false, false), out);  // another interface (lo's index): nothing
  EXPECT_TRUE(out.empty());
}

TEST(LinkState, TheChannelsAddressRemovedOrBackCountsOnlyWithTheLinkUp) {
  LinkState s = four_channels();
  std::vector<LinkState::Change> out;
  s.apply(address_event(4, "10.0.1.9", false), out);  // another address of rail1
  EXPECT_TRUE(out.empty());
  s.apply(address_event(4, "10.0.1.1", false), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].why, "address 10.0.1.1 removed from interface rail1");
  out.clear();
  s.apply(link_event(4, false, false), out);  // already out: no second change
  s.apply(address_event(4, "10.0.1.1", true), out);  // address back, link still down
  EXPECT_TRUE(out.empty());
  s.apply(link_event(4, true, true), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].usable);
  out.clear();
  device::tcp::LinkEvent gone = link_event(3, false, false);
  gone.kind = device::tcp::LinkEvent::Kind::gone;
  s.apply(gone, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].why, "interface rail0 removed");
}

TEST(LinkState, ResyncTakesTheStateFromTheInterfaceList) {
  LinkState s = four_channels();
  std::vector<LinkState::Change> out;
  std::vector<Interface> list = {
      Interface{"rail0", addr("10.0.0.1"), 24, true, false, true},
      Interface{"rail1", addr("10.0.1.1"), 24, false, false, false},
  };
  s.resync(list, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].channel, 2);
  EXPECT_EQ(out[0].why, "interface rail1 set down");
  out.clear();
  list.pop_back();  // rail1's address gone too: still out, no change
  s.resync(list, out);
  EXPECT_TRUE(out.empty());
  list.push_back(Interface{"rail1", addr("10.0.1.1"), 24, true, false, true});
  s.resync(list, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].usable);
  EXPECT_TRUE(s.usable(3));  // the loopback rail is never touched
}

}  // namespace
}  // namespace railmpi::mcm::rails
