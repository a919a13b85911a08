/* ssend: synchronous-mode semantics and ready mode.
 * Pairs (0,1), (2,3), ...; an unpaired rank (odd size, or size 1) tests
 * against itself.
 *  a) Issend: MPI_Test must stay false for 200 ms while the receiver has not
 *     posted the receive (the receiver is blocked waiting for a "go" message
 *     we send only afterwards), then becomes true after the receiver posts.
 *     The receiver sleeps 200 ms after "go" before posting, so completion
 *     must take >= ~200 ms after "go" was sent (small and 1 MiB messages).
 *  b) Blocking Ssend: same timing argument.
 *  c) Rsend / Irsend with the receive pre-posted (small and 1 MiB). */
#include "mpitest.h"

#define DELAY_MS 200
#define BIGN (256 * 1024) /* ints = 1 MiB */

static void issend_phase(int p, int is_sender, int n, int *buf, int tag) {
    if (is_sender) {
        for (int i = 0; i < n; i++) buf[i] = i ^ tag;
        MPI_Request rq;
        int flag = 0;
        MPI_OK(MPI_Issend(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD, &rq));
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < DELAY_MS / 1000.0) {
            MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "Issend (n=%d) completed before the receive was posted", n);
            mt_sleep_ms(1);
        }
        int go = tag;
        double tgo = MPI_Wtime();
        MPI_OK(MPI_Send(&go, 1, MPI_INT, p, 1000 + tag, MPI_COMM_WORLD));
        while (!flag) {
            MPI_OK(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE));
            CHECK(MPI_Wtime() - tgo < 20.0, "Issend never completed");
        }
        double dt = MPI_Wtime() - tgo;
        CHECK(dt >= (DELAY_MS - 15) / 1000.0, "Issend (n=%d) completed %.3f s after go, receiver delayed %d ms", n,
              dt, DELAY_MS);
        CHECK(rq == MPI_REQUEST_NULL, "completed request not set to MPI_REQUEST_NULL");
    } else {
        int go;
        MPI_Status st;
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, p, 1000 + tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, 1000 + tag, MPI_INT, 1);
        mt_sleep_ms(DELAY_MS);
        MPI_OK(MPI_Recv(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, tag, MPI_INT, n);
        for (int i = 0; i < n; i++) CHECK(buf[i] == (i ^ tag), "Issend data [%d]", i);
    }
}

static void ssend_phase(int p, int is_sender, int n, int *buf, int tag) {
    if (is_sender) {
        for (int i = 0; i < n; i++) buf[i] = i + tag;
        int go = 1;
        double t0 = MPI_Wtime();
        MPI_OK(MPI_Send(&go, 1, MPI_INT, p, 1000 + tag, MPI_COMM_WORLD));
        MPI_OK(MPI_Ssend(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD));
        double dt = MPI_Wtime() - t0;
        CHECK(dt >= (DELAY_MS - 15) / 1000.0, "Ssend (n=%d) returned after %.3f s, receiver delayed %d ms", n, dt,
              DELAY_MS);
    } else {
        int go;
        MPI_Status st;
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, p, 1000 + tag, MPI_COMM_WORLD, &st));
        mt_sleep_ms(DELAY_MS);
        MPI_OK(MPI_Recv(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, p, tag, MPI_INT, n);
        for (int i = 0; i < n; i++) CHECK(buf[i] == i + tag, "Ssend data [%d]", i);
    }
}

static void rsend_phase(int p, int is_sender, int n, int *buf, int tag) {
    if (is_sender) {
        int ready;
        MPI_OK(MPI_Recv(&ready, 1, MPI_INT, p, 2000 + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++) buf[i] = 3 * i + tag;
        MPI_OK(MPI_Rsend(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD));
        MPI_Request rq;
        MPI_OK(MPI_Irsend(buf, n, MPI_INT, p, tag + 1, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        int *b2 = malloc(sizeof(int) * (size_t)n + 4);
        MPI_Request rq[2];
        MPI_Status st[2];
        MPI_OK(MPI_Irecv(buf, n, MPI_INT, p, tag, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Irecv(b2, n, MPI_INT, MPI_ANY_SOURCE, tag + 1, MPI_COMM_WORLD, &rq[1]));
        int ready = 1;
        MPI_OK(MPI_Send(&ready, 1, MPI_INT, p, 2000 + tag, MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(2, rq, st));
        CHECK_STATUS(st[0], p, tag, MPI_INT, n);
        CHECK_STATUS(st[1], p, tag + 1, MPI_INT, n);
        for (int i = 0; i < n; i++) {
            CHECK(buf[i] == 3 * i + tag, "Rsend data [%d]", i);
            CHECK(b2[i] == 3 * i + tag, "Irsend data [%d]", i);
        }
        free(b2);
    }
}

static void self_phase(int *buf) {
    /* Issend to self: incomplete until the receive is posted. */
    int n = 1000;
    int *r = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) buf[i] = i * 5;
    MPI_Request sr, rr;
    int flag = 0;
    MPI_OK(MPI_Issend(buf, n, MPI_INT, mt_rank, 50, MPI_COMM_WORLD, &sr));
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 0.1) {
        MPI_OK(MPI_Test(&sr, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend to self completed without a receive");
        mt_sleep_ms(1);
    }
    MPI_Status st;
    MPI_OK(MPI_Irecv(r, n, MPI_INT, mt_rank, 50, MPI_COMM_WORLD, &rr));
    MPI_OK(MPI_Wait(&rr, &st));
    CHECK_STATUS(st, mt_rank, 50, MPI_INT, n);
    MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++) CHECK(r[i] == i * 5, "self Issend data [%d]", i);
    /* Rsend to self with pre-posted receive. */
    MPI_OK(MPI_Irecv(r, n, MPI_INT, mt_rank, 51, MPI_COMM_WORLD, &rr));
    MPI_OK(MPI_Rsend(buf, n, MPI_INT, mt_rank, 51, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&rr, &st));
    CHECK_STATUS(st, mt_rank, 51, MPI_INT, n);
    free(r);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "ssend");
    int p = mt_partner();
    int *buf = malloc(sizeof(int) * BIGN);
    if (p == mt_rank) {
        self_phase(buf);
    } else {
        int lo = mt_rank < p;
        /* each side acts as sender once for small and large */
        for (int dir = 0; dir < 2; dir++) {
            int is_sender = (dir == 0) ? lo : !lo;
            issend_phase(p, is_sender, 10, buf, 10 + dir);
            issend_phase(p, is_sender, BIGN, buf, 20 + dir);
            ssend_phase(p, is_sender, 10, buf, 30 + dir);
            ssend_phase(p, is_sender, BIGN, buf, 40 + dir);
            rsend_phase(p, is_sender, 10, buf, 50 + 2 * dir);
            rsend_phase(p, is_sender, BIGN, buf, 60 + 2 * dir);
        }
    }
    free(buf);
    return mt_finish();
}
