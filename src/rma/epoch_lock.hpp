// Locks on words in memory every rank of a node maps (rma::DirectAccess): MPI_Win_lock's epoch
// word (exclusive, or a count of shared holders) and the word that makes one accumulate's loads
// and stores atomic against the others'.
#pragma once

#include <sched.h>

#include <atomic>
#include <cstdint>

#include "base/cache_hint.hpp"

namespace railmpi::rma {

struct EpochLock {
  static constexpr std::uint32_t kExclusive = 0x80000000u;

  // A shared lock counts itself in unless the word holds kExclusive; an exclusive one swaps 0
  // for kExclusive. False: someone else holds it (try again).
  static bool try_lock(std::uint32_t& word, bool exclusive) {
    std::atomic_ref<std::uint32_t> w(word);
    std::uint32_t v = w.load(std::memory_order_relaxed);
    if (exclusive) return v == 0 && w.compare_exchange_strong(v, kExclusive, std::memory_order_acquire);
    return !(v & kExclusive) && w.compare_exchange_strong(v, v + 1, std::memory_order_acquire);
  }
  static void unlock(std::uint32_t& word) {
    std::atomic_ref<std::uint32_t> w(word);
    if (w.load(std::memory_order_relaxed) == kExclusive) w.store(0, std::memory_order_release);
    else w.fetch_sub(1, std::memory_order_release);
  }
};

// Held for the loads and stores of one operation: a rank that finds it taken spins a little, then
// yields (its holder may be waiting for this core).
struct OperationLock {
  static void lock(std::uint32_t& word) {
    std::atomic_ref<std::uint32_t> w(word);
    for (unsigned spins = 0; w.exchange(1, std::memory_order_acquire) != 0;) {
      while (w.load(std::memory_order_relaxed) != 0) {
        if (++spins < 64) base::spin_pause();
        else sched_yield();
      }
    }
  }
  static void unlock(std::uint32_t& word) { std::atomic_ref<std::uint32_t>(word).store(0, std::memory_order_release); }
};

}  // namespace railmpi::rma
