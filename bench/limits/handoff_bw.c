/* handoff_bw: how fast freshly written data moves from one core to another, the limit of every
 * copy through a shared ring (eager messages, rendezvous packets). A producer process bound to
 * CPU 0 copies BLOCK-byte blocks into a shared ring of SLOTS slots, each with a sequence word it
 * stores last; a consumer bound to CPU 1 waits for the word and copies the block out. Prints
 * "handoff_MBps <block> <value>" (the best of 3 runs) per block size.
 * On the 2-vCPU AMD EPYC guest (2026-11-28) this swung between 2-5 and 12-19 GB/s at 32 KiB from one
 * minute to the next while a cache line's hand-over (cacheline) and a copy within one process
 * (copy_limit memcpy_MBps) stayed put: run it beside a comparison to tell the minutes apart. */
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
  return 0;
}
