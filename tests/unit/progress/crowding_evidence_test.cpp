// CrowdingEvidence: crowding counts as lasting only when its evidence comes at moments spread
// over time, not in one burst (a host stopping the virtual machine's CPUs).
#include "progress/crowding_evidence.hpp"

#include <gtest/gtest.h>

namespace railmpi::progress {
namespace {

using Clock = CrowdingEvidence::Clock;
using std::chrono::milliseconds;
using std::chrono::microseconds;

Clock::time_point at(milliseconds t) { return Clock::time_point{} + std::chrono::hours(1) + t; }

TEST(CrowdingEvidence, BurstWithinTwelveMillisecondsIsNotCrowding) {
  CrowdingEvidence e;
  for (int us = 0; us <= 12000; us += 500) {
    EXPECT_FALSE(e.seen(at(milliseconds(0)) + microseconds(us))) << us;
  }
  EXPECT_EQ(e.moments(), 2);  // 0 ms and 10 ms
}

TEST(CrowdingEvidence, EvidenceThatGoesOnIsCrowdingAfterTwentyMilliseconds) {
  CrowdingEvidence e;
  int ms = 0;
  while (!e.seen(at(milliseconds(ms)))) {
    ++ms;
    ASSERT_LT(ms, 1000);
  }
  EXPECT_EQ(ms, 2 * CrowdingEvidence::kApart.count());
  EXPECT_TRUE(e.seen(at(milliseconds(ms + 1))));  // and stays so while it goes on
}

TEST(CrowdingEvidence, ExactBoundsOfTheGaps) {
  CrowdingEvidence e;
  EXPECT_FALSE(e.seen(at(milliseconds(0))));
  EXPECT_FALSE(e.seen(at(milliseconds(10)) - microseconds(1)));  // under kApart: not a moment
  EXPECT_EQ(e.moments(), 1);
  EXPECT_FALSE(e.seen(at(milliseconds(10))));  // kApart: the second moment
  EXPECT_EQ(e.moments(), 2);
  EXPECT_TRUE(e.seen(at(milliseconds(40))));  // kWithin after it: the third
}

TEST(CrowdingEvidence, TwoBurstsFarApartStartOver) {
  CrowdingEvidence e;
  EXPECT_FALSE(e.seen(at(milliseconds(0))));
  EXPECT_FALSE(e.seen(at(milliseconds(11))));
  EXPECT_FALSE(e.seen(at(milliseconds(41)) + microseconds(1)));  // more than kWithin after 11
  EXPECT_EQ(e.moments(), 1);
  EXPECT_FALSE(e.seen(at(milliseconds(52))));
  EXPECT_TRUE(e.seen(at(milliseconds(63))));
}

}  // namespace
}  // namespace railmpi::progress
