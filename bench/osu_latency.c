/* osu_latency: ping-pong latency between ranks 0 and 1 (others idle).
 * Sizes 0, 1, 2, 4, ... up to 4 MiB (-m MAX). Reports one-way latency in
 * microseconds (half the average round trip). Written for RailMPI in the
 * style of the OSU micro-benchmarks; options in bench_common.h. -P: before
 * and after the sizes, one cache line handed between ranks 0 and 1 through
 * shared memory (bench_placement_probe), printed as "# placement_oneway_us
 * BEFORE AFTER": the placement of the two CPUs the run had. */
#include "bench_common.h"

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "osu_latency");
    bench_opts o = bench_parse(argc, argv);
    char *sbuf = bench_alloc(o.max), *rbuf = bench_alloc(o.max);
    const double before = o.probe ? bench_placement_probe() : -1;
    if (rank == 0) {
        printf("# RailMPI OSU-style latency test\n");
        printf("# %-10s %16s\n", "Size", "Latency (us)");
        fflush(stdout);
    }
    for (long sz = bench_first_size(&o, 1); sz <= o.max; sz = sz ? sz * 2 : 1) {
        int iters = bench_iters(sz, o.iter_scale, 10000, 1000);
        int warm = iters / 10 + 2;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(sbuf, (int)sz, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)sz, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                MPI_Recv(rbuf, (int)sz, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, (int)sz, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (rank == 0) {
            printf("%-12ld %16.3f\n", sz, t * 1e6 / (2.0 * iters));
            fflush(stdout);
        }
    }
    if (o.probe) {
        const double after = bench_placement_probe();
        if (rank == 0) printf("# placement_oneway_us %.4f %.4f\n", before, after);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
