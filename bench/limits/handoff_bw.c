/* handoff_bw: how fast freshly written data moves from one core to another, the limit of every
 * copy through a shared ring (eager messages, rendezvous packets). A producer process bound to
 * CPU 0 copies BLOCK-byte blocks into a shared ring of SLOTS slots, each with a sequence word it
 * stores last; a consumer bound to CPU 1 waits for the word and copies the block out. Prints
 * "handoff_MBps <block> <value>" (the best of 3 runs) per block size.
 * On the 2-vCPU AMD EPYC guest (2026-11-28) this swung between 2-5 and 12-19 GB/s at 32 KiB from one
 * minute to the next while a cache line's hand-over (cacheline) and a copy within one process
 * (copy_limit memcpy_MBps) stayed put: run it beside a comparison to tell the minutes apart.
 * Then "handoff_window_MBps <block> <value>" for 4 and 8 KiB: osu_bw's shape without an MPI. The
 * producer writes a window of 64 blocks back to back (each after a 64-byte header line, through a
 * 4 MiB ring, as the shm device's packet ring lays out eager payloads), then waits until the
 * consumer has copied them all out; again and again. In the same minutes this ran at 8.5-10.5
 * GB/s with 4 KiB blocks (any ring from 512 KiB to 8 MiB, windows of 16-128) and 36-51 with 8 KiB
 * (rings of 2 MiB or more), as osu_bw one way did with RailMPI; in other minutes 4 KiB ran at 40. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits_common.h"

enum { SLOTS = 32, MAX_BLOCK = 64 * 1024, BYTES_PER_RUN = 64 * 1024 * 1024 };

struct slot {
  _Atomic unsigned long seq; /* block number + 1 once written; 0 once copied out */
  char pad[56];
  char data[MAX_BLOCK];
};

/* MB/s of one producer/consumer run of `blocks` blocks of `block` bytes through `ring`. */
static double run(struct slot *ring, size_t block, long blocks) {
  memset(ring, 0, sizeof(struct slot) * SLOTS);
  const pid_t child = fork();
  if (child < 0) return 0;
  if (child == 0) {
    pin(1);
    char *dst = malloc(block);
    if (!dst) _exit(1);
    for (long i = 0; i < blocks; i++) {
      struct slot *s = &ring[i % SLOTS];
      while (atomic_load_explicit(&s->seq, memory_order_acquire) != (unsigned long)(i + 1)) __builtin_ia32_pause();
      memcpy(dst, s->data, block);
      atomic_store_explicit(&s->seq, 0, memory_order_release);
    }
    _exit(dst[block - 1] == 1 ? 0 : 1);
  }
  char *src = malloc(block);
  if (!src) return 0;
  memset(src, 1, block);
  const double t0 = now();
  for (long i = 0; i < blocks; i++) {
    struct slot *s = &ring[i % SLOTS];
    while (atomic_load_explicit(&s->seq, memory_order_acquire) != 0) __builtin_ia32_pause();
    memcpy(s->data, src, block);
    atomic_store_explicit(&s->seq, (unsigned long)(i + 1), memory_order_release);
  }
  int status = 1;
  waitpid(child, &status, 0);
  const double t = now() - t0;
  free(src);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return (double)blocks * block / t / 1e6;
}

enum { WINDOW = 64, WINDOW_RING_BYTES = 4 << 20, WINDOWS_PER_RUN = 1000 };

/* MB/s of one windowed run (see the file comment) of `block`-byte blocks; `mem` holds a page for
 * the consumer's count, then the ring. */
static double run_window(char *mem, size_t block) {
  const size_t stride = block + 64, slots = WINDOW_RING_BYTES / stride;
  const long blocks = (long)WINDOW * WINDOWS_PER_RUN, warm = WINDOW * 20;
  _Atomic long *copied = (_Atomic long *)mem;
  char *ring = mem + 4096;
  memset(mem, 0, 4096 + WINDOW_RING_BYTES);
  const pid_t child = fork();
  if (child < 0) return 0;
  if (child == 0) {
    pin(1);
    char *dst = malloc(block);
    if (!dst) _exit(1);
    for (long i = 0; i < blocks; i++) {
      _Atomic unsigned long *seq = (_Atomic unsigned long *)(ring + (size_t)(i % (long)slots) * stride);
      while (atomic_load_explicit(seq, memory_order_acquire) != (unsigned long)(i + 1)) __builtin_ia32_pause();
      memcpy(dst, (char *)seq + 64, block);
      if ((i + 1) % WINDOW == 0) atomic_store_explicit(copied, i + 1, memory_order_release);
    }
    _exit(dst[block - 1] == 1 ? 0 : 1);
  }
  char *src = malloc(block);
  if (!src) return 0;
  memset(src, 1, block);
  double t0 = now();
  for (long i = 0; i < blocks; i++) {
    if (i == warm) t0 = now();
    _Atomic unsigned long *seq = (_Atomic unsigned long *)(ring + (size_t)(i % (long)slots) * stride);
    memcpy((char *)seq + 64, src, block);
    atomic_store_explicit(seq, (unsigned long)(i + 1), memory_order_release);
    if ((i + 1) % WINDOW == 0)
      while (atomic_load_explicit(copied, memory_order_acquire) != i + 1) __builtin_ia32_pause();
  }
  const double t = now() - t0;
  int status = 1;
  waitpid(child, &status, 0);
  free(src);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return (double)(blocks - warm) * block / t / 1e6;
}

int main(void) {
  pin(0);
  struct slot *ring = mmap(NULL, sizeof(struct slot) * SLOTS, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (ring == MAP_FAILED) return 1;
  const size_t blocks[] = {4096, 32768, 65536};
  for (int b = 0; b < 3; b++) {
    double best = 0;
    for (int k = 0; k < 3; k++) {
      const double v = run(ring, blocks[b], (long)(BYTES_PER_RUN / blocks[b]));
      if (v > best) best = v;
    }
    printf("handoff_MBps %zu %.0f\n", blocks[b], best);
  }
  char *mem = mmap(NULL, 4096 + WINDOW_RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 1;
  const size_t window_blocks[] = {4096, 8192};
  for (int b = 0; b < 2; b++) {
    double best = 0;
    for (int k = 0; k < 3; k++) {
      const double v = run_window(mem, window_blocks[b]);
      if (v > best) best = v;
    }
    printf("handoff_window_MBps %zu %.0f\n", window_blocks[b], best);
  }
  return 0;
}
