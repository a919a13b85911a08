/* probe: MPI_Probe / MPI_Iprobe (size via MPI_Get_count before receiving,
 * MPI_ANY_SOURCE), MPI_Mprobe / MPI_Improbe + MPI_Mrecv / MPI_Imrecv, a
 * message matched by Mprobe is not stolen by a later receive, and the
 * MPI_PROC_NULL cases. Every rank sends to rank 0 (rank 0 to itself too). */
#include "mpitest.h"

#define BIGN (256 * 1024)

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "probe");
    MPI_Status st;
    int flag;
    MPI_Request sreq[4];

    /* 1. Probe ANY_SOURCE, size from Get_count */
    {
        int n = 10 + 3 * mt_rank;
        int *b = malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) b[i] = mt_rank * 100 + i;
        MPI_OK(MPI_Isend(b, n, MPI_INT, 0, 100 + mt_rank, MPI_COMM_WORLD, &sreq[0]));
        if (mt_rank == 0) {
            int seen = 0;
            for (int k = 0; k < mt_size; k++) {
                MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                int s = st.MPI_SOURCE;
                CHECK(s >= 0 && s < mt_size && !(seen & (1 << s)), "probe source %d", s);
                seen |= 1 << s;
                CHECK_STATUS(st, s, 100 + s, MPI_INT, 10 + 3 * s);
                int cnt;
                MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
                int *r = malloc(sizeof(int) * cnt);
                MPI_OK(MPI_Recv(r, cnt, MPI_INT, s, st.MPI_TAG, MPI_COMM_WORLD, &st));
                CHECK_STATUS(st, s, 100 + s, MPI_INT, 10 + 3 * s);
                for (int i = 0; i < cnt; i++) CHECK(r[i] == s * 100 + i, "probe phase data");
                free(r);
            }
        }
        MPI_OK(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
        free(b);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* 2. Iprobe: nothing for an unused tag; then poll until messages arrive */
    {
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 555, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "Iprobe found a message nobody sent");
        int v = mt_rank * 7;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, 0, 200, MPI_COMM_WORLD, &sreq[0]));
        if (mt_rank == 0) {
            for (int k = 0; k < mt_size; k++) {
                flag = 0;
                double t0 = MPI_Wtime();
                while (!flag) {
                    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &flag, &st));
                    CHECK(MPI_Wtime() - t0 < 20, "Iprobe never found the message");
                }
                int s = st.MPI_SOURCE, r;
                CHECK_STATUS(st, s, 200, MPI_INT, 1);
                MPI_OK(MPI_Recv(&r, 1, MPI_INT, s, 200, MPI_COMM_WORLD, &st));
                CHECK(r == s * 7, "Iprobe phase data");
            }
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 200, MPI_COMM_WORLD, &flag, &st));
            CHECK(!flag, "Iprobe still finds a message after all were received");
        }
        MPI_OK(MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* 3. Mprobe: A then B with the same tag; Mprobe takes A, a later Recv
     *    must get B, then Mrecv gets A. */
    {
        int a[4] = {mt_rank, 1, 1, 1}, b[8] = {mt_rank, 2, 2, 2, 2, 2, 2, 2};
        MPI_OK(MPI_Isend(a, 4, MPI_INT, 0, 300, MPI_COMM_WORLD, &sreq[0]));
        MPI_OK(MPI_Isend(b, 8, MPI_INT, 0, 300, MPI_COMM_WORLD, &sreq[1]));
        if (mt_rank == 0) {
            for (int k = 0; k < mt_size; k++) {
                MPI_Message msg;
                MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 300, MPI_COMM_WORLD, &msg, &st));
                CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC, "Mprobe message handle");
                int s = st.MPI_SOURCE;
                CHECK_STATUS(st, s, 300, MPI_INT, 4);
                int r[8] = {0};
                MPI_OK(MPI_Recv(r, 8, MPI_INT, s, 300, MPI_COMM_WORLD, &st));
                CHECK_STATUS(st, s, 300, MPI_INT, 8);
                CHECK(r[0] == s && r[1] == 2, "Recv after Mprobe got the mprobed message (r[1]=%d)", r[1]);
                memset(r, 0, sizeof r);
                MPI_OK(MPI_Mrecv(r, 8, MPI_INT, &msg, &st));
                CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not reset the message handle");
                CHECK_STATUS(st, s, 300, MPI_INT, 4);
                CHECK(r[0] == s && r[1] == 1, "Mrecv data");
            }
        }
        MPI_OK(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* 4. Improbe + Imrecv, small and 1 MiB */
    {
        int *big = malloc(sizeof(int) * BIGN);
        for (int i = 0; i < BIGN; i++) big[i] = i + mt_rank;
        int small = 40 + mt_rank;
        MPI_OK(MPI_Isend(&small, 1, MPI_INT, 0, 400, MPI_COMM_WORLD, &sreq[0]));
        MPI_OK(MPI_Isend(big, BIGN, MPI_INT, 0, 401, MPI_COMM_WORLD, &sreq[1]));
        if (mt_rank == 0) {
            int *rb = malloc(sizeof(int) * BIGN);
            for (int k = 0; k < 2 * mt_size; k++) {
                MPI_Message msg = MPI_MESSAGE_NULL;
                flag = 0;
                double t0 = MPI_Wtime();
                while (!flag) {
                    MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
                    CHECK(MPI_Wtime() - t0 < 20, "Improbe never matched");
                }
                int s = st.MPI_SOURCE, tag = st.MPI_TAG, cnt;
                MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
                CHECK(tag == 400 || tag == 401, "Improbe tag %d", tag);
                CHECK(cnt == (tag == 400 ? 1 : BIGN), "Improbe count %d for tag %d", cnt, tag);
                MPI_Request rq;
                memset(rb, 0, sizeof(int) * (size_t)cnt);
                MPI_OK(MPI_Imrecv(rb, cnt, MPI_INT, &msg, &rq));
                CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not reset the message handle");
                MPI_OK(MPI_Wait(&rq, &st));
                CHECK_STATUS(st, s, tag, MPI_INT, cnt);
                if (tag == 400)
                    CHECK(rb[0] == 40 + s, "Imrecv small data");
                else
                    for (int i = 0; i < BIGN; i++) CHECK(rb[i] == i + s, "Imrecv big data [%d]", i);
            }
            free(rb);
        }
        MPI_OK(MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
        free(big);
    }

    /* 5. MPI_PROC_NULL */
    {
        MPI_Message msg;
        int cnt = -1, x = 5;
        MPI_OK(MPI_Probe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
        CHECK(flag, "Iprobe(MPI_PROC_NULL) flag false");
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &msg, &st));
        CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
        CHECK(msg == MPI_MESSAGE_NULL, "Mrecv(NO_PROC) handle not reset");
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
        CHECK(x == 5, "Mrecv(NO_PROC) wrote the buffer");
        MPI_OK(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &msg, &st));
        CHECK(flag && msg == MPI_MESSAGE_NO_PROC, "Improbe(MPI_PROC_NULL)");
        MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt == 0, "count %d", cnt);
        MPI_Request rq;
        MPI_OK(MPI_Imrecv(&x, 1, MPI_INT, &msg, &rq));
        MPI_OK(MPI_Wait(&rq, &st));
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
    }
    return mt_finish();
}
