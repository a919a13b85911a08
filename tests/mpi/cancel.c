/* cancel: a posted MPI_Irecv that never matches can be cancelled
 * (MPI_Test_cancelled true, also for MPI_ANY_SOURCE, and the cancelled
 * receive does not consume a later message with its tag); a receive that
 * already matched is not cancelled (MPI_Test_cancelled false, data intact).
 * Pairs; an unpaired rank uses itself. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "cancel");
    int p = mt_partner();
    int buf[16];
    MPI_Status st;
    int flag;

    /* 1. cancel unmatched receives (specific source and ANY_SOURCE) */
    for (int k = 0; k < 2; k++) {
        MPI_Request rq;
        MPI_OK(MPI_Irecv(buf, 16, MPI_INT, k ? MPI_ANY_SOURCE : p, 777, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "unmatched Irecv completed");
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK(rq == MPI_REQUEST_NULL, "request not freed after Wait");
        flag = 0;
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "Test_cancelled false for a cancelled unmatched Irecv (k=%d)", k);
    }
    /* Cancel + Test loop variant */
    {
        MPI_Request rq;
        MPI_OK(MPI_Irecv(buf, 16, MPI_INT, p, 778, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        flag = 0;
        while (!flag) MPI_OK(MPI_Test(&rq, &flag, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(flag, "Test_cancelled false after Cancel+Test");
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* 2. a message with the cancelled tag sent now goes to a fresh receive */
    {
        int v = 1000 + mt_rank, r = -1;
        MPI_Request sr;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, p, 777, MPI_COMM_WORLD, &sr));
        MPI_OK(MPI_Recv(&r, 1, MPI_INT, p, 777, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, 777, MPI_INT, 1);
        CHECK(r == 1000 + p, "got %d expected %d", r, 1000 + p);
        MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    /* 3. matched receive: poll with Request_get_status until complete, then
     *    cancel -> must not be cancelled */
    {
        MPI_Request rq, sr;
        for (int i = 0; i < 16; i++) buf[i] = -1;
        MPI_OK(MPI_Irecv(buf, 16, MPI_INT, p, 779, MPI_COMM_WORLD, &rq));
        int v[4] = {mt_rank, 2, 3, 4};
        MPI_OK(MPI_Isend(v, 4, MPI_INT, p, 779, MPI_COMM_WORLD, &sr));
        flag = 0;
        double t0 = MPI_Wtime();
        while (!flag) {
            MPI_OK(MPI_Request_get_status(rq, &flag, &st));
            CHECK(MPI_Wtime() - t0 < 20, "receive never completed");
        }
        CHECK(rq != MPI_REQUEST_NULL, "Request_get_status freed the request");
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK(!flag, "completed receive reported as cancelled");
        CHECK_STATUS(st, p, 779, MPI_INT, 4);
        CHECK(buf[0] == p && buf[3] == 4 && buf[4] == -1, "data of matched receive");
        MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    /* 4. nothing stray left: an Iprobe for the test tags finds nothing */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "stray message with tag 777 from %d", st.MPI_SOURCE);
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 779, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "stray message with tag 779");
    return mt_finish();
}
