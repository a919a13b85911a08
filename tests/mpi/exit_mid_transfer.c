/* exit_mid_transfer VICTIM: one rank of a 2-rank job is killed (SIGKILL) while a 256 MiB message
 * is on its way from rank 0 to rank 1. VICTIM "sender" kills rank 0 a few milliseconds into its
 * MPI_Send, "receiver" kills rank 1 a few milliseconds into its MPI_Recv. The survivor is stuck in
 * its call; the job must end (not hang) with a non-zero exit and a report naming the killed rank
 * (the runner checks stderr). Covers the shared single copy (default one way: rank 1 reads the
 * second half while rank 0 writes the first), the pipelined copy (RAILMPI_SHM_CMA=0), tcp, and
 * with a second argument "both" the receiver's whole single copy: rank 0 first posts a 1 MiB
 * receive from rank 1 (never sent), so its send streams both ways and rank 1 reads it itself. */
#define _GNU_SOURCE /* before any system header: mpitest.h needs sched_getaffinity */
#include <sys/time.h>

#include "mpitest.h"

static void die(int sig) {
    (void)sig;
    raise(SIGKILL);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "exit_mid_transfer");
    alarm(0); /* no watchdog: a hang must be seen as a hang by the runner */
    CHECK(mt_size == 2, "needs 2 ranks");
    CHECK(argc > 1 && (!strcmp(argv[1], "sender") || !strcmp(argv[1], "receiver")), "usage: sender|receiver");
    const int victim = !strcmp(argv[1], "sender") ? 0 : 1;
    const int both = argc > 2 && !strcmp(argv[2], "both");
    static char back[1 << 20];
    MPI_Request back_rq;
    if (both && mt_rank == 0) MPI_OK(MPI_Irecv(back, (int)sizeof back, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &back_rq));
    const size_t bytes = (size_t)256 << 20;
    char *buf = malloc(bytes);
    CHECK(buf != NULL, "malloc");
    memset(buf, mt_rank, bytes); /* touch every page: the transfer itself is then the slow part */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == victim) {
        signal(SIGALRM, die);
        struct itimerval in = {{0, 0}, {0, 3000}}; /* 3 ms */
        setitimer(ITIMER_REAL, &in, NULL);
    }
    if (mt_rank == 0) MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    else MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* The victim may finish its call before the timer fires: wait for the timer. */
    if (mt_rank == victim) for (;;) pause();
    /* The survivor finished its side (possible when the data left before the kill): wait for
     * the job to be torn down because of the victim. */
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "UNEXPECTED [rank %d]: barrier with a killed rank completed\n", mt_rank);
    return 3;
}
