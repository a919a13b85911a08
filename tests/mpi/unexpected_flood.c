/* unexpected_flood: every rank Isends NMSG messages (small, every 100th
 * 100 KiB) to its right neighbour before the receiver posts any receive
 * (barrier in between). The receiver then drains them by tag in an order
 * different from the send order (tag 2, then 0, then 1) and checks content,
 * per-tag order and statuses. */
#include "mpitest.h"

#define NMSG 3000
#define BIGB (100 * 1024)

static int msg_bytes(int i) { return (i % 100 == 42) ? BIGB : 4 * (1 + i % 16); }

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "unexpected_flood");
    int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    MPI_Request *rq = malloc(sizeof(MPI_Request) * NMSG);
    unsigned char **bufs = malloc(sizeof(void *) * NMSG);
    for (int i = 0; i < NMSG; i++) {
        int n = msg_bytes(i);
        bufs[i] = malloc((size_t)n);
        mt_fill(bufs[i], (size_t)n, (unsigned)(i * 3 + mt_rank));
        MPI_OK(MPI_Isend(bufs[i], n, MPI_BYTE, right, i % 3, MPI_COMM_WORLD, &rq[i]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    mt_sleep_ms(50);
    unsigned char *r = malloc(BIGB);
    const int order[3] = {2, 0, 1};
    int got = 0;
    for (int k = 0; k < 3; k++) {
        int tag = order[k];
        for (int i = tag; i < NMSG; i += 3) {
            MPI_Status st;
            MPI_OK(MPI_Recv(r, BIGB, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, left, tag, MPI_BYTE, msg_bytes(i));
            long bad = mt_verify(r, (size_t)msg_bytes(i), (unsigned)(i * 3 + left));
            CHECK(bad < 0, "message %d (tag %d, %d bytes): byte %ld wrong", i, tag, msg_bytes(i), bad);
            got++;
        }
    }
    CHECK(got == NMSG, "received %d", got);
    MPI_OK(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++) free(bufs[i]);
    free(bufs);
    free(rq);
    free(r);
    return mt_finish();
}
