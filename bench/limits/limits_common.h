/* What the programs of bench/limits share: a monotonic clock and binding to one CPU. Include
 * after defining _GNU_SOURCE (sched_setaffinity). */
#pragma once

#include <sched.h>
#include <time.h>
#include <unistd.h>

/* Seconds on the monotonic clock. */
static inline double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Binds the calling process to CPU `cpu` (modulo the CPUs online), as mpiexec binds two ranks. */
static inline void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
  sched_setaffinity(0, sizeof set, &set);
}

/* PAUSE between two polls of a line another core writes (elsewhere nothing). */
static inline void spin_pause(void) {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}
