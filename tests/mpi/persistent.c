/* persistent: MPI_Send_init / MPI_Recv_init / MPI_Ssend_init started 100
 * times with MPI_Start / MPI_Startall (small and 256 KiB), buffer contents
 * changed between starts; Wait/Test on an inactive persistent request return
 * at once with an empty status; MPI_Request_free of an inactive persistent
 * request sets it to MPI_REQUEST_NULL. Ring neighbours (self with 1 rank).
 * Optional argv[1]: iterations (default 100). */
#include "mpitest.h"

#define BIGN (64 * 1024)

static void check_empty(MPI_Status *st, const char *what) {
    int cnt = -1;
    MPI_OK(MPI_Get_count(st, MPI_INT, &cnt));
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && cnt == 0,
          "%s: status not empty (source %d tag %d count %d)", what, st->MPI_SOURCE, st->MPI_TAG, cnt);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "persistent");
    const int ITERS = mt_iters(argc, argv, 100);
    int left = (mt_rank - 1 + mt_size) % mt_size, right = (mt_rank + 1) % mt_size;
    int sizes[2] = {3, BIGN};
    int *sb = malloc(sizeof(int) * BIGN), *rb = malloc(sizeof(int) * BIGN);
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        for (int mode = 0; mode < 2; mode++) { /* 0: Send_init, 1: Ssend_init */
            MPI_Request rq[2];
            MPI_Status st[2];
            int tag = 10 + 2 * k + mode;
            MPI_OK(MPI_Recv_init(rb, n, MPI_INT, left, tag, MPI_COMM_WORLD, &rq[0]));
            if (mode == 0)
                MPI_OK(MPI_Send_init(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD, &rq[1]));
            else
                MPI_OK(MPI_Ssend_init(sb, n, MPI_INT, right, tag, MPI_COMM_WORLD, &rq[1]));
            /* inactive: Wait and Test return at once with empty status */
            MPI_OK(MPI_Wait(&rq[0], &st[0]));
            check_empty(&st[0], "Wait on inactive persistent request");
            CHECK(rq[0] != MPI_REQUEST_NULL, "Wait freed an inactive persistent request");
            int flag = 0;
            MPI_OK(MPI_Test(&rq[1], &flag, &st[1]));
            CHECK(flag, "Test on inactive persistent request: flag false");
            check_empty(&st[1], "Test on inactive persistent request");
            for (int it = 0; it < ITERS; it++) {
                for (int i = 0; i < n; i++) sb[i] = mt_rank * 1000 + it + i;
                rb[0] = rb[n - 1] = -1;
                if (it % 2 == 0) {
                    MPI_OK(MPI_Startall(2, rq));
                } else {
                    MPI_OK(MPI_Start(&rq[0]));
                    MPI_OK(MPI_Start(&rq[1]));
                }
                if (it % 3 == 0) {
                    MPI_OK(MPI_Waitall(2, rq, st));
                } else {
                    MPI_OK(MPI_Wait(&rq[1], &st[1]));
                    MPI_OK(MPI_Wait(&rq[0], &st[0]));
                }
                CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL,
                      "completion freed a persistent request (iteration %d)", it);
                CHECK_STATUS(st[0], left, tag, MPI_INT, n);
                for (int i = 0; i < n; i++)
                    CHECK(rb[i] == left * 1000 + it + i, "n=%d mode %d iteration %d: element %d = %d", n, mode, it,
                          i, rb[i]);
            }
            MPI_OK(MPI_Request_free(&rq[0]));
            MPI_OK(MPI_Request_free(&rq[1]));
            CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Request_free did not null the handle");
        }
    }
    free(sb);
    free(rb);
    return mt_finish();
}
