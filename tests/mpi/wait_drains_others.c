/* wait_drains_others: a rank blocked in MPI_Recv from one rank keeps receiving the other ranks'
 * messages. Rank 0 waits for rank 1's message, which rank 1 sends only after rank 2 finished
 * sending rank 0 NMSG small messages of another tag (more than the channels between them hold at
 * once, so rank 2's sends return only as rank 0 takes them in while it waits). Then rank 0
 * receives them and checks every byte, status and the order. Ranks beyond 3 only take part in the
 * barriers. */
#include "mpitest.h"

#define NMSG 20000
#define BYTES 48

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "wait_drains_others");
    if (mt_size < 3) return mt_finish();
    unsigned char buf[BYTES];
    MPI_Status st;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        int word = -1;
        MPI_OK(MPI_Recv(&word, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, 1, 7, MPI_INT, 1);
        CHECK(word == 1234, "rank 1 sent %d", word);
        for (int i = 0; i < NMSG; i++) {
            MPI_OK(MPI_Recv(buf, BYTES, MPI_BYTE, 2, 3, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, 2, 3, MPI_BYTE, BYTES);
            long bad = mt_verify(buf, BYTES, (unsigned)i);
            CHECK(bad < 0, "message %d from rank 2: byte %ld wrong", i, bad);
        }
    } else if (mt_rank == 1) {
        int go = 0, word = 1234;
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 2, 9, MPI_COMM_WORLD, &st));
        CHECK(go == NMSG, "rank 2 said %d", go);
        MPI_OK(MPI_Send(&word, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    } else if (mt_rank == 2) {
        for (int i = 0; i < NMSG; i++) {
            mt_fill(buf, BYTES, (unsigned)i);
            MPI_OK(MPI_Send(buf, BYTES, MPI_BYTE, 0, 3, MPI_COMM_WORLD));
        }
        int go = NMSG;
        MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return mt_finish();
}
