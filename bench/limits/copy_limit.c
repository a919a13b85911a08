/* copy_limit: the physical limit of a large intra-node message: one cross-process copy with
 * process_vm_readv (what a single-copy rendezvous does), and memcpy within one process.
 * Prints "cma_MBps <size> <value>" and "memcpy_MBps <size> <value>" lines, and
 * "cma_bidir_MBps <size> <value>": two processes reading each other's buffer at the same time
 * (what a single-copy rendezvous does in both directions, osu_bibw), both directions together. */
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

/* Two processes, each reading n bytes of the other's src into its own dst `reps` times, started
 * together; MB/s of both directions over the slower one's time. */
static double bidirectional(char *src, char *dst, size_t n, int reps) {
  int go[2], back[2];
  if (pipe(go) || pipe(back)) return 0;
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) return 0;
  const pid_t other = child == 0 ? parent : child;
  char c = 'x';
  if (child == 0) {
    close(go[1]); /* so that the parent's close ends the child's last read */
    if (read(go[0], &c, 1) != 1) _exit(1);
  } else {
    if (write(go[1], &c, 1) != 1) return 0;
  }
  struct iovec local = {dst, n}, remote = {src, n}; /* the same addresses in both processes */
  double t0 = now();
  for (int i = 0; i < reps; i++)
    if (process_vm_readv(other, &local, 1, &remote, 1, 0) != (ssize_t)n) { perror("process_vm_readv"); _exit(1); }
  double t = now() - t0;
  if (child == 0) {
    ssize_t w = write(back[1], &t, sizeof t);
    /* stay until the parent is done reading this process's memory */
    if (w != (ssize_t)sizeof t || read(go[0], &c, 1) < 0) _exit(1);
    _exit(0);
  }
  double t_child = 0;
  if (read(back[0], &t_child, sizeof t_child) != (ssize_t)sizeof t_child) return 0;
  close(go[1]); /* the child's read returns 0: it exits */
  waitpid(child, NULL, 0);
  close(go[0]);
  close(back[0]);
  close(back[1]);
  if (t_child > t) t = t_child;
  return 2.0 * (double)n * reps / t / 1e6;
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
    double bidir = 0;
    for (int k = 0; k < 3; k++) {
      double b = bidirectional(src, dst, n, reps);
      if (b > bidir) bidir = b;
    }
    printf("cma_bidir_MBps %zu %.0f\n", n, bidir);
  }
  write(go[1], "x", 1);
  waitpid(child, NULL, 0);
  return 0;
}
