// The asymmetric fence of the sleep/wake handshake (device/shm/asymmetric_fence.hpp): the
// store-buffering litmus test between two processes. Each round, the fast side stores x, passes
// light_fence() and loads y; the slow side stores y, passes heavy_fence() and loads x. At least one
// of them must see the other's store (else a sender would miss a sleeper, and the sleeper the
// frame). The same rounds without any fence show how often this machine lets a load pass a store
// (printed: on x86 the store-buffering outcome shows up when both run at once).
#include "device/shm/asymmetric_fence.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

namespace railmpi::device::shm {
namespace {

constexpr int kRounds = 100000;

struct Shared {
  alignas(64) std::atomic<int> go{0};
  alignas(64) std::atomic<int> ack{0};
  alignas(64) std::atomic<int> x{0};
  alignas(64) std::atomic<int> y{0};
  alignas(64) int fast_saw[kRounds + 1];  // y the fast side loaded in round i
  int slow_saw[kRounds + 1];              // x the slow side loaded in round i
};

void wait_for(const std::atomic<int>& counter, int value) {
  for (int spins = 0; counter.load(std::memory_order_acquire) < value; ++spins) {
    if (spins > 1000) sched_yield();  // the other side may share this CPU
  }
}

// Runs the rounds with (`fenced`) or without the fences; the rounds where neither side saw the
// other's store.
int both_missed(bool fenced) {
  void* mem = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return -1;
  auto* s = new (mem) Shared{};
  const pid_t fast = fork();
  if (fast == 0) {
    if (fenced && !register_light_fence_side()) _exit(2);
    for (int i = 1; i <= kRounds; ++i) {
      wait_for(s->go, i);
      s->x.store(i, std::memory_order_relaxed);
      if (fenced) light_fence(); else std::atomic_signal_fence(std::memory_order_seq_cst);
      s->fast_saw[i] = s->y.load(std::memory_order_relaxed);
      s->ack.store(i, std::memory_order_release);
    }
    _exit(0);
  }
  bool fence_failed = false;
  for (int i = 1; i <= kRounds; ++i) {
    s->go.store(i, std::memory_order_release);
    s->y.store(i, std::memory_order_relaxed);
    if (fenced) fence_failed |= !heavy_fence(); else std::atomic_signal_fence(std::memory_order_seq_cst);
    s->slow_saw[i] = s->x.load(std::memory_order_relaxed);
    wait_for(s->ack, i);
  }
  int status = 0;
  waitpid(fast, &status, 0);
  int missed = 0;
  for (int i = 1; i <= kRounds; ++i) missed += s->fast_saw[i] < i && s->slow_saw[i] < i;
  munmap(mem, sizeof(Shared));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || fence_failed) return -1;
  return missed;
}

TEST(AsymmetricFence, OneSideAlwaysSeesTheOthersStore) {
  if (!register_light_fence_side()) GTEST_SKIP() << "membarrier global expedited not available";
  const int unfenced = both_missed(false);
  const int fenced = both_missed(true);
  std::printf("store-buffering outcome in %d of %d rounds without fences, %d with them\n", unfenced, kRounds,
              fenced);
  EXPECT_EQ(fenced, 0);
}

}  // namespace
}  // namespace railmpi::device::shm
