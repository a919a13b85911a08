// How a wait for a rank bound to this rank's CPU (a CPU mate, on an oversubscribed node) begins:
// yielding first, or asleep at once (progress::Engine::wait_until(done, peer)).
//
// Each wait that yields first tells how many yields it took: a wait of more than kQuickYields
// counts as long. A mate whose last waits were mostly long (kLongWaits of the last kHistory) passes
// a token around, so the wait sleeps at once and the mate's wake hands the CPU straight back;
// otherwise yielding hands the CPU round more cheaply (see the engine for the figures). 2 of the
// last 3 rather than the last 2: a CPU's ranks that yield to each other make the ring's waits 3-5
// yields long, around kQuickYields, and with "the last 2" the ranks of one CPU stayed mostly
// yielding in 10 of 100 runs of 200 rounds of tests/mpi/ring (fewer than 100 mate sleeps; in a
// later batch 0 of 40, 13 under 175), with "2 of 3" in none of 40 (all 175 or more, the later
// batch). bench/oversub_loop, 8 ranks, interleaved medians against "the last 2": ring 0.0250 /
// 0.0237 against 0.0272 / 0.0248 s (9 rounds each), 10000 shifts 0.0420 / 0.0440 against 0.0448 /
// 0.0430 (7 and 9 rounds).
//
// A wait that sleeps at once learns nothing, so now and then one yields first all the same (a
// retry: the pattern may have changed). Retries come kRetryFirst waits apart, twice as far apart
// after each retry that was long again (up to kRetryMost), and kRetryFirst apart again after a
// quick one. In the 8-rank ring on 2 cores the mates' waits stay long, and a retry every 16th wait
// cost each sleeping rank 6 yields a time, and more when a retry ended within kQuickYields (its
// yields then take 7 us each, the CPU's other ranks working in between) and history flipped the
// waits to yielding first (bench/oversub_loop ring, 20000 rounds: ranks 1, 3, 5, 7 made 5700-13200
// yields each beside 16000-18700 sleeps). Against retries every 16th wait, 20000 rounds of the
// ring: 17.1 yields and 24.9 context switches a round against 35.4 and 27.8; 1000 rounds,
// interleaved (5, 7 and 9 rounds): ring 0.87-0.97, 0.95-1.00 and 0.89-1.13 the time (medians
// 0.96, 0.98, 0.99), 10000 shifts medians 0.97, 1.02, 0.98, 1000 allreduces 1.00. A pattern
// turning quick is found within kRetryMost waits.
// A value type: no clock, no system call.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace railmpi::progress {

class MateWaits {
 public:
  static constexpr unsigned kHistory = 3;
  static constexpr unsigned kLongWaits = 2;
  static constexpr int kQuickYields = 3;
  static constexpr unsigned kRetryFirst = 16;
  static constexpr unsigned kRetryMost = 1024;

  // Room for job ranks 0 .. ranks-1, every history empty (waits yield first).
  void reset(std::size_t ranks) {
    history_.assign(ranks, 0);
    retry_every_ = kRetryFirst;
    retry_left_ = kRetryFirst;
  }

  struct Start {
    bool yield_first;  // yield before sleeping
    bool retry;        // a retry: sleeping at once was due
  };
  // How the next wait for `peer` begins (counts a retry when one is due).
  Start start(int peer) {
    if (!long_before(peer)) return {true, false};
    if (--retry_left_ != 0) return {false, false};
    return {true, true};
  }

  // A wait begun by start() with yield_first ended after `yields` yields, or went on to sleep
  // (`yields` < 0): counts in the peer's history, and spaces the retries.
  void ended(int peer, Start how, int yields) {
    const bool quick = yields >= 0 && yields <= kQuickYields;
    std::uint8_t& h = history_[std::size_t(peer)];
    h = static_cast<std::uint8_t>((h << 1) | (quick ? 0 : 1));
    if (!how.retry) return;
    retry_every_ = quick ? kRetryFirst : std::min(retry_every_ * 2, kRetryMost);
    retry_left_ = retry_every_;
  }

  // Whether kLongWaits of the last kHistory waits for `peer` that yielded first were long.
  bool long_before(int peer) const {
    return unsigned(std::popcount(unsigned(history_[std::size_t(peer)] & kHistoryMask))) >= kLongWaits;
  }
  // Waits between two retries now.
  unsigned retry_every() const { return retry_every_; }

 private:
  static constexpr std::uint8_t kHistoryMask = (1u << kHistory) - 1;
  // Per job rank: bit i set when the i-th last wait for it that yielded first was long.
  std::vector<std::uint8_t> history_;
  unsigned retry_every_ = kRetryFirst;
  unsigned retry_left_ = kRetryFirst;
};

}  // namespace railmpi::progress
