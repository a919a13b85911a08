/* Shared helpers for the RailMPI point-to-point benchmarks (OSU-style). */
#ifndef RAILMPI_BENCH_COMMON_H
#define RAILMPI_BENCH_COMMON_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define BENCH_MAX_DEFAULT (4 << 20)

/* Options: -m MAX (bytes), -s MIN (bytes, first size), -q (quick: fewer
 * iterations), -i FACTOR (scale iterations), -b (blocking sends where the
 * program has a non-blocking and a blocking form), -P (probe the placement of
 * the CPUs, bench_placement_probe, where the program reports it). Environment
 * BENCH_QUICK=1 is the same as -q. */
typedef struct {
    long max;
    long min;
    double iter_scale;
    int blocking;
    int probe;
} bench_opts;

static __attribute__((unused)) bench_opts bench_parse(int argc, char **argv) {
    bench_opts o = {BENCH_MAX_DEFAULT, 0, 1.0, 0, 0};
    const char *q = getenv("BENCH_QUICK");
    if (q && atoi(q) > 0) o.iter_scale = 0.2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) o.max = atol(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) o.min = atol(argv[++i]);
        else if (!strcmp(argv[i], "-b")) o.blocking = 1;
        else if (!strcmp(argv[i], "-P")) o.probe = 1;
        else if (!strcmp(argv[i], "-q")) o.iter_scale = 0.2;
        else if (!strcmp(argv[i], "-i") && i + 1 < argc) o.iter_scale = atof(argv[++i]);
    }
    if (o.max < 1) o.max = 1;
    if (o.min < 0) o.min = 0;
    return o;
}

/* First size of a doubling loop that starts at 1 (or at 0 when allow_zero). */
static __attribute__((unused)) long bench_first_size(const bench_opts *o, int allow_zero) {
    if (o->min == 0) return allow_zero ? 0 : 1;
    return o->min;
}

/* Iterations scaled by message size: many for small, fewer for large. */
static __attribute__((unused)) int bench_iters(long size, double scale, int small_iters, int large_iters) {
    int n = size <= 8192 ? small_iters : large_iters;
    if (size > (1 << 20)) n /= 4;
    n = (int)(n * scale);
    return n < 5 ? 5 : n;
}

static __attribute__((unused)) void *bench_alloc(long size) {
    void *p = NULL;
    if (posix_memalign(&p, 4096, (size_t)(size > 0 ? size : 1)) != 0) {
        fprintf(stderr, "allocation of %ld bytes failed\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 'a', (size_t)(size > 0 ? size : 1));
    return p;
}

/* User + system CPU seconds this process has used. */
static __attribute__((unused)) double bench_cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

/* The one-way time (us) of one cache line handed between ranks 0 and 1 through a shared-memory
 * window (MPI_Win_allocate_shared), as bench/limits/cacheline measures it: the placement of the
 * two ranks' CPUs in the moment of the call. A virtual machine's host may move the guest's CPUs
 * between placements whenever they go idle (on the 2-vCPU AMD EPYC guest a line took 0.045-0.075
 * or 0.20-0.24 us, drawn anew after each idle gap of 2 ms and kept while both stayed busy), so a
 * program that reports it before and after its timed loops tells in which placement they ran.
 * Collective over MPI_COMM_WORLD; returns -1 on the other ranks, or where ranks 0 and 1 share no
 * memory. */
static __attribute__((unused)) double bench_placement_probe(void) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (pair == MPI_COMM_NULL) return -1;
    int pair_size;
    MPI_Comm_size(pair, &pair_size);
    double oneway = -1;
    MPI_Win win;
    int *line = NULL;
    if (pair_size == 2 &&
        MPI_Win_allocate_shared(rank == 0 ? 64 : 0, 1, MPI_INFO_NULL, pair, &line, &win) == MPI_SUCCESS) {
        MPI_Aint bytes;
        int unit;
        MPI_Win_shared_query(win, 0, &bytes, &unit, &line);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        if (rank == 0) __atomic_store_n(line, 0, __ATOMIC_RELEASE);
        MPI_Win_sync(win);
        MPI_Barrier(pair);
        enum { WARM = 500, ROUNDS = 5000 };
        double t0 = 0;
        for (int i = 0; i < WARM + ROUNDS; i++) {
            if (i == WARM) t0 = MPI_Wtime();
            if (rank == 0) {
                __atomic_store_n(line, 2 * i + 1, __ATOMIC_RELEASE);
                while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != 2 * i + 2) {
                }
            } else {
                while (__atomic_load_n(line, __ATOMIC_ACQUIRE) != 2 * i + 1) {
                }
                __atomic_store_n(line, 2 * i + 2, __ATOMIC_RELEASE);
            }
        }
        oneway = (MPI_Wtime() - t0) * 1e6 / (2.0 * ROUNDS);
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&pair);
    return rank == 0 ? oneway : -1;
}

static __attribute__((unused)) void bench_need_two(int size, int rank, const char *name) {
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "%s needs at least 2 ranks\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#endif
