/* badinput_fatal: with the default error handler (MPI_ERRORS_ARE_FATAL) an
 * invalid destination rank in MPI_Send must end the whole job with a
 * non-zero exit and an error message naming MPI_Send on stderr. The other
 * ranks wait in a receive that is never satisfied, so they must be torn
 * down by the launcher. This program "passes" only by being killed; the
 * runner (expect_fail.sh) checks exit status and stderr. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "badinput_fatal");
    alarm(0); /* no watchdog: a hang must be seen as a hang by the runner */
    int x = 1;
    if (mt_rank == 0) {
        MPI_Send(&x, 1, MPI_INT, mt_size + 5, 0, MPI_COMM_WORLD);
        fprintf(stderr, "UNEXPECTED [rank 0]: invalid-rank send returned under ERRORS_ARE_FATAL\n");
        return 3;
    }
    MPI_Recv(&x, 1, MPI_INT, 0, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "UNEXPECTED [rank %d]: receive completed\n", mt_rank);
    return 3;
}
