/* abort_code: rank 1 (rank 0 if alone) calls MPI_Abort(MPI_COMM_WORLD, 7)
 * while the others wait in a receive that never matches: the job must end
 * with a non-zero exit (the runner checks; ideally the code is 7). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "abort_code");
    alarm(0); /* no watchdog: a hang must be seen as a hang by the runner */
    int victim = mt_size > 1 ? 1 : 0, x;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == victim) {
        mt_sleep_ms(100); /* let the others block in MPI_Recv */
        MPI_Abort(MPI_COMM_WORLD, 7);
        fprintf(stderr, "UNEXPECTED [rank %d]: MPI_Abort returned\n", mt_rank);
        return 3;
    }
    MPI_Recv(&x, 1, MPI_INT, victim, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "UNEXPECTED [rank %d]: receive completed\n", mt_rank);
    return 3;
}
