/* copy_limit: the physical limit of a large intra-node message: one cross-process copy with
 * process_vm_readv (what a single-copy rendezvous does), and memcpy within one process.
 * Prints "cma_MBps <size> <value>" and "memcpy_MBps <size> <value>" lines. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void) {
  const size_t sizes[] = {65536, 1 << 20, 4 << 20, 16 << 20};
  const size_t max = 16 << 20;
  char *src = malloc(max), *dst = malloc(max);
  memset(src, 1, max);
  memset(dst, 2, max);
  int go[2], done[2];
  if (pipe(go) || pipe(done)) return 1;
  pid_t child = fork();
  if (child == 0) { /* the peer whose memory is read: it only waits */
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
  }
  write(go[1], "x", 1);
  waitpid(child, NULL, 0);
  return 0;
}
