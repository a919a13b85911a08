// The store-then-load ordering of the sleep/wake handshake, paid by the sleeper instead of by
// every message.
//
// A sender publishes a frame, then reads the receiver's sleep flag; a receiver about to sleep sets
// its flag, then looks at its rings once more (Dekker pairing: one of the two must see the
// other's store, or a frame waits for a sleeper nobody wakes). Each side needs its store ordered
// before its load, which on x86 takes a locked instruction: on the sender's side, that is one per
// message, and it waits for every store of the frame to reach the cache (perf of osu_bibw 4 KiB:
// 27% of all samples on the publishing `xchg`). With Linux's membarrier, the sender's side needs
// only a compiler barrier: the rare side, the sleeper, makes every CPU running a process that
// registered (MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) execute a full barrier before it looks
// again (membarrier(2)). A rank that cannot register publishes with seq_cst stores as before; a
// sleeper whose barrier fails does not sleep.
#pragma once

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace railmpi::device::shm {

// Registers this process as a fast side of the global expedited barrier; true when the kernel
// supports and accepted it (then light_fence() suffices on this process's side).
inline bool register_light_fence_side() {
  const long commands = ::syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (commands < 0 || !(commands & MEMBARRIER_CMD_GLOBAL_EXPEDITED)) return false;
  return ::syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
}

// The fast side's fence between its store and its load: orders them for the compiler only; the
// heavy side's barrier orders them for the CPU.
inline void light_fence() { std::atomic_signal_fence(std::memory_order_seq_cst); }

// The slow side's fence: a full barrier on every CPU running a registered process, and on this
// one. False when the kernel refused (the caller must then not rely on it).
inline bool heavy_fence() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return ::syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0;
}

}  // namespace railmpi::device::shm
