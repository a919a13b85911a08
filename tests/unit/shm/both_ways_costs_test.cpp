// BothWaysCosts: which way messages both ways take, from the copies the shm device times.
#include "device/shm/both_ways_costs.hpp"

#include <gtest/gtest.h>

namespace railmpi::device::shm {
namespace {

constexpr std::size_t kBytes = 8192;

// `n` copies of kBytes at `per_kib` ticks a KiB.
void out(BothWaysCosts& c, double per_kib, int n = 1) {
  for (int i = 0; i < n; ++i) c.ring_out(kBytes, std::uint64_t(per_kib * 8));
}
void in(BothWaysCosts& c, double per_kib, int n = 1) {
  for (int i = 0; i < n; ++i) c.ring_in(kBytes, std::uint64_t(per_kib * 8));
}
void read(BothWaysCosts& c, double per_kib, int n = 1) {
  for (int i = 0; i < n; ++i) c.single_copy(kBytes, std::uint64_t(per_kib * 8));
}

TEST(BothWaysCosts, SingleCopiesUntilBothWaysAreMeasured) {
  BothWaysCosts c;
  out(c, 10, 20);
  EXPECT_FALSE(c.rings_faster());
  BothWaysCosts d;
  read(d, 100, 20);
  EXPECT_FALSE(d.rings_faster());
  EXPECT_EQ(c.switches() + d.switches(), 0u);
}

// Until the rings carry the stream, a copy out stands for the copy in too: rings when twice the
// copy out costs less than kRingsMargin times a single copy.
TEST(BothWaysCosts, RingsWhenTwiceTheCopyOutIsCheaperThanASingleCopy) {
  BothWaysCosts c;
  read(c, 100);
  out(c, 44);  // 88 against 90
  EXPECT_TRUE(c.rings_faster());
  EXPECT_DOUBLE_EQ(c.rings_ticks_per_kib(), 88);
  EXPECT_EQ(c.switches(), 1u);

  BothWaysCosts d;
  read(d, 100);
  out(d, 46);  // 92 against 90
  EXPECT_FALSE(d.rings_faster());
}

TEST(BothWaysCosts, CopiesInCountOnlyWhileTheRingsCarryTheStreamAndAfterTheColdOnes) {
  BothWaysCosts c;
  read(c, 100);
  out(c, 60);
  in(c, 5, 10);  // not counted: single copies are in use
  EXPECT_EQ(c.ring_in_ticks_per_kib(), 0);
  out(c, 20, 20);  // the average comes down to about 20: rings
  ASSERT_TRUE(c.rings_faster());
  in(c, 1000, BothWaysCosts::kColdInSamples);  // the first laps after the switch: not counted
  EXPECT_EQ(c.ring_in_ticks_per_kib(), 0);
  EXPECT_TRUE(c.rings_faster());
  in(c, 30);  // starts from the copy out's average and moves a quarter of the way
  EXPECT_GT(c.ring_in_ticks_per_kib(), 20);
  EXPECT_LT(c.ring_in_ticks_per_kib(), 30);
}

// Once the rings carry the stream they keep it until they cost kKeepRingsMargin times a single
// copy; a slow copy in (the reader's caches far away) hands it back.
TEST(BothWaysCosts, RingsKeptWithinTheKeepMarginThenHandedBack) {
  BothWaysCosts c;
  read(c, 100);
  out(c, 40);
  ASSERT_TRUE(c.rings_faster());
  in(c, 0, BothWaysCosts::kColdInSamples);
  in(c, 65, 40);  // 40 + 65 = 105: above kRingsMargin, within kKeepRingsMargin
  EXPECT_NEAR(c.rings_ticks_per_kib(), 105, 1);
  EXPECT_TRUE(c.rings_faster());
  in(c, 400, 40);
  EXPECT_FALSE(c.rings_faster());
  EXPECT_EQ(c.switches(), 2u);
  EXPECT_EQ(c.ring_in_ticks_per_kib(), 0);  // the next stream through the rings starts afresh
}

TEST(BothWaysCosts, OneOddSampleMovesTheAverageAQuarterOfTwiceItAtMost) {
  BothWaysCosts c;
  read(c, 100);
  read(c, 5000);  // an interruption: counted as 200
  EXPECT_DOUBLE_EQ(c.single_copy_ticks_per_kib(), 125);
  read(c, 100);
  EXPECT_DOUBLE_EQ(c.single_copy_ticks_per_kib(), 118.75);
}

TEST(BothWaysCosts, SmallCopiesAreNotTimed) {
  BothWaysCosts c;
  c.ring_out(BothWaysCosts::kSmallestTimed - 1, 10);
  c.single_copy(BothWaysCosts::kSmallestTimed - 1, 10000);
  EXPECT_EQ(c.ring_out_ticks_per_kib(), 0);
  EXPECT_EQ(c.single_copy_ticks_per_kib(), 0);
  c.ring_out(BothWaysCosts::kSmallestTimed, 10);
  EXPECT_GT(c.ring_out_ticks_per_kib(), 0);
}

// The way not in use is tried rarely while it is far behind, often while it is close.
TEST(BothWaysCosts, TheOtherWayIsTriedRarelyWhileFarBehind) {
  BothWaysCosts c;
  EXPECT_EQ(c.explore_every(), BothWaysCosts::kExploreOften);
  read(c, 70);
  out(c, 60);  // rings 120 against 70: 1.7 times
  EXPECT_FALSE(c.rings_faster());
  EXPECT_EQ(c.explore_every(), BothWaysCosts::kExploreRarely);
  out(c, 40, 20);  // rings about 80: 1.15 times
  EXPECT_FALSE(c.rings_faster());
  EXPECT_EQ(c.explore_every(), BothWaysCosts::kExploreOften);
  out(c, 20, 20);  // rings about 40: in use, single copies 1.75 times behind
  EXPECT_TRUE(c.rings_faster());
  EXPECT_EQ(c.explore_every(), BothWaysCosts::kExploreRarely);
  // a power of two (p2p masks the send count with it)
  EXPECT_EQ(BothWaysCosts::kExploreOften & (BothWaysCosts::kExploreOften - 1), 0u);
  EXPECT_EQ(BothWaysCosts::kExploreRarely & (BothWaysCosts::kExploreRarely - 1), 0u);
}

}  // namespace
}  // namespace railmpi::device::shm
