/* copy_limit: the physical limit of a large intra-node message: one cross-process copy with
 * process_vm_readv (what a single-copy rendezvous does), and memcpy within one process.
 * Prints "cma_MBps <size> <value>" and "memcpy_MBps <size> <value>" lines, and
 * "cma_bidir_MBps <size> <value>": two processes reading each other's buffer at the same time
 * (what a single-copy rendezvous does in both directions, osu_bibw), both directions together. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits_common.h"

/* Two processes, each reading n bytes of the other's src into its own dst `reps` times, started
 * together; MB/s of both directions over the slower one's time. Each process, bound to a CPU of
 * its own, allocates and writes its buffers after fork, as two MPI processes have theirs (the
 * first version of this measurement, unbound and reading buffers inherited through fork, showed
 * 3.5-4.2 GB/s both ways at 16 MiB here; this one 17-19, what osu_bibw reaches). */
static double bidirectional(size_t n, int reps) {
  int to_child[2], to_parent[2];
  if (pipe(to_child) || pipe(to_parent)) return 0;
  const pid_t child = fork();
  if (child < 0) return 0;
  const int in = child == 0 ? to_child[0] : to_parent[0];
  const int out = child == 0 ? to_parent[1] : to_child[1];
  if (child == 0) pin(1);
  char *src = malloc(n), *dst = malloc(n);
  if (!src || !dst) _exit(1);
  memset(src, 1, n);
  memset(dst, 2, n);
  /* swap pids and src addresses, read once untimed, then start together */
  const pid_t me = getpid();
  pid_t other = 0;
  char *other_src = NULL, c = 'x';
  if (write(out, &me, sizeof me) != sizeof me || write(out, &src, sizeof src) != sizeof src ||
      read(in, &other, sizeof other) != sizeof other || read(in, &other_src, sizeof other_src) != sizeof other_src)
    _exit(1);
  struct iovec local = {dst, n}, remote = {other_src, n};
  if (process_vm_readv(other, &local, 1, &remote, 1, 0) != (ssize_t)n) { perror("process_vm_readv"); _exit(1); }
  if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1) _exit(1);
  double t0 = now();
  for (int i = 0; i < reps; i++)
    if (process_vm_readv(other, &local, 1, &remote, 1, 0) != (ssize_t)n) { perror("process_vm_readv"); _exit(1); }
  double t = now() - t0, t_other = 0;
  /* swap times; neither exits (unmapping its src) before the other is done reading it */
  if (write(out, &t, sizeof t) != sizeof t || read(in, &t_other, sizeof t_other) != sizeof t_other) _exit(1);
  if (child == 0) _exit(0);
  waitpid(child, NULL, 0);
  free(src);
  free(dst);
  for (int i = 0; i < 2; i++) {
    close(to_child[i]);
    close(to_parent[i]);
  }
  if (t_other > t) t = t_other;
  return 2.0 * (double)n * reps / t / 1e6;
}

int main(void) {
  const size_t sizes[] = {65536, 1 << 20, 4 << 20, 16 << 20};
  const size_t max = 16 << 20;
  pin(0); /* the reader (and each bidirectional pair's parent) on CPU 0, the other process on 1 */
  char *src = malloc(max), *dst = malloc(max);
  memset(src, 1, max);
  memset(dst, 2, max);
  int go[2], done[2];
  if (pipe(go) || pipe(done)) return 1;
  pid_t child = fork();
  if (child == 0) { /* the peer whose memory is read: it only waits */
    pin(1);
    char c;
    read(go[0], &c, 1);
    _exit(0);
  }
  for (int s = 0; s < 4; s++) {
    size_t n = sizes[s];
    int reps = (int)(256 * 1024 * 1024 / n);
    if (reps > 2000) reps = 2000;
    struct iovec local = {dst, n}, remote = {src, n}; /* same address in the forked child */
    double best = 1e9;
    for (int k = 0; k < 3; k++) {
      double t0 = now();
      for (int i = 0; i < reps; i++)
        if (process_vm_readv(child, &local, 1, &remote, 1, 0) != (ssize_t)n) { perror("process_vm_readv"); return 1; }
      double t = (now() - t0) / reps;
      if (t < best) best = t;
    }
    printf("cma_MBps %zu %.0f\n", n, n / best / 1e6);
    best = 1e9;
    for (int k = 0; k < 3; k++) {
      double t0 = now();
      for (int i = 0; i < reps; i++) memcpy(dst, src, n);
      double t = (now() - t0) / reps;
      if (t < best) best = t;
    }
    printf("memcpy_MBps %zu %.0f\n", n, n / best / 1e6);
    double bidir = 0;
    for (int k = 0; k < 3; k++) {
      double b = bidirectional(n, reps);
      if (b > bidir) bidir = b;
    }
    printf("cma_bidir_MBps %zu %.0f\n", n, bidir);
  }
  write(go[1], "x", 1);
  waitpid(child, NULL, 0);
  return 0;
}
