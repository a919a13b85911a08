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
 * program has a non-blocking and a blocking form). Environment BENCH_QUICK=1
 * is the same as -q. */
typedef struct {
    long max;
    long min;
    double iter_scale;
    int blocking;
} bench_opts;

static __attribute__((unused)) bench_opts bench_parse(int argc, char **argv) {
    bench_opts o = {BENCH_MAX_DEFAULT, 0, 1.0, 0};
    const char *q = getenv("BENCH_QUICK");
    if (q && atoi(q) > 0) o.iter_scale = 0.2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-m") && i + 1 < argc) o.max = atol(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) o.min = atol(argv[++i]);
        else if (!strcmp(argv[i], "-b")) o.blocking = 1;
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

static __attribute__((unused)) void bench_need_two(int size, int rank, const char *name) {
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "%s needs at least 2 ranks\n", name);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#endif
