/* oversub_loop MODE [ITERS]: whole-loop time of the two oversubscribed targets of the shared
 * memory device (run it with more ranks than cores):
 *   allreduce  ITERS (default 1000) MPI_Allreduce of one double (8 B), result checked;
 *   ring       ITERS (default 1000) rounds of a token around all ranks, every 10th round with a
 *              64 KiB payload (the shape of the ring test in tests/mpi).
 *   shift      ITERS rounds of MPI_Send of 8 B to the right neighbour, then MPI_Recv from the left
 *              one (every rank has work at once, unlike the ring's token).
 * Rank 0 prints "<mode>_s <seconds>" (time from a barrier to the end of the loop, max over ranks)
 * and "cpu_s_max <seconds>" (largest user+system CPU time of one rank over the loop).
 * Builds against any MPI. */
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "allreduce";
    int iters = argc > 2 ? atoi(argv[2]) : 1000;
    int ring = !strcmp(mode, "ring"), shift = !strcmp(mode, "shift");
    enum { BIG = 65536 };
    char *buf = calloc(BIG, 1);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = bench_cpu_seconds(), t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (ring) {
            int n = (i % 10 == 0) ? BIG : 8;
            if (size == 1) continue;
            if (rank == 0) {
                buf[0] = (char)i;
                MPI_Send(buf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += buf[0] != (char)(i + size - 1);
            } else {
                MPI_Recv(buf, n, MPI_BYTE, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                buf[0]++;
                MPI_Send(buf, n, MPI_BYTE, right, i, MPI_COMM_WORLD);
            }
        } else if (shift) {
            double out = rank + i, in = -1;
            MPI_Send(&out, 1, MPI_DOUBLE, right, i % 100, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_DOUBLE, left, i % 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad += in != (double)(left + i);
        } else {
            double x = rank + i, sum = 0;
            MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            bad += sum != (double)size * i + (double)size * (size - 1) / 2;
        }
    }
    double t = MPI_Wtime() - t0, c = bench_cpu_seconds() - c0, tmax = 0, cmax = 0;
    int badsum = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&c, &cmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&bad, &badsum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%s_s %.4f\ncpu_s_max %.3f\n", ring ? "ring" : shift ? "shift" : "allreduce", tmax, cmax);
        if (badsum) printf("# %d wrong results\n", badsum);
    }
    free(buf);
    MPI_Finalize();
    return badsum ? 1 : 0;
}
