/* Non-blocking collectives: several outstanding at once on one communicator (each with its own
 * buffers), overlapped with point-to-point traffic on the same communicator, completed with
 * MPI_Waitall, MPI_Test loops and MPI_Wait; results checked against local references. Then a
 * derived datatype freed while non-blocking collectives that use it run (MPI lets the program
 * free it: the operations finish as if it were not): MPI_Iallgather, MPI_Ialltoall and
 * MPI_Iallreduce with a user operation, strided both ways. */
#include "mpitest.h"

#define N 5000

static int val(int rank, int i) { return rank * 100 + i; }

/* inout[i] += in[i] over the ints of a strided pair type. */
static void add_pairs(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++) {
        b[3 * k] += a[3 * k];
        b[3 * k + 2] += a[3 * k + 2];
    }
}

static void freed_type_while_running(void) {
    const int n = mt_size, me = mt_rank;
    MPI_Datatype pair; /* 2 ints, 1 apart: extent 3 ints */
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_Op op;
    MPI_OK(MPI_Op_create(add_pairs, 1, &op));
    int *out = malloc(sizeof(int) * 3 * n), *ag = malloc(sizeof(int) * 3 * n), *a2a = malloc(sizeof(int) * 3 * n);
    int red_in[3] = {me, -1, 2 * me}, red_out[3] = {-7, -7, -7};
    for (int i = 0; i < 3 * n; i++) out[i] = 1000 * me + i, ag[i] = a2a[i] = -7;
    MPI_Request req[3];
    MPI_OK(MPI_Iallgather(out, 1, pair, ag, 1, pair, MPI_COMM_WORLD, &req[0]));
    MPI_OK(MPI_Ialltoall(out, 1, pair, a2a, 1, pair, MPI_COMM_WORLD, &req[1]));
    MPI_OK(MPI_Iallreduce(red_in, red_out, 1, pair, op, MPI_COMM_WORLD, &req[2]));
    MPI_OK(MPI_Type_free(&pair));
    for (int k = 0; k < 8; k++) { /* new types may take the freed one's place */
        MPI_Datatype t;
        MPI_OK(MPI_Type_contiguous(3, MPI_DOUBLE, &t));
        MPI_OK(MPI_Type_commit(&t));
        MPI_OK(MPI_Type_free(&t));
    }
    MPI_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    for (int r = 0; r < n; r++) {
        CHECK(ag[3 * r] == 1000 * r && ag[3 * r + 1] == -7 && ag[3 * r + 2] == 1000 * r + 2,
              "Iallgather of a freed type: block %d is %d %d %d", r, ag[3 * r], ag[3 * r + 1], ag[3 * r + 2]);
        CHECK(a2a[3 * r] == 1000 * r + 3 * me && a2a[3 * r + 2] == 1000 * r + 3 * me + 2,
              "Ialltoall of a freed type: block %d is %d %d", r, a2a[3 * r], a2a[3 * r + 2]);
    }
    CHECK(red_out[0] == n * (n - 1) / 2 && red_out[1] == -7 && red_out[2] == n * (n - 1),
          "Iallreduce of a freed type: %d %d %d", red_out[0], red_out[1], red_out[2]);
    MPI_OK(MPI_Op_free(&op));
    free(out);
    free(ag);
    free(a2a);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "coll_nonblocking");
    const int n = mt_size, me = mt_rank;
    int *ar = malloc(sizeof(int) * N), *ar_out = malloc(sizeof(int) * N);
    int *bc = malloc(sizeof(int) * N);
    int *ag = malloc(sizeof(int) * 64 * n), *a2a_in = malloc(sizeof(int) * 64 * n), *a2a_out = malloc(sizeof(int) * 64 * n);
    int *ga = malloc(sizeof(int) * 16 * n), *scsrc = malloc(sizeof(int) * 16 * n), sc_in[16], sc_out[16];
    int sbuf[1000], rbuf[1000];
    for (int iter = 0; iter < 20; iter++) {
        const int root = iter % n;
        MPI_Request req[12];
        int nr = 0;
        for (int i = 0; i < N; i++) { ar[i] = val(me, i) + iter; bc[i] = me == root ? val(root, i) * 3 : -1; }
        for (int i = 0; i < 64; i++) ag[me * 64 + i] = -1;
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 64; i++) a2a_in[r * 64 + i] = val(me, r * 64 + i);
        for (int i = 0; i < 16; i++) sc_in[i] = val(me, i);
        /* Point-to-point traffic posted before and after the collectives, same communicator. */
        const int right = (me + 1) % n, left = (me - 1 + n) % n;
        for (int i = 0; i < 1000; i++) sbuf[i] = val(me, i) ^ iter;
        MPI_OK(MPI_Irecv(rbuf, 1000, MPI_INT, left, iter, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Iallreduce(ar, ar_out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Ibcast(bc, N, MPI_INT, root, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Iallgather(sc_in, 16, MPI_INT, ga, 16, MPI_INT, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Ialltoall(a2a_in, 64, MPI_INT, a2a_out, 64, MPI_INT, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Isend(sbuf, 1000, MPI_INT, right, iter, MPI_COMM_WORLD, &req[nr++]));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 16; i++) scsrc[r * 16 + i] = val(r, i) + 7;
        MPI_OK(MPI_Iscatter(scsrc, 16, MPI_INT, sc_out, 16, MPI_INT, root, MPI_COMM_WORLD, &req[nr++]));
        MPI_OK(MPI_Wait(&req[3], MPI_STATUS_IGNORE)); /* one completed on its own */
        if (iter % 2) {
            MPI_OK(MPI_Waitall(nr, req, MPI_STATUSES_IGNORE));
        } else {
            int flag = 0;
            while (!flag) MPI_OK(MPI_Testall(nr, req, &flag, MPI_STATUSES_IGNORE));
        }
        for (int i = 0; i < N; i++) {
            int s = 0;
            for (int r = 0; r < n; r++) s += val(r, i) + iter;
            CHECK(ar_out[i] == s, "iallreduce iter=%d [%d]=%d want %d", iter, i, ar_out[i], s);
            CHECK(bc[i] == val(root, i) * 3, "ibcast iter=%d", iter);
        }
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 16; i++) CHECK(ga[r * 16 + i] == val(r, i), "iallgather iter=%d", iter);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 64; i++) CHECK(a2a_out[r * 64 + i] == val(r, me * 64 + i), "ialltoall iter=%d", iter);
        for (int i = 0; i < 16; i++) CHECK(sc_out[i] == val(me, i) + 7, "iscatter iter=%d", iter);
        for (int i = 0; i < 1000; i++) CHECK(rbuf[i] == (val(left, i) ^ iter), "p2p iter=%d", iter);
    }
    /* Ireduce / Iscan / Iexscan / Ireduce_scatter_block / Igatherv / Iallgatherv / Ialltoallv. */
    {
        MPI_Request r[7];
        int x = me + 1, red = -1, sc = -1, ex = -1, rsb = -1, gv[64], agv[64], av_in[64], av_out[64];
        int rsb_in[64], cnts[64], dsp[64];
        for (int i = 0; i < n; i++) { rsb_in[i] = i + me; cnts[i] = 1; dsp[i] = n - 1 - i; av_in[i] = me * 10 + i; }
        MPI_OK(MPI_Ireduce(&x, &red, 1, MPI_INT, MPI_PROD, n - 1, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Iscan(&x, &sc, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]));
        MPI_OK(MPI_Iexscan(&x, &ex, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]));
        MPI_OK(MPI_Ireduce_scatter_block(rsb_in, &rsb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[3]));
        MPI_OK(MPI_Igatherv(&x, 1, MPI_INT, gv, cnts, dsp, MPI_INT, 0, MPI_COMM_WORLD, &r[4]));
        MPI_OK(MPI_Iallgatherv(&x, 1, MPI_INT, agv, cnts, dsp, MPI_INT, MPI_COMM_WORLD, &r[5]));
        MPI_OK(MPI_Ialltoallv(av_in, cnts, dsp, MPI_INT, av_out, cnts, dsp, MPI_INT, MPI_COMM_WORLD, &r[6]));
        for (int i = 6; i >= 0; i--) MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        int prod = 1;
        for (int i = 1; i <= n; i++) prod *= i;
        if (me == n - 1) CHECK(red == prod, "ireduce %d want %d", red, prod);
        CHECK(sc == (me + 1) * (me + 2) / 2, "iscan %d", sc);
        if (me > 0) CHECK(ex == me * (me + 1) / 2, "iexscan %d", ex);
        CHECK(rsb == n * me + n * (n - 1) / 2, "ireduce_scatter_block %d", rsb);
        for (int i = 0; i < n; i++) {
            if (me == 0) CHECK(gv[n - 1 - i] == i + 1, "igatherv");
            CHECK(agv[n - 1 - i] == i + 1, "iallgatherv");
            CHECK(av_out[n - 1 - i] == i * 10 + (n - 1 - me), "ialltoallv got %d", av_out[n - 1 - i]);
        }
    }
    free(ar); free(ar_out); free(bc); free(ag); free(a2a_in); free(a2a_out); free(ga); free(scsrc);
    freed_type_while_running();
    return mt_finish();
}
