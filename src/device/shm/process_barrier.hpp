// A memory barrier forced on every CPU that runs a registered process (membarrier(2),
// MEMBARRIER_CMD_GLOBAL_EXPEDITED). It lets the frequent side of a store-then-load handshake
// between processes (store a word, then load the other side's "asleep" flag) go without a fence,
// while the rare side (store "asleep", then re-check the word) calls process_barrier() in its
// place: then at least one of the two loads sees the other side's store, as with two fences.
#pragma once

namespace railmpi::device::shm {

// Registers this process for process_barrier() (a second registration changes nothing). False when the kernel refuses: this
// process must then keep its fences.
bool register_for_process_barriers();

// Returns once every registered process that was running has passed a full memory barrier (a
// context switch is one too). Nothing happens when the kernel has no membarrier: no process
// could register then.
void process_barrier();

}  // namespace railmpi::device::shm
