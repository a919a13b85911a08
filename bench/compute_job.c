/* compute_job [ITERS]: each rank computes alone (a dependent floating-point chain of ITERS steps,
 * default 300 million, no memory traffic), then rank 0 prints "compute_s <seconds>": the longest
 * rank's time. Its time only shows whether each rank had a core to itself: bench/concurrent_jobs.sh
 * starts several such jobs at once. Builds against any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const long iters = argc > 1 ? atol(argv[1]) : 300000000L;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    volatile double x = 1.0;
    const double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 1e-9;
    const double t = MPI_Wtime() - t0;
    double tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("compute_s %.3f\n", tmax);
    MPI_Finalize();
    return x > 0 ? 0 : 1;
}
