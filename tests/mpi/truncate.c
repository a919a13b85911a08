/* truncate: a message longer than the receive buffer yields MPI_ERR_TRUNCATE
 * (with MPI_ERRORS_RETURN on MPI_COMM_WORLD), for an eager-sized (400 B) and
 * a large (1 MiB) message, via MPI_Recv (return code), MPI_Wait (return
 * code) and MPI_Waitall (MPI_ERR_IN_STATUS + status.MPI_ERROR). The sender
 * must succeed, and communication afterwards still works. Pairs; an
 * unpaired rank uses itself. */
#include "mpitest.h"

#define BIGB (1 << 20)

static void expect_truncate(int rc, const char *what) { mt_check_error_class(rc, MPI_ERR_TRUNCATE, what); }

static void sender(int p, unsigned char *buf, int tagbase) {
    int sizes[2] = {400, BIGB};
    for (int k = 0; k < 2; k++) {
        for (int m = 0; m < 3; m++) {
            mt_fill(buf, (size_t)sizes[k], (unsigned)(tagbase + k * 10 + m));
            int rc = MPI_Send(buf, sizes[k], MPI_BYTE, p, tagbase + k * 10 + m, MPI_COMM_WORLD);
            CHECK(rc == MPI_SUCCESS, "sender of a truncated message got error %d", rc);
        }
    }
}

static void receiver(int p, unsigned char *buf, int tagbase) {
    int sizes[2] = {400, BIGB};
    for (int k = 0; k < 2; k++) {
        int small = sizes[k] / 2;
        MPI_Status st;
        int tag = tagbase + k * 10;
        /* MPI_Recv */
        int rc = MPI_Recv(buf, small, MPI_BYTE, p, tag, MPI_COMM_WORLD, &st);
        expect_truncate(rc, k ? "MPI_Recv 1 MiB" : "MPI_Recv 400 B");
        /* MPI_Irecv + MPI_Wait */
        MPI_Request rq;
        MPI_OK(MPI_Irecv(buf, small, MPI_BYTE, p, tag + 1, MPI_COMM_WORLD, &rq));
        rc = MPI_Wait(&rq, &st);
        expect_truncate(rc, k ? "MPI_Wait 1 MiB" : "MPI_Wait 400 B");
        /* MPI_Irecv + MPI_Waitall with a good request next to it */
        MPI_Request r2[2];
        MPI_Status s2[2];
        int dummy = 0, one = 77;
        MPI_OK(MPI_Irecv(buf, small, MPI_BYTE, p, tag + 2, MPI_COMM_WORLD, &r2[0]));
        MPI_OK(MPI_Isend(&one, 1, MPI_INT, mt_rank, 99, MPI_COMM_WORLD, &r2[1]));
        MPI_OK(MPI_Recv(&dummy, 1, MPI_INT, mt_rank, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        s2[0].MPI_ERROR = s2[1].MPI_ERROR = -4242;
        rc = MPI_Waitall(2, r2, s2);
        CHECK(dummy == 77, "self message");
        int cls;
        MPI_OK(MPI_Error_class(rc, &cls));
        CHECK(cls == MPI_ERR_IN_STATUS, "Waitall returned class %d, expected MPI_ERR_IN_STATUS", cls);
        expect_truncate(s2[0].MPI_ERROR, "Waitall status[0].MPI_ERROR");
        CHECK(s2[1].MPI_ERROR == MPI_SUCCESS || s2[1].MPI_ERROR == MPI_ERR_PENDING,
              "Waitall status[1].MPI_ERROR=%d for a good request", s2[1].MPI_ERROR);
        CHECK(s2[0].MPI_SOURCE == p && s2[0].MPI_TAG == tag + 2, "truncated status source %d tag %d",
              s2[0].MPI_SOURCE, s2[0].MPI_TAG);
    }
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "truncate");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int p = mt_partner();
    unsigned char *sb = malloc(BIGB), *rb = malloc(BIGB);
    if (p == mt_rank) {
        /* self: post the sends non-blocking first */
        int sizes[2] = {400, BIGB};
        MPI_Request rq[6];
        unsigned char *bufs[6];
        for (int k = 0; k < 2; k++)
            for (int m = 0; m < 3; m++) {
                bufs[k * 3 + m] = malloc((size_t)sizes[k]);
                MPI_OK(MPI_Isend(bufs[k * 3 + m], sizes[k], MPI_BYTE, mt_rank, 100 + k * 10 + m, MPI_COMM_WORLD,
                                 &rq[k * 3 + m]));
            }
        receiver(mt_rank, rb, 100);
        MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 6; i++) free(bufs[i]);
    } else {
        int lo = mt_rank < p;
        if (lo) {
            sender(p, sb, 100);
            receiver(p, rb, 200);
        } else {
            receiver(p, rb, 100);
            sender(p, sb, 200);
        }
    }
    /* communication still works: exchange full-size messages with the partner */
    MPI_Status st;
    mt_fill(sb, BIGB, (unsigned)mt_rank);
    MPI_OK(MPI_Sendrecv(sb, BIGB, MPI_BYTE, p, 5, rb, BIGB, MPI_BYTE, p, 5, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, p, 5, MPI_BYTE, BIGB);
    CHECK(mt_verify(rb, BIGB, (unsigned)p) < 0, "data after truncation");
    int x = 1, y = 0;
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(y == mt_size, "allreduce after truncation: %d", y);
    free(sb);
    free(rb);
    return mt_finish();
}
