/* osu_bw: unidirectional bandwidth from rank 0 to rank 1. Each iteration
 * posts a window of 64 MPI_Isend (receiver: 64 MPI_Irecv), MPI_Waitall, then
 * the receiver returns a 4-byte ack. With -b the sender uses MPI_Send
 * (blocking point-to-point) instead of MPI_Isend. Sizes 1 B .. 4 MiB (-m MAX); prints
 * MB/s (1 MB = 1e6 bytes). OSU-style, written for RailMPI. */
#include "bench_common.h"

#define WINDOW 64

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    bench_need_two(size, rank, "osu_bw");
    bench_opts o = bench_parse(argc, argv);
    char *sbuf = bench_alloc(o.max), *rbuf = bench_alloc(o.max), ack[4] = {0};
    MPI_Request rq[WINDOW];
    if (rank == 0) {
        printf("# RailMPI OSU-style bandwidth test (window %d, %s sends)\n", WINDOW, o.blocking ? "blocking" : "non-blocking");
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
            if (rank == 0) {
                if (o.blocking) {
                    for (int w = 0; w < WINDOW; w++) MPI_Send(sbuf, (int)sz, MPI_CHAR, 1, 100, MPI_COMM_WORLD);
                } else {
                    for (int w = 0; w < WINDOW; w++) MPI_Isend(sbuf, (int)sz, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &rq[w]);
                    MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                }
                MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (rank == 1) {
                for (int w = 0; w < WINDOW; w++) MPI_Irecv(rbuf, (int)sz, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &rq[w]);
                MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (rank == 0) {
            printf("%-12ld %16.2f\n", sz, (double)sz * WINDOW * iters / t / 1e6);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
