// The progress engine: polls the devices, and waits without burning a core.
//
// Waiting spins for RAILMPI_SPIN_COUNT polls (lowest latency when every rank has a core), then
// yields the core RAILMPI_YIELD_COUNT times (a peer sharing this core gets to run), then sleeps in
// the devices' wait() in growing slices (oversubscribed or idle ranks use no CPU).
#pragma once

#include <sched.h>

#include <chrono>

#include "base/settings.hpp"
#include "mcm/multi_method.hpp"

namespace railmpi::progress {

class Engine {
 public:
  Engine(mcm::MultiMethod& mcm, const base::Settings& settings)
      : mcm_(mcm), spin_(settings.spin_count), yield_(settings.yield_count) {}

  // One pass over every device, then the upper layers' deferred work (collective schedules whose
  // round finished). Returns the number of events.
  int poll() {
    int n = mcm_.poll();
    if (hook_armed_ && *hook_armed_) n += hook_(hook_ctx_);
    return n;
  }

  // One poll for a caller that tests and comes back (MPI_Test, MPI_Iprobe loops): after spin_
  // polls in a row that found nothing, the core is yielded once, so a rank looping on MPI_Test
  // on an oversubscribed node lets the ranks it waits for run.
  int test_poll() {
    const int n = poll();
    if (n > 0) {
      idle_tests_ = 0;
    } else if (++idle_tests_ >= spin_) {
      idle_tests_ = 0;
      sched_yield();
    }
    return n;
  }

  // Work an upper layer defers out of device callbacks: run after a device pass while *armed is
  // true (a plain flag test on the hot path; no call when there is nothing to do). The hook
  // returns how many events it handled.
  void set_hook(int (*hook)(void* ctx), void* ctx, const bool* armed) {
    hook_ = hook;
    hook_ctx_ = ctx;
    hook_armed_ = hook ? armed : nullptr;
  }

  // Polls until done() holds.
  template <class Done>
  void wait_until(Done&& done) {
    if (done()) return;
    for (unsigned i = 0; i < spin_; ++i) {
      if (poll() > 0 && done()) return;
    }
    if (done()) return;
    for (unsigned i = 0; i < yield_; ++i) {
      sched_yield();
      if (poll() > 0 && done()) return;
      if (done()) return;
    }
    auto slice = std::chrono::microseconds(50);
    while (!done()) {
      mcm_.wait(slice);
      if (poll() > 0) {
        slice = std::chrono::microseconds(50);
      } else if (slice < std::chrono::microseconds(2000)) {
        slice *= 2;
      }
    }
  }

 private:
  mcm::MultiMethod& mcm_;
  unsigned spin_;
  unsigned yield_;
  unsigned idle_tests_ = 0;
  int (*hook_)(void*) = nullptr;
  void* hook_ctx_ = nullptr;
  const bool* hook_armed_ = nullptr;
};

}  // namespace railmpi::progress
