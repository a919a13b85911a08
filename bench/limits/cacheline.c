/* cacheline: the physical limit of a one-way small-message hand-off between two processes.
 * Two processes bounce a counter in one shared cache line; half the round trip is the time one
 * cache line takes to move from one core to the other. Prints "cacheline_oneway_us <value>".
 * `cacheline ITERS 2`: each process writes its own line and polls the other's (one line per
 * direction, as two rings would), printing "cacheline_two_lines_oneway_us <value>".
 * `cacheline ITERS 3`: a message of two lines, as 64 bytes of payload and a header need, handed
 * back and forth in two shared lines: the writer fills the second line, then stores the counter
 * in the first and moves both lines to the shared cache (CLDEMOTE, as RailMPI's pair line does:
 * 0.14-0.17 us instead of 0.18-0.24 here); the reader polls the first and then reads the second.
 * Prints "cacheline_two_line_message_oneway_us <value>". */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits_common.h"

/* The second line of a two-line message: eight words, each the message's counter. */
static void send_second(_Atomic long *w, long v) {
  for (int j = 0; j < 8; j++) atomic_store_explicit(&w[j], v, memory_order_relaxed);
}
static void demote(const void *p) {
#if defined(__x86_64__)
  __asm__ volatile("cldemote %0" : : "m"(*(const char *)p));
#else
  (void)p;
#endif
}
static long receive_second(_Atomic long *w) {
  long v = atomic_load_explicit(&w[0], memory_order_relaxed);
  for (int j = 1; j < 8; j++) v &= atomic_load_explicit(&w[j], memory_order_relaxed) == v ? ~0L : 0;
  return v;
}

int main(int argc, char **argv) {
  /* three timed repetitions of iters / 3 round trips; the child answers exactly that many */
  long iters = (argc > 1 ? atol(argv[1]) : 300000) / 3 * 3;
  if (iters < 3) return 2;
  int two = argc > 2 && atoi(argv[2]) == 2;
  int message = argc > 2 && atoi(argv[2]) == 3;
  _Atomic long *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (line == MAP_FAILED) return 1;
  atomic_store(line, 0);
  /* the child's answers: the same line, or the next one */
  _Atomic long *back = two ? line + 64 / sizeof(long) : line;
  atomic_store(back, 0);
  /* message mode: the second line, written before the counter and read after it */
  _Atomic long *second = line + 64 / sizeof(long);
  pid_t child = fork();
  if (child == 0) {
    pin(1);
    for (long i = 0; i < iters; i++) {
      while (atomic_load_explicit(line, memory_order_acquire) != 2 * i + 1) {}
      if (message) {
        if (receive_second(second) != 2 * i + 1) _exit(1);
        send_second(second, 2 * i + 2);
      }
      atomic_store_explicit(back, 2 * i + 2, memory_order_release);
      if (message) {
        demote(line);
        demote(second);
      }
    }
    _exit(0);
  }
  pin(0);
  double best = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    long base = 2 * rep * (iters / 3);
    long n = iters / 3;
    double t0 = now();
    for (long i = 0; i < n; i++) {
      if (message) send_second(second, base + 2 * i + 1);
      atomic_store_explicit(line, base + 2 * i + 1, memory_order_release);
      if (message) {
        demote(line);
        demote(second);
      }
      while (atomic_load_explicit(back, memory_order_acquire) != base + 2 * i + 2) {}
      if (message && receive_second(second) != base + 2 * i + 2) return 1;
    }
    double oneway = (now() - t0) / n / 2 * 1e6;
    if (oneway < best) best = oneway;
  }
  waitpid(child, NULL, 0);
  printf("%s %.4f\n",
         message ? "cacheline_two_line_message_oneway_us" : two ? "cacheline_two_lines_oneway_us" : "cacheline_oneway_us",
         best);
  return 0;
}
