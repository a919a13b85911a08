/* ring: a token travels around all ranks 1000 times; every 10th round the
 * token carries a 64 KiB payload. Works for any size >= 1. Optional argv[1]:
 * number of rounds (default 1000). */
#include "mpitest.h"

#define BIG 16384 /* ints */

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "ring");
    const int ROUNDS = mt_iters(argc, argv, 1000);
    int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    int *buf = malloc(sizeof(int) * BIG);
    CHECK(buf != NULL, "malloc");
    for (int round = 0; round < ROUNDS; round++) {
        int n = (round % 10 == 0) ? BIG : 1;
        int tag = round % 1000;
        MPI_Status st;
        if (mt_rank == 0) {
            for (int i = 0; i < n; i++) buf[i] = round * mt_size + i;
            buf[0] = round * mt_size + 1; /* as if rank 0 had incremented */
            MPI_Request rq;
            int *rbuf = malloc(sizeof(int) * n);
            MPI_OK(MPI_Irecv(rbuf, n, MPI_INT, left, tag, MPI_COMM_WORLD, &rq));
            MPI_OK(MPI_Send(buf, n, MPI_INT, right, tag, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&rq, &st));
            CHECK_STATUS(st, left, tag, MPI_INT, n);
            CHECK(rbuf[0] == round * mt_size + mt_size, "round %d: token %d expected %d", round, rbuf[0],
                  round * mt_size + mt_size);
            for (int i = 1; i < n; i++)
                CHECK(rbuf[i] == round * mt_size + i, "round %d: payload[%d]=%d", round, i, rbuf[i]);
            free(rbuf);
        } else {
            MPI_OK(MPI_Recv(buf, n, MPI_INT, left, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, tag, MPI_INT, n);
            CHECK(buf[0] == round * mt_size + mt_rank, "round %d: token %d expected %d", round, buf[0],
                  round * mt_size + mt_rank);
            for (int i = 1; i < n; i++)
                CHECK(buf[i] == round * mt_size + i, "round %d: payload[%d]=%d", round, i, buf[i]);
            buf[0]++;
            MPI_OK(MPI_Send(buf, n, MPI_INT, right, tag, MPI_COMM_WORLD));
        }
    }
    free(buf);
    return mt_finish();
}
