// How long a spinning wait pauses after a poll that found nothing, measured as the waits run.
//
// A wait polls the line its peer answers on (the shm device's pair line). The peer takes that
// line for writing as soon as it has read the message it answers (pair_line.hpp), and a poll from
// here while it prepares the answer takes the line back: its stores then wait for one more
// transfer between the cores. Polling less often steals less and notices the answer later. The
// best spacing moves with the cost of that transfer: on the 2-vCPU AMD EPYC guest (a PAUSE 27 ns;
// osu_latency 0-16 B, 2 ranks, interleaved runs, 2026-11-29), in minutes with a 0.06-0.08 us
// one-way, 1 / 2 / 3 PAUSEs: 0.075-0.081 / 0.058-0.067 / 0.072-0.082 us (4: 0.085); in minutes with
// 0.13-0.16 us, 3 PAUSEs took 0.84-0.87 the time of 2 (bench/lib_ab.sh, 10 rounds).
//
// So the waits measure each spacing. Both ranks of a ping-pong must use the same one while it is
// measured: half of what a spacing changes is the peer's polling (its steals of this rank's line,
// its noticing this rank's message), and a lone wait tried with another spacing saw only the other
// half. Time is cut into epochs of 2^kEpochShift ticks of the time-stamp counter, which every
// core of the machine reads alike; one epoch in kMeasureEvery measures one spacing, each in turn,
// the same on every rank; the other epochs use the spacing with the lowest average (by
// kSwitchMargin: close ones would take turns). Until every spacing has kWarmSamples samples,
// every epoch measures one, each in turn ((epoch + 1) mod kChoices, which the first measuring
// epoch of the steady schedule continues): the first 0.4-1 ms of a ping-pong find the best
// spacing, instead of the 6.5 ms of kMeasureEvery * kChoices epochs (osu_latency's 0 B point
// takes about 3 ms: in minutes where a set 4 PAUSEs took 0.165-0.172 us at every size 0-64 B,
// the automatic spacing took 0.33 / 0.26 / 0.20 at 0 / 1 / 2 B and 0.19-0.20 from 4 B on).
// What is timed is the stretch from the end of one wait to the end of the next, the whole round
// of a ping-pong: a steal of this rank's line makes its own sends' stores wait, before its wait
// begins (a wait alone timed showed 2 against 1 PAUSE 6-10% apart where whole runs were 25%).
// The counter is read at the end of one wait in kTimeEvery and of the wait after it; the spacing
// in use changes at the first of them only, and a stretch counts when the spacing was the
// epoch's since the marked wait before (the peer has switched too by then).
//
// Only stretches whose wait ended within kMaxTimedPolls polls count (a longer one waits for its
// peer's work, not for the line), and a sample counts as at most twice its spacing's average (an
// interruption). A value type; no clock of its own (the caller passes ticks, base/ticks.hpp).
#pragma once

#include <array>
#include <cstdint>

#include "base/moving_average.hpp"

namespace railmpi::progress {

class PollSpacing {
 public:
  // The spacings: 1 .. kChoices PAUSEs after an empty poll.
  static constexpr unsigned kChoices = 4;
  // Until the spacings are measured: 3 PAUSEs. 2 is best only in the fastest minutes, where the
  // latency is far below the peers' anyway; in minutes with a 0.09-0.10 us one-way (2026-12-04),
  // a set 1 / 2 / 3 / 4 PAUSEs took 0.096-0.109 / 0.105-0.127 / 0.088-0.097 / 0.100-0.119 us,
  // and starting at 3 instead of 2 took 0.84 / 0.87 / 0.93 the time at osu_latency's 0 / 1 / 2 B
  // (lib_ab.sh, 8 rounds; 4-64 B 0.99-1.08, all four measured by then).
  static constexpr unsigned kFirstPauses = 3;
  static constexpr unsigned kTimeEvery = 32;  // a power of two
  // 2^18 ticks: 0.1 ms at 2.6 GHz (a ping-pong's 800 waits); every spacing is measured once in
  // kMeasureEvery * kChoices epochs (6.5 ms).
  static constexpr unsigned kEpochShift = 18;
  static constexpr unsigned kMeasureEvery = 16;
  static constexpr unsigned kMaxTimedPolls = 64;
  // A spacing's first kWarmSamples samples are averaged as they come; then each moves the
  // average by 1/kWeight.
  static constexpr unsigned kWarmSamples = 8;
  static constexpr double kWeight = 32;
  // Another spacing takes over when its average is below this fraction of the one in use.
  static constexpr double kSwitchMargin = 0.95;

