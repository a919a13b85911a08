// MateWaits: whether a wait for a rank bound to this rank's CPU yields first or sleeps at once,
// from how many yields its earlier waits took, and how far apart its retries come.
#include "progress/mate_waits.hpp"

#include <gtest/gtest.h>

namespace railmpi::progress {
namespace {

constexpr int kLong = MateWaits::kQuickYields + 1;
constexpr int kNotDone = -1;

// One wait for `peer` that takes `yields` yields when it yields first; returns how it began.
MateWaits::Start wait(MateWaits& w, int peer, int yields) {
  const MateWaits::Start how = w.start(peer);
  if (how.yield_first) w.ended(peer, how, yields);
  return how;
}

// Waits for `peer`, each long, until one is a retry; returns how many waits that took.
int waits_to_retry(MateWaits& w, int peer) {
  for (int n = 1; n <= 4 * int(MateWaits::kRetryMost); ++n) {
    if (wait(w, peer, kLong).retry) return n;
  }
  return -1;
}

// Waits for peer 1 of 2 ranks after two long ones: they sleep at once.
MateWaits sleeping_for_peer_1() {
  MateWaits w;
  w.reset(2);
  wait(w, 1, kLong);
  wait(w, 1, kLong);
  return w;
}

TEST(MateWaits, FirstWaitsYieldFirst) {
  MateWaits w;
  w.reset(4);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(wait(w, 1, 1).yield_first) << i;
  EXPECT_FALSE(w.long_before(1));
}

TEST(MateWaits, QuickYieldsThresholdIsExact) {
  MateWaits w;
  w.reset(2);
  wait(w, 1, MateWaits::kQuickYields);
  wait(w, 1, MateWaits::kQuickYields);
  EXPECT_FALSE(w.long_before(1)) << "waits of kQuickYields yields are quick";
  wait(w, 1, MateWaits::kQuickYields + 1);
  wait(w, 1, MateWaits::kQuickYields + 1);
  EXPECT_TRUE(w.long_before(1)) << "waits of one yield more are long";
}

TEST(MateWaits, TwoLongWaitsOfThreeSleepAtOnce) {
  MateWaits w;
  w.reset(4);
  EXPECT_TRUE(wait(w, 2, kLong).yield_first);
  EXPECT_TRUE(wait(w, 2, 1).yield_first);
  EXPECT_TRUE(wait(w, 2, kNotDone).yield_first);  // a wait that went on to sleep is long
  EXPECT_TRUE(w.long_before(2));
  EXPECT_FALSE(wait(w, 2, 1).yield_first);
  // Each peer has its own history.
  EXPECT_FALSE(w.long_before(3));
  EXPECT_TRUE(wait(w, 3, 1).yield_first);
}

TEST(MateWaits, RetriesDoubleTheirSpacingWhileLong) {
  MateWaits w = sleeping_for_peer_1();
  ASSERT_TRUE(w.long_before(1));
  unsigned expect = MateWaits::kRetryFirst;
  for (int r = 0; r < 9; ++r) {
    EXPECT_EQ(waits_to_retry(w, 1), int(expect)) << "retry " << r;
    expect = expect * 2 > MateWaits::kRetryMost ? MateWaits::kRetryMost : expect * 2;
    EXPECT_EQ(w.retry_every(), expect);
  }
  EXPECT_EQ(w.retry_every(), MateWaits::kRetryMost);
  EXPECT_EQ(waits_to_retry(w, 1), int(MateWaits::kRetryMost));
}

TEST(MateWaits, QuickRetryBringsRetriesBackAndQuickWaitsYieldAgain) {
  MateWaits w = sleeping_for_peer_1();
  for (int r = 0; r < 5; ++r) waits_to_retry(w, 1);
  ASSERT_GT(w.retry_every(), MateWaits::kRetryFirst);
  // The pattern turns quick: the next retry finds it, and retries come kRetryFirst apart again.
  while (!wait(w, 1, 1).retry) {
  }
  EXPECT_EQ(w.retry_every(), MateWaits::kRetryFirst);
  EXPECT_TRUE(w.long_before(1)) << "one quick wait of the last three";
  while (!wait(w, 1, 1).retry) {
  }
  EXPECT_FALSE(w.long_before(1)) << "two quick waits of the last three";
  EXPECT_TRUE(wait(w, 1, 1).yield_first);
}

TEST(MateWaits, ResetForgetsHistoryAndSpacing) {
  MateWaits w = sleeping_for_peer_1();
  waits_to_retry(w, 1);
  w.reset(2);
  EXPECT_FALSE(w.long_before(1));
  EXPECT_EQ(w.retry_every(), MateWaits::kRetryFirst);
}

}  // namespace
}  // namespace railmpi::progress
