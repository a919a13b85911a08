// YieldClock: a yield's length from the time-stamp counter, scaled by the counter's rate since
// the clock was made; steady_clock decides only for yields that may have been long.
#include "progress/yield_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace railmpi::progress {
namespace {

using Clock = YieldClock::Clock;
using std::chrono::microseconds;

TEST(YieldClock, FewerTicksThanNanosecondsOfALongYieldAreShort) {
  const YieldClock c(microseconds(500));
  EXPECT_FALSE(c.maybe_long(0));
  EXPECT_FALSE(c.maybe_long(499999));
  EXPECT_TRUE(c.maybe_long(500000));
  EXPECT_TRUE(c.maybe_long(std::uint64_t{1} << 40));
}

TEST(YieldClock, BeforeALongYieldCouldHavePassedNothingIsLong) {
  const YieldClock c(std::chrono::seconds(10));
  const auto took = c.length(std::uint64_t{1} << 40, base::ticks(), Clock::now());
  EXPECT_LT(took, std::chrono::seconds(10));
}

// A stretch timed by the counter and by steady_clock agree within 10% once the clock has run a
// while (the counter's rate measured over it).
TEST(YieldClock, LengthFollowsSteadyClock) {
  const YieldClock c(microseconds(500));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto t0 = Clock::now();
  const std::uint64_t k0 = base::ticks();
  while (Clock::now() - t0 < std::chrono::milliseconds(5)) {
  }
  const std::uint64_t k1 = base::ticks();
  const auto t1 = Clock::now();
  const double want = std::chrono::duration<double, std::micro>(t1 - t0).count();
  const double got = std::chrono::duration<double, std::micro>(c.length(k1 - k0, k1, t1)).count();
  EXPECT_NEAR(got, want, want * 0.1);
  EXPECT_TRUE(c.maybe_long(k1 - k0));  // 5 ms of any counter of 1 GHz or more
}

}  // namespace
}  // namespace railmpi::progress