  PollSpacing() = default;
  // A spacing set by the user (RAILMPI_SPIN_PAUSES): `pauses` for every wait, nothing measured.
  explicit PollSpacing(unsigned pauses) : fixed_(true), fixed_pauses_(pauses) {}

  // PAUSEs after each empty poll of the next wait.
  unsigned pauses() const { return fixed_ ? fixed_pauses_ : current_ + 1; }
  // Whether to read the counter when the next wait ends: then end_of_wait() when it ended
  // within its polls, or abandon() when it went on to yield or sleep.
  bool time_next() { return !fixed_ && (second_ || (++waits_ & (kTimeEvery - 1)) == 0); }
  // The wait that time_next() chose ended at `now` after `polls` polls.
  void end_of_wait(std::uint64_t now, std::uint32_t polls) {
    if (second_) {
      second_ = false;
      if (measuring_ && settled_ && polls <= kMaxTimedPolls) add(now - mark_);
      return;
    }
    const std::uint64_t epoch = now >> kEpochShift;
    const bool measuring = !warm_ || epoch % kMeasureEvery == kMeasureEvery - 1;
    const unsigned choice = !measuring ? best_
                            : warm_    ? static_cast<unsigned>(epoch / kMeasureEvery % kChoices)
                                       : static_cast<unsigned>((epoch + 1) % kChoices);
    settled_ = measuring && measuring_ && choice == current_ && epoch == epoch_;
    measuring_ = measuring;
    current_ = choice;
    epoch_ = epoch;
    mark_ = now;
    second_ = true;
  }
  void abandon() { second_ = false; }

  // The spacing the epochs that measure none use.
  unsigned best_pauses() const { return fixed_ ? fixed_pauses_ : best_ + 1; }
  bool fixed() const { return fixed_; }
  // A spacing's average in ticks (0: not measured yet), for tests and reports.
  double average_ticks(unsigned pauses) const { return average_[pauses - 1]; }
  // Times the best spacing changed.
  unsigned changes() const { return changes_; }

 private:
  void add(std::uint64_t ticks) {
    const unsigned c = current_;
    const double sample = static_cast<double>(ticks);
    if (samples_[c] < kWarmSamples) {
      average_[c] = (average_[c] * samples_[c] + sample) / (samples_[c] + 1);
      ++samples_[c];
    } else {
      average_[c] = base::moving_average_step(average_[c], sample, kWeight, 2);
    }
    choose();
  }
  void choose() {
    unsigned best = best_;
    for (unsigned c = 0; c < kChoices; ++c) {
      if (samples_[c] < kWarmSamples) return;  // every spacing measured first
      if (average_[c] < average_[best]) best = c;
    }
    warm_ = true;
    if (best == best_ || average_[best] >= kSwitchMargin * average_[best_]) return;
    best_ = best;
    ++changes_;
  }

  bool fixed_ = false;
  unsigned fixed_pauses_ = 0;
  std::array<double, kChoices> average_{};
  std::array<unsigned, kChoices> samples_{};
  unsigned best_ = kFirstPauses - 1;
  unsigned current_ = kFirstPauses - 1;
  bool warm_ = false;       // every spacing has kWarmSamples samples: one epoch in kMeasureEvery measures
  bool measuring_ = false;  // current_ is the spacing epoch_ measures
  bool settled_ = false;    // and was already at the marked wait before
  bool second_ = false;     // the next timed wait ends a stretch begun at mark_
  std::uint64_t epoch_ = 0;
  std::uint64_t mark_ = 0;
  unsigned waits_ = 0;
  unsigned changes_ = 0;
};

}  // namespace railmpi::progress
