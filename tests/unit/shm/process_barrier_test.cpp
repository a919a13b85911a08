// process_barrier(): the store-buffering litmus test across two processes. The light side stores
// x and loads y with no fence; the heavy side stores y, calls process_barrier() and loads x. Both
// loads seeing 0 is forbidden. The light side's store of x waits in its store buffer behind stores
// to lines the heavy side holds, so that a fence on the heavy side alone does not suffice. Measured
// here with 20000 rounds: no fence at all gave the forbidden outcome 14 times, a fence on the
// heavy side only once (rare: this test catches a broken barrier reliably, a local fence seldom).
#include "device/shm/process_barrier.hpp"

#include <gtest/gtest.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace shm = railmpi::device::shm;

namespace {

bool kernel_has_membarrier() {
  const long cmds = ::syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  return cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0;
}

struct alignas(64) Line {
  std::uint32_t v;
};

// Shared by the two processes, each word on its own line.
struct Litmus {
  Line x, y;
  Line arrived[2];  // round each side reached (a barrier before every round)
  Line r1;          // the light side's load of y, per round
  Line done;        // round whose r1 is written
  Line held[32];    // written by the heavy side before each round, by the light side in it
};

std::uint32_t load(const Line& l, std::memory_order mo = std::memory_order_acquire) {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(l.v)).load(mo);
}
void store(Line& l, std::uint32_t v, std::memory_order mo = std::memory_order_release) {
  std::atomic_ref<std::uint32_t>(l.v).store(v, mo);
}

// Both sides arrive at round `round` and leave together.
void meet(Litmus& t, int me, std::uint32_t round) {
  store(t.arrived[me], round);
  while (load(t.arrived[1 - me]) < round) {
  }
}

}  // namespace

TEST(ProcessBarrier, RegistersWhereTheKernelHasMembarrier) {
  if (!kernel_has_membarrier()) GTEST_SKIP() << "no membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)";
  EXPECT_TRUE(shm::register_for_process_barriers());
  EXPECT_TRUE(shm::register_for_process_barriers());  // again: still registered
}

TEST(ProcessBarrier, OrdersTheOtherProcessesStores) {
  if (!kernel_has_membarrier()) GTEST_SKIP() << "no membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)";
  constexpr std::uint32_t kRounds = 20000;
  void* mem = ::mmap(nullptr, sizeof(Litmus), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  auto* t = new (mem) Litmus{};
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the light side: no fence between its store and its load
    if (!shm::register_for_process_barriers()) ::_exit(2);
    store(t->arrived[1], 0);
    for (std::uint32_t round = 1; round <= kRounds; ++round) {
      meet(*t, 1, round);
      for (Line& l : t->held) store(l, round, std::memory_order_relaxed);
      store(t->x, round, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      store(t->r1, load(t->y, std::memory_order_relaxed), std::memory_order_relaxed);
      store(t->done, round);
    }
    ::_exit(0);
  }
  int forbidden = 0;
  for (std::uint32_t round = 1; round <= kRounds; ++round) {
    for (Line& l : t->held) store(l, round, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);  // drained before the round starts
    meet(*t, 0, round);
    store(t->y, round, std::memory_order_relaxed);
    shm::process_barrier();
    const std::uint32_t r2 = load(t->x, std::memory_order_relaxed);
    while (load(t->done) < round) {
    }
    // "0" in round k: the other side's store of this round was not seen.
    if (load(t->r1) < round && r2 < round) ++forbidden;
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_EQ(forbidden, 0) << "rounds where neither side saw the other's store, of " << kRounds;
  ::munmap(mem, sizeof(Litmus));
}
