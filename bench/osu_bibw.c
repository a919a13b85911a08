/* osu_bibw: bidirectional bandwidth between ranks 0 and 1: both post a
 * window of 64 MPI_Irecv and 64 MPI_Isend, MPI_Waitall, and exchange a
 * 4-byte ack. Sizes 1 B .. 4 MiB (-m MAX); prints total MB/s (both
 * directions, 1 MB = 1e6 bytes). OSU-style, written for RailMPI. */
#include "bench_common.h"

#define WINDOW 64

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "osu_bibw");
    bench_opts o = bench_parse(argc, argv);
    char *sbuf = bench_alloc(o.max), *rbuf = bench_alloc(o.max), ack[4] = {0}, ack2[4];
    MPI_Request rq[2 * WINDOW];
    if (rank == 0) {
        printf("# RailMPI OSU-style bidirectional bandwidth test (window %d)\n", WINDOW);
        printf("# %-10s %16s\n", "Size", "Bandwidth (MB/s)");
        fflush(stdout);
    }
    for (long sz = bench_first_size(&o, 0); sz <= o.max; sz *= 2) {
        int iters = bench_iters(sz, o.iter_scale, 200, 40);
        int warm = iters / 10 + 2;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank < 2) {
                int peer = 1 - rank;
                for (int w = 0; w < WINDOW; w++)
                    MPI_Irecv(rbuf, (int)sz, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &rq[w]);
                for (int w = 0; w < WINDOW; w++)
                    MPI_Isend(sbuf, (int)sz, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &rq[WINDOW + w]);
                MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE);
                MPI_Sendrecv(ack, 4, MPI_CHAR, peer, 101, ack2, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
            }
        }
        double t = MPI_Wtime() - t0;
        if (rank == 0) {
            printf("%-12ld %16.2f\n", sz, 2.0 * (double)sz * WINDOW * iters / t / 1e6);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
