/* Shared loop of the OSU-style collective latency benchmarks (osu_allreduce, osu_bcast,
 * osu_alltoall, osu_barrier): for each size, the average time of one call over all ranks'
 * iterations, reported by rank 0 as the maximum over ranks (microseconds), like the OSU suite.
 * Rank 0 prints the table after the last size: a line printed between sizes woke the launcher,
 * which forwards it, and the pipe's reader, in the middle of the next size's timed loop (2 ranks,
 * 200 calls of 0.1-0.4 us: 20-80 us in all, and a preempted rank costs 50-300 us), so the second
 * size of every implementation measured 2-8x its neighbours. */
#ifndef RAILMPI_BENCH_OSU_COLL_H
#define RAILMPI_BENCH_OSU_COLL_H
#include "bench_common.h"

/* op(size_in_bytes) performs one collective call. max_size < 0: size-less (barrier). */
static int osu_coll_run(int argc, char **argv, const char *title, long size_cap, void (*op)(long)) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_opts o = bench_parse(argc, argv);
    long max = size_cap >= 0 && o.max > size_cap ? size_cap : o.max;
    if (rank == 0) {
        printf("# RailMPI OSU-style %s latency test\n", title);
        printf("# %-10s %16s\n", "Size", "Avg Latency (us)");
        fflush(stdout);
    }
    long sizes[64];
    double times[64];
    int rows = 0;
    for (long sz = size_cap < 0 ? 0 : 4; sz <= (size_cap < 0 ? 0 : max); sz *= 2) {
        /* Above 8 KiB the OSU suite's own default (100); below it 200 instead of its 1000: MPICH
         * busy-polls with more ranks than cores, 4 ranks on 2 cores take ~8 ms a call. With 20
         * large iterations (before), a 2-rank 64 KiB bcast measured 5.4-11.5 us run to run. */
        int iters = bench_iters(sz, o.iter_scale, 200, 100);
        int warm = iters / 10 + 2;
        double t0 = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            op(sz);
        }
        double t = (MPI_Wtime() - t0) * 1e6 / iters, tmax = 0;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rows < 64) {
            sizes[rows] = sz;
            times[rows++] = tmax;
        }
        if (size_cap < 0) break;
    }
    if (rank == 0) {
        for (int i = 0; i < rows; i++) printf("%-12ld %16.3f\n", sizes[i], times[i]);
        fflush(stdout);
    }
    return 0;
}
#endif
