// Whether the crowding that yields show on an oversubscribed machine lasts (progress::Engine):
// evidence (a long yield with more tasks runnable than the job's ranks awake) at kMoments moments,
// each at least kApart after the one counted before it and at most kWithin after it.
//
// A program that keeps a core busy gives evidence at nearly every yield that hands it the core,
// for as long as it runs: the crowding is established kApart * (kMoments - 1) after it began. The
// host of a virtual machine stopping its CPUs gives evidence too (a yield lasts the stop, and the
// ranks woken meanwhile are runnable before they count themselves awake), but in bursts: on the
// 2-vCPU guest in a slow phase, 0-6 long yields a run of the 8-rank ring on 2 cores, all within
// 12 ms of each other. Before this rule (two long yields within 33 and the runnable count), every
// rank of that ring let go of its binding in most runs, at 0.13-0.18 s a run against 0.085-0.10
// without (bench/lib_ab.sh, 11 interleaved rounds, 2026-11-30: medians 0.113 against 0.090, every
// slow run one that let go).
// A value type: the caller reads the clock.
#pragma once

#include <chrono>

namespace railmpi::progress {

class CrowdingEvidence {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kMoments = 3;
  static constexpr std::chrono::milliseconds kApart{10};
  static constexpr std::chrono::milliseconds kWithin{30};

  // Counts evidence seen at `now`; true once the crowding counts as lasting.
  bool seen(Clock::time_point now) {
    if (moments_ > 0 && now - last_ < kApart) return moments_ >= kMoments;
    moments_ = (moments_ > 0 && now - last_ <= kWithin) ? moments_ + 1 : 1;
    last_ = now;
    return moments_ >= kMoments;
  }
  // Moments counted in the current run of evidence.
  int moments() const { return moments_; }

 private:
  int moments_ = 0;
  Clock::time_point last_{};
};

}  // namespace railmpi::progress
