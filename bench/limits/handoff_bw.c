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
 * (rings of 2 MiB or more), as osu_bw one way did with RailMPI; in other minutes 4 KiB ran at 40.
 * The cause was the consumer's forward copy: its reads trained the prefetcher to fetch the lines
 * after the block, the next block's, while the producer wrote them. "handoff_window_down_MBps"
 * is the same with the consumer copying each block from its end down (as the shm device's
 * receivers now copy a streamed packet): 4 KiB 34.7-35.0 GB/s where forward ran 9.0-9.5. */
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
enum { WINDOW = 64, WINDOW_RING_BYTES = 4 << 20, WINDOWS_PER_RUN = 1000 };
enum { HEADER = 64, COUNT_PAGE = 4096, MEM_BYTES = COUNT_PAGE + WINDOW_RING_BYTES };
_Static_assert((HEADER + MAX_BLOCK) * SLOTS <= WINDOW_RING_BYTES, "both shapes fit MEM_BYTES");

/* One run's shape: `blocks` blocks of `block` bytes, each after a HEADER-byte line whose first
 * word is its sequence (block number + 1 once written), `slots` slots `stride` bytes apart. With
 * window 0 the consumer clears each slot's word once it copied the block out and the producer
 * waits for that before it writes the slot again; with a window the producer writes `window`
 * blocks back to back and then waits until the consumer's count (the first word of `mem`) says
 * it copied them all. Timed from block `warm` on. */
struct shape {
  size_t block, stride, slots;
  long blocks, warm;
  int window;
  int down;  /* the consumer copies each block from its end down */
};

/* Copies n bytes (a multiple of 64) from the last 64-byte block down to the first. */
static void copy_down(char *to, const char *from, size_t n) {
  for (size_t at = n; at >= 64; at -= 64) memcpy(to + at - 64, from + at - 64, 64);
}

static _Atomic unsigned long *seq_of(char *ring, const struct shape *h, long i) {
  return (_Atomic unsigned long *)(ring + (size_t)(i % (long)h->slots) * h->stride);
}

/* MB/s of one producer/consumer run of shape `h` through `mem` (MEM_BYTES). */
static double run(char *mem, const struct shape *h) {
  _Atomic long *copied = (_Atomic long *)mem;
  char *ring = mem + COUNT_PAGE;
  memset(mem, 0, MEM_BYTES);
  const pid_t child = fork();
  if (child < 0) return 0;
  if (child == 0) {
    pin(1);
    char *dst = malloc(h->block);
    if (!dst) _exit(1);
    for (long i = 0; i < h->blocks; i++) {
      _Atomic unsigned long *seq = seq_of(ring, h, i);
      while (atomic_load_explicit(seq, memory_order_acquire) != (unsigned long)(i + 1)) spin_pause();
      if (h->down) copy_down(dst, (char *)seq + HEADER, h->block);
      else memcpy(dst, (char *)seq + HEADER, h->block);
      if (!h->window) atomic_store_explicit(seq, 0, memory_order_release);
      else if ((i + 1) % h->window == 0) atomic_store_explicit(copied, i + 1, memory_order_release);
    }
    _exit(dst[h->block - 1] == 1 ? 0 : 1);
  }
  char *src = malloc(h->block);
  if (!src) return 0;
  memset(src, 1, h->block);
  double t0 = now();
  for (long i = 0; i < h->blocks; i++) {
    if (i == h->warm) t0 = now();
    _Atomic unsigned long *seq = seq_of(ring, h, i);
    if (!h->window)
      while (atomic_load_explicit(seq, memory_order_acquire) != 0) spin_pause();
    memcpy((char *)seq + HEADER, src, h->block);
    atomic_store_explicit(seq, (unsigned long)(i + 1), memory_order_release);
    if (h->window && (i + 1) % h->window == 0)
      while (atomic_load_explicit(copied, memory_order_acquire) != i + 1) spin_pause();
  }
  const double t = now() - t0;
  int status = 1;
  waitpid(child, &status, 0);
  free(src);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 0;
  return (double)(h->blocks - h->warm) * h->block / t / 1e6;
}

/* Prints "KEY <block> <MB/s>", the best of 3 runs. */
static void best_of_3(const char *key, char *mem, const struct shape *h) {
  double best = 0;
  for (int k = 0; k < 3; k++) {
    const double v = run(mem, h);
    if (v > best) best = v;
  }
  printf("%s %zu %.0f\n", key, h->block, best);
}

int main(void) {
  pin(0);
  char *mem = mmap(NULL, MEM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 1;
  const size_t blocks[] = {4096, 32768, 65536};
  for (int b = 0; b < 3; b++) {
    const struct shape h = {blocks[b], HEADER + MAX_BLOCK, SLOTS, (long)(BYTES_PER_RUN / blocks[b]), 0, 0, 0};
    best_of_3("handoff_MBps", mem, &h);
  }
  const size_t window_blocks[] = {4096, 8192};
  for (int down = 0; down < 2; down++) {
    for (int b = 0; b < 2; b++) {
      const size_t stride = HEADER + window_blocks[b];
      const struct shape h = {window_blocks[b], stride, WINDOW_RING_BYTES / stride,
                              (long)WINDOW * WINDOWS_PER_RUN, WINDOW * 20, WINDOW, down};
      best_of_3(down ? "handoff_window_down_MBps" : "handoff_window_MBps", mem, &h);
    }
  }
  return 0;
}
