/* idle_wait [SECONDS]: do waiting ranks give their core away? Rank 0 sleeps SECONDS (default 2)
 * outside MPI, then sends one message to every other rank; the others wait for it in MPI_Recv.
 * Rank 0 prints "wait_s <seconds>" and "wait_cpu_fraction <largest CPU time used by a waiting
 * rank during the wait / wait time>": near 0 means the waiting ranks slept, 1 means one burned a
 * whole core. Builds against any MPI. */
#include "bench_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    int token = 42;
    MPI_Barrier(MPI_COMM_WORLD);
    double c0 = bench_cpu_seconds(), t0 = MPI_Wtime(), frac = 0;
    if (rank == 0) {
        usleep((useconds_t)(secs * 1e6));
        for (int r = 1; r < size; r++) MPI_Send(&token, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        frac = (bench_cpu_seconds() - c0) / (MPI_Wtime() - t0);
    }
    double most = 0;
    MPI_Reduce(&frac, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("wait_s %.3f\nwait_cpu_fraction %.3f\n", MPI_Wtime() - t0, most);
    MPI_Finalize();
    return token == 42 ? 0 : 1;
}
