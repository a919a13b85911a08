// How long a yield of the core took, read cheaply: the time-stamp counter around the yield
// (base::ticks(): 9.7 ns a read on the 2-vCPU AMD EPYC guest, where a steady_clock read takes
// 25-28 ns), and steady_clock only after a yield that may have been long. An oversubscribed wait
// yields again and again, and its turns between two yields are short (0.10-0.13 us in the ring of
// bench/oversub_loop, 8 ranks on 2 cores), so two clock reads a yield were a third of a turn.
#pragma once

#include <chrono>
#include <cstdint>

#include "base/ticks.hpp"

namespace railmpi::progress {

class YieldClock {
 public:
  using Clock = std::chrono::steady_clock;

  // `least_long`: the shortest yield that counts as long.
  explicit YieldClock(Clock::duration least_long)
      : short_ticks_(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(least_long).count())),
        least_long_(least_long),
        start_(Clock::now()),
        start_ticks_(base::ticks()) {}

  // Whether a yield of `ticks` ticks may have lasted least_long or more: a counter of 1 GHz or
  // more (x86-64's time-stamp counter; elsewhere base::ticks() counts nanoseconds) ticks at least
  // once a nanosecond.
  bool maybe_long(std::uint64_t ticks) const { return ticks >= short_ticks_; }

  // How long a yield of `ticks` ticks lasted that ended at tick `end`, `now` read right after it:
  // the ticks at the counter's rate since this clock was made. When less than least_long has
  // passed since then, that time (the yield took no longer, so it was not long).
  Clock::duration length(std::uint64_t ticks, std::uint64_t end, Clock::time_point now) const {
    const Clock::duration since = now - start_;
    if (since < least_long_) return since;
    if (end <= start_ticks_) return nanoseconds(ticks);  // a counter that went back: take ticks as ns
    const double per_tick = static_cast<double>(since.count()) / static_cast<double>(end - start_ticks_);
    return Clock::duration(static_cast<Clock::rep>(static_cast<double>(ticks) * per_tick));
  }

 private:
  static Clock::duration nanoseconds(std::uint64_t n) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(static_cast<std::int64_t>(n)));
  }

  std::uint64_t short_ticks_;
  Clock::duration least_long_;
  Clock::time_point start_;
  std::uint64_t start_ticks_;
};

}  // namespace railmpi::progress
