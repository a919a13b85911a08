// How many frames a producer thread and a consumer thread pass in a unit test: `frames`, unless
// the machine is so slow that they would outlast the time budget; then at least `least`.
//
// The two threads yield when the ring is full or empty; on a 2-core machine whose cores other
// programs keep busy, each yield may wait for a whole time slice of theirs: a 64-cell ring's
// million frames took 0.4 s on an idle machine and over 60 s (the unit tests' timeout) with two
// busy loops beside ctest -j 2, where the 400000 frames of the pair channel's test took 51 s.
// Every frame written is still checked; only how many there are depends on the machine.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace railmpi::device::shm::test_support {

class FrameBudget {
 public:
  using Clock = std::chrono::steady_clock;

  FrameBudget(std::uint64_t frames, std::uint64_t least, Clock::duration budget = std::chrono::seconds(10))
      : frames_(frames), least_(least), deadline_(Clock::now() + budget) {}

  // Producer: whether to write frame number `f` (checks the clock every 1024 frames).
  bool write_more(std::uint64_t f) const {
    if (f >= frames_) return false;
    if (f < least_ || f % 1024 != 0) return true;
    return Clock::now() < deadline_;
  }
  // Producer, after its last frame: `written` frames in all.
  void finish(std::uint64_t written) { written_.store(written, std::memory_order_release); }

  // Consumer: whether frames are still to come after `received` of them.
  bool receive_more(std::uint64_t received) const {
    const std::uint64_t w = written_.load(std::memory_order_acquire);
    return w == kUnknown || received < w;
  }
  // After the producer finished: the frames it wrote.
  std::uint64_t written() const { return written_.load(std::memory_order_acquire); }
  std::uint64_t least() const { return least_; }

 private:
  static constexpr std::uint64_t kUnknown = ~std::uint64_t(0);
  std::uint64_t frames_;
  std::uint64_t least_;
  Clock::time_point deadline_;
  std::atomic<std::uint64_t> written_{kUnknown};
};

}  // namespace railmpi::device::shm::test_support
