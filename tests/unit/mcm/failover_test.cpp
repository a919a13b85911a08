// Acknowledgement bookkeeping of the rail failover: the receiver's Receipts (duplicates,
// cumulative acknowledgement) and the sender's Unacked list (release by acknowledgement,
// frames per channel for a resend).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

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

}  // namespace
}  // namespace railmpi::mcm::rails
