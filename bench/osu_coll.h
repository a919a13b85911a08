/* Shared loop of the OSU-style collective latency benchmarks (osu_allreduce, osu_bcast,
 * osu_alltoall, osu_barrier): for each size, the average time of one call over all ranks'
 * iterations, reported by rank 0 as the maximum over ranks (microseconds), like the OSU suite. */
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
    for (long sz = size_cap < 0 ? 0 : 4; sz <= (size_cap < 0 ? 0 : max); sz *= 2) {
        int iters = bench_iters(sz, o.iter_scale, 200, 20);
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
        if (rank == 0) {
            printf("%-12ld %16.2f\n", sz, tmax);
            fflush(stdout);
        }
        if (size_cap < 0) break;
    }
    return 0;
}
#endif
