/* anysource_anytag: matching order and wildcard statuses.
 *  1. Every rank (rank 0 included, to itself) sends NMSG messages with the
 *     same tag to rank 0, mixing small and 64 KiB messages; rank 0 receives
 *     them with MPI_ANY_SOURCE and checks per-source send order
 *     (non-overtaking) and the status of each.
 *  2. Same, with varying tags received with MPI_ANY_SOURCE + MPI_ANY_TAG:
 *     status source/tag must equal what the payload says.
 *  3. Tag selection: a sender sends tags A then B, the receiver receives B
 *     first then A with explicit tags.
 *  4. Specific source, MPI_ANY_TAG: order of one source is preserved. */
#include "mpitest.h"

#define NMSG 200
#define BIGN 16384 /* ints = 64 KiB */

static int msg_len(int seq) { return (seq % 50 == 7) ? BIGN : 3 + seq % 5; }

static void fill_msg(int *b, int n, int src, int tag, int seq) {
    b[0] = src;
    b[1] = tag;
    b[2] = seq;
    for (int i = 3; i < n; i++) b[i] = src * 7 + seq + i;
}

static void check_msg(const int *b, int n, const MPI_Status *st) {
    int src = b[0], tag = b[1], seq = b[2];
    CHECK(st->MPI_SOURCE == src, "status.MPI_SOURCE=%d but payload says %d", st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "status.MPI_TAG=%d but payload says %d", st->MPI_TAG, tag);
    int cnt;
    MPI_OK(MPI_Get_count(st, MPI_INT, &cnt));
    CHECK(cnt == n && n == msg_len(seq), "count %d, expected %d (seq %d)", cnt, msg_len(seq), seq);
    for (int i = 3; i < n; i++) CHECK(b[i] == src * 7 + seq + i, "payload[%d] wrong (src %d seq %d)", i, src, seq);
}

/* Sends NMSG messages to rank 0 with Isend; tagfn chooses each tag. */
static void send_all(int use_var_tags, MPI_Request *rq, int **bufs) {
    for (int seq = 0; seq < NMSG; seq++) {
        int n = msg_len(seq);
        int tag = use_var_tags ? 100 + (seq * 7 + mt_rank) % 13 : 5;
        bufs[seq] = malloc(sizeof(int) * n);
        fill_msg(bufs[seq], n, mt_rank, tag, seq);
        MPI_OK(MPI_Isend(bufs[seq], n, MPI_INT, 0, tag, MPI_COMM_WORLD, &rq[seq]));
    }
}

static void finish_sends(MPI_Request *rq, int **bufs) {
    MPI_OK(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
    for (int seq = 0; seq < NMSG; seq++) free(bufs[seq]);
}

static void recv_all(int anytag, int *rbuf) {
    int *next = calloc((size_t)mt_size, sizeof(int));
    for (int k = 0; k < NMSG * mt_size; k++) {
        MPI_Status st;
        MPI_OK(MPI_Recv(rbuf, BIGN, MPI_INT, MPI_ANY_SOURCE, anytag ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < mt_size, "bad MPI_SOURCE %d", st.MPI_SOURCE);
        int cnt;
        MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK(cnt >= 3, "count %d too small", cnt);
        CHECK(rbuf[2] == next[st.MPI_SOURCE], "source %d: got seq %d, expected %d (overtaking)", st.MPI_SOURCE,
              rbuf[2], next[st.MPI_SOURCE]);
        next[st.MPI_SOURCE]++;
        check_msg(rbuf, cnt, &st);
        if (!anytag) CHECK(st.MPI_TAG == 5, "tag %d", st.MPI_TAG);
    }
    for (int s = 0; s < mt_size; s++) CHECK(next[s] == NMSG, "source %d: %d messages", s, next[s]);
    free(next);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "anysource_anytag");
    MPI_Request rq[NMSG];
    int *bufs[NMSG];
    int *rbuf = malloc(sizeof(int) * BIGN);

    for (int phase = 0; phase < 2; phase++) {
        send_all(phase, rq, bufs);
        if (mt_rank == 0) recv_all(phase, rbuf);
        finish_sends(rq, bufs);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* 3. tag selection out of send order (pairs; self for an unpaired rank). */
    {
        int p = mt_partner();
        int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, r[4];
        MPI_Request s2[2];
        MPI_Status st;
        MPI_OK(MPI_Isend(a, 4, MPI_INT, p, 21, MPI_COMM_WORLD, &s2[0]));
        MPI_OK(MPI_Isend(b, 3, MPI_INT, p, 22, MPI_COMM_WORLD, &s2[1]));
        MPI_OK(MPI_Recv(r, 4, MPI_INT, p, 22, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, 22, MPI_INT, 3);
        CHECK(r[0] == 5 && r[2] == 7, "tag 22 message content wrong");
        MPI_OK(MPI_Recv(r, 4, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, 21, MPI_INT, 4);
        CHECK(r[0] == 1 && r[3] == 4, "tag 21 message content wrong");
        MPI_OK(MPI_Waitall(2, s2, MPI_STATUSES_IGNORE));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* 4. specific source + ANY_TAG keeps the order of that source. */
    {
        int p = mt_partner();
        int vals[50];
        MPI_Request s50[50];
        for (int i = 0; i < 50; i++) {
            vals[i] = i * 3;
            MPI_OK(MPI_Isend(&vals[i], 1, MPI_INT, p, 300 + (i % 4), MPI_COMM_WORLD, &s50[i]));
        }
        for (int i = 0; i < 50; i++) {
            int v;
            MPI_Status st;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, p, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK_STATUS(st, p, 300 + (i % 4), MPI_INT, 1);
            CHECK(v == i * 3, "message %d: value %d", i, v);
        }
        MPI_OK(MPI_Waitall(50, s50, MPI_STATUSES_IGNORE));
    }
    free(rbuf);
    return mt_finish();
}
