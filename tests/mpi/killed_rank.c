/* killed_rank: rank 1 (rank 0 if alone) kills itself with SIGKILL while the
 * others wait in a receive from it: the job must end (not hang) with a
 * non-zero exit and a report on stderr (the runner checks). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "killed_rank");
    alarm(0); /* no watchdog: a hang must be seen as a hang by the runner */
    int victim = mt_size > 1 ? 1 : 0, x;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == victim) {
        mt_sleep_ms(100);
        raise(SIGKILL);
        return 3;
    }
    MPI_Recv(&x, 1, MPI_INT, victim, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "UNEXPECTED [rank %d]: receive completed\n", mt_rank);
    return 3;
}
