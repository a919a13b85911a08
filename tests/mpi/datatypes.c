/* Derived datatypes on point-to-point: vector columns, indexed, struct, subarray, large
 * (rendezvous) non-contiguous messages, MPI_BOTTOM with absolute addresses, partial receives
 * (Get_count / Get_elements), types freed while an operation uses them, persistent requests,
 * Sendrecv_replace, Mprobe/Mrecv and Bsend with derived types. Every rank sends to its right
 * neighbour and receives from its left one (itself with 1 rank). */
#include <stddef.h>

#include "mpitest.h"

#define NR 64
#define NC 48

typedef struct {
    int a;
    double b;
    char c[3];
} rec_t;

static int right, left;
static MPI_Status ign_sts[2];

static double mval(int src, int i, int j) { return src * 100000.0 + i * 100.0 + j; }

static void test_vector_column(void) {
    static double m[NR][NC], r[NR][NC];
    MPI_Datatype col;
    MPI_OK(MPI_Type_vector(NR, 1, NC, MPI_DOUBLE, &col));
    MPI_OK(MPI_Type_commit(&col));
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++) {
            m[i][j] = mval(mt_rank, i, j);
            r[i][j] = -1;
        }
    /* Column 5 goes into column 7 of r; also a column received as NR contiguous doubles. */
    double flat[NR];
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&m[0][5], 1, col, right, 1, &r[0][7], 1, col, left, 1, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, left, 1, col, 1);
    CHECK_STATUS(st, left, 1, MPI_DOUBLE, NR);
    for (int i = 0; i < NR; i++)
        for (int j = 0; j < NC; j++) {
            double want = j == 7 ? mval(left, i, 5) : -1;
            CHECK(r[i][j] == want, "column: r[%d][%d]=%g want %g", i, j, r[i][j], want);
        }
    MPI_OK(MPI_Sendrecv(&m[0][3], 1, col, right, 2, flat, NR, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st));
    for (int i = 0; i < NR; i++) CHECK(flat[i] == mval(left, i, 3), "flat[%d]=%g", i, flat[i]);
    /* Contiguous doubles into a column. */
    for (int i = 0; i < NR; i++) flat[i] = mval(mt_rank, i, 99);
    MPI_OK(MPI_Sendrecv(flat, NR, MPI_DOUBLE, right, 3, &r[0][0], 1, col, left, 3, MPI_COMM_WORLD, &st));
    for (int i = 0; i < NR; i++) CHECK(r[i][0] == mval(left, i, 99), "r[%d][0]=%g", i, r[i][0]);
    MPI_OK(MPI_Type_free(&col));
    CHECK(col == MPI_DATATYPE_NULL, "Type_free did not set MPI_DATATYPE_NULL");
}

static void test_indexed_and_struct(void) {
    int bl[3] = {3, 1, 2}, disp[3] = {0, 5, 9};
    MPI_Datatype ix;
    MPI_OK(MPI_Type_indexed(3, bl, disp, MPI_INT, &ix));
    MPI_OK(MPI_Type_commit(&ix));
    int src[22], dst[22];
    for (int i = 0; i < 22; i++) src[i] = mt_rank * 1000 + i;
    int packed[12];
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(packed, 12, MPI_INT, left, 4, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(src, 2, ix, right, 4, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, ign_sts));
    const int want_idx[12] = {0, 1, 2, 5, 9, 10, 11, 12, 13, 16, 20, 21};
    for (int i = 0; i < 12; i++)
        CHECK(packed[i] == left * 1000 + want_idx[i], "indexed packed[%d]=%d", i, packed[i]);
    /* And back into the indexed layout. */
    for (int i = 0; i < 22; i++) dst[i] = -1;
    MPI_OK(MPI_Irecv(dst, 2, ix, left, 5, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(packed, 12, MPI_INT, right, 5, MPI_COMM_WORLD, &rq[1]));
    int flag = 0;
    while (!flag) MPI_OK(MPI_Testall(2, rq, &flag, ign_sts));
    int left_of_left = (left - 1 + mt_size) % mt_size;
    for (int i = 0, k = 0; i < 22; i++) {
        int in_map = k < 12 && want_idx[k] == i;
        int want = in_map ? left_of_left * 1000 + i : -1;
        CHECK(dst[i] == want, "indexed dst[%d]=%d want %d", i, dst[i], want);
        if (in_map) k++;
    }
    MPI_OK(MPI_Type_free(&ix));

    /* struct { int; double; char[3] } resized to sizeof(rec_t). */
    MPI_Datatype st0, st;
    int sbl[3] = {1, 1, 3};
    MPI_Aint sdisp[3] = {offsetof(rec_t, a), offsetof(rec_t, b), offsetof(rec_t, c)};
    MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_OK(MPI_Type_create_struct(3, sbl, sdisp, sty, &st0));
    MPI_OK(MPI_Type_create_resized(st0, 0, sizeof(rec_t), &st));
    MPI_OK(MPI_Type_commit(&st));
    MPI_Aint lb, ext;
    MPI_OK(MPI_Type_get_extent(st, &lb, &ext));
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(rec_t), "struct extent %ld", (long)ext);
    int size;
    MPI_OK(MPI_Type_size(st, &size));
    CHECK(size == 15, "struct size %d", size);
    rec_t s[10], d[10];
    memset(d, 0, sizeof d);
    for (int i = 0; i < 10; i++) {
        s[i].a = mt_rank * 10 + i;
        s[i].b = mt_rank + i / 4.0;
        s[i].c[0] = 'a' + i;
        s[i].c[1] = 'A' + mt_rank % 26;
        s[i].c[2] = 0;
    }
    MPI_Status stt;
    MPI_OK(MPI_Sendrecv(s, 10, st, right, 6, d, 10, st, left, 6, MPI_COMM_WORLD, &stt));
    CHECK_STATUS(stt, left, 6, st, 10);
    int elems;
    MPI_OK(MPI_Get_elements(&stt, st, &elems));
    CHECK(elems == 50, "struct elements %d", elems);
    for (int i = 0; i < 10; i++)
        CHECK(d[i].a == left * 10 + i && d[i].b == left + i / 4.0 && d[i].c[0] == 'a' + i &&
                  d[i].c[1] == 'A' + left % 26,
              "struct record %d wrong", i);
    MPI_OK(MPI_Type_free(&st0));
    MPI_OK(MPI_Type_free(&st));
}

static void test_subarray(void) {
    /* 20x30 ints; a 5x7 block from (3,4) goes to (10,20) of a 16x28 array. */
    static int a[20][30], b[16][28];
    int sz[2] = {20, 30}, sub[2] = {5, 7}, st[2] = {3, 4};
    int sz2[2] = {16, 28}, st2[2] = {10, 20};
    MPI_Datatype sa, sb;
    MPI_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &sa));
    MPI_OK(MPI_Type_create_subarray(2, sz2, sub, st2, MPI_ORDER_C, MPI_INT, &sb));
    MPI_OK(MPI_Type_commit(&sa));
    MPI_OK(MPI_Type_commit(&sb));
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 30; j++) a[i][j] = mt_rank * 10000 + i * 100 + j;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 28; j++) b[i][j] = -1;
    MPI_Status s;
    MPI_OK(MPI_Sendrecv(a, 1, sa, right, 7, b, 1, sb, left, 7, MPI_COMM_WORLD, &s));
    CHECK_STATUS(s, left, 7, MPI_INT, 35);
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 28; j++) {
            int in = i >= 10 && i < 15 && j >= 20 && j < 27;
            int want = in ? left * 10000 + (i - 10 + 3) * 100 + (j - 20 + 4) : -1;
            CHECK(b[i][j] == want, "subarray b[%d][%d]=%d want %d", i, j, b[i][j], want);
        }
    MPI_OK(MPI_Type_free(&sa));
    MPI_OK(MPI_Type_free(&sb));
}

/* ~800 KB non-contiguous: rendezvous on every device; receive type freed while pending. */
static void test_large(void) {
    const int n = 100000;
    double *s = malloc(sizeof(double) * 2 * n), *r = malloc(sizeof(double) * 2 * n);
    CHECK(s && r, "malloc");
    for (int i = 0; i < 2 * n; i++) {
        s[i] = mt_rank + i * 0.5;
        r[i] = -1;
    }
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(r + 1, 1, v, left, 8, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(s, 1, v, right, 8, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Type_free(&v)); /* pending operations keep it alive */
    MPI_Status st[2];
    MPI_OK(MPI_Waitall(2, rq, st));
    int cnt;
    MPI_OK(MPI_Get_count(&st[0], MPI_DOUBLE, &cnt));
    CHECK(cnt == n, "large count %d", cnt);
    for (int i = 0; i < 2 * n; i++) {
        double want = (i % 2) ? left + (i - 1) * 0.5 : -1;
        CHECK(r[i] == want, "large r[%d]=%g want %g", i, r[i], want);
    }
    free(s);
    free(r);
}

/* Partial receives: fewer bytes than the receive type describes. */
static void test_partial(void) {
    MPI_Datatype v, st;
    MPI_OK(MPI_Type_vector(4, 2, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int src[3] = {mt_rank + 1, mt_rank + 2, mt_rank + 3}, dst[12];
    for (int i = 0; i < 12; i++) dst[i] = -1;
    MPI_Status s;
    MPI_OK(MPI_Sendrecv(src, 3, MPI_INT, right, 9, dst, 1, v, left, 9, MPI_COMM_WORLD, &s));
    int cnt, el;
    MPI_OK(MPI_Get_count(&s, v, &cnt));
    MPI_OK(MPI_Get_elements(&s, v, &el));
    CHECK(cnt == MPI_UNDEFINED, "partial vector Get_count=%d", cnt);
    CHECK(el == 3, "partial vector Get_elements=%d", el);
    MPI_Count elx;
    MPI_OK(MPI_Get_elements_x(&s, v, &elx));
    CHECK(elx == 3, "Get_elements_x=%ld", (long)elx);
    const int want[12] = {left + 1, left + 2, -1, left + 3, -1, -1, -1, -1, -1, -1, -1, -1};
    for (int i = 0; i < 12; i++) CHECK(dst[i] == want[i], "partial dst[%d]=%d want %d", i, dst[i], want[i]);

    /* struct { int; double } (size 12): 16 bytes = int, double, int. */
    int bl[2] = {1, 1};
    MPI_Aint d[2] = {0, 8};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_OK(MPI_Type_create_struct(2, bl, d, ty, &st));
    MPI_OK(MPI_Type_commit(&st));
    int four[4] = {1, 2, 3, 4};
    char rbuf[64];
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(rbuf, 4, st, left, 10, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(four, 4, MPI_INT, right, 10, MPI_COMM_WORLD, &rq[1]));
    MPI_Status ss[2];
    MPI_OK(MPI_Waitall(2, rq, ss));
    MPI_OK(MPI_Get_count(&ss[0], st, &cnt));
    MPI_OK(MPI_Get_elements(&ss[0], st, &el));
    CHECK(cnt == MPI_UNDEFINED, "partial struct Get_count=%d", cnt);
    CHECK(el == 3, "partial struct Get_elements=%d", el);
    MPI_OK(MPI_Get_count(&ss[0], MPI_INT, &cnt));
    CHECK(cnt == 4, "Get_count(MPI_INT)=%d", cnt);
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&st));
}

/* MPI_BOTTOM: a struct of absolute addresses of two separate variables. */
static void test_bottom(void) {
    int x = mt_rank * 3 + 1, rx = -1;
    double y[2] = {mt_rank + 0.25, mt_rank + 0.75}, ry[2] = {-1, -1};
    MPI_Aint ax, ay, arx, ary;
    MPI_OK(MPI_Get_address(&x, &ax));
    MPI_OK(MPI_Get_address(y, &ay));
    MPI_OK(MPI_Get_address(&rx, &arx));
    MPI_OK(MPI_Get_address(ry, &ary));
    CHECK(MPI_Aint_diff(MPI_Aint_add(ay, 8), ay) == 8, "Aint_add/diff");
    int bl[2] = {1, 2};
    MPI_Aint sd[2] = {ax, ay}, rd[2] = {arx, ary};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, ss, rs;
    MPI_OK(MPI_Type_create_struct(2, bl, sd, ty, &ss));
    MPI_OK(MPI_Type_create_struct(2, bl, rd, ty, &rs));
    MPI_OK(MPI_Type_commit(&ss));
    MPI_OK(MPI_Type_commit(&rs));
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(MPI_BOTTOM, 1, rs, left, 11, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(MPI_BOTTOM, 1, ss, right, 11, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, ign_sts));
    CHECK(rx == left * 3 + 1 && ry[0] == left + 0.25 && ry[1] == left + 0.75, "MPI_BOTTOM data %d %g %g", rx,
          ry[0], ry[1]);
    MPI_OK(MPI_Type_free(&ss));
    MPI_OK(MPI_Type_free(&rs));
}

/* Persistent requests with a derived type freed before the first MPI_Start. */
static void test_persistent(void) {
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(5, 1, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int s[15], r[15];
    MPI_Request rq[2];
    MPI_OK(MPI_Recv_init(r, 1, v, left, 12, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Send_init(s, 1, v, right, 12, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Type_free(&v));
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 15; i++) {
            s[i] = mt_rank * 100 + it * 20 + i;
            r[i] = -1;
        }
        MPI_OK(MPI_Startall(2, rq));
        MPI_OK(MPI_Waitall(2, rq, ign_sts));
        for (int i = 0; i < 15; i++) {
            int want = i % 3 == 0 ? left * 100 + it * 20 + i : -1;
            CHECK(r[i] == want, "persistent it %d r[%d]=%d want %d", it, i, r[i], want);
        }
    }
    MPI_OK(MPI_Request_free(&rq[0]));
    MPI_OK(MPI_Request_free(&rq[1]));
}

/* Sendrecv_replace, Mprobe/Mrecv and Bsend with a vector type. */
static void test_misc_paths(void) {
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int b[8];
    for (int i = 0; i < 8; i++) b[i] = mt_rank * 10 + i;
    MPI_Status s;
    MPI_OK(MPI_Sendrecv_replace(b, 1, v, right, 13, left, 13, MPI_COMM_WORLD, &s));
    for (int i = 0; i < 8; i++) {
        int want = i % 2 == 0 ? left * 10 + i : mt_rank * 10 + i;
        CHECK(b[i] == want, "Sendrecv_replace b[%d]=%d want %d", i, b[i], want);
    }
    /* Mprobe + Mrecv into the vector layout. */
    int src[4] = {mt_rank, mt_rank + 1, mt_rank + 2, mt_rank + 3}, dst[8];
    for (int i = 0; i < 8; i++) dst[i] = -1;
    MPI_Request rq;
    MPI_OK(MPI_Isend(src, 4, MPI_INT, right, 14, MPI_COMM_WORLD, &rq));
    MPI_Message msg;
    MPI_OK(MPI_Mprobe(left, 14, MPI_COMM_WORLD, &msg, &s));
    MPI_OK(MPI_Mrecv(dst, 1, v, &msg, &s));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) {
        int want = i % 2 == 0 ? left + i / 2 : -1;
        CHECK(dst[i] == want, "Mrecv dst[%d]=%d want %d", i, dst[i], want);
    }
    /* Imrecv. */
    for (int i = 0; i < 8; i++) dst[i] = -1;
    MPI_OK(MPI_Isend(src, 4, MPI_INT, right, 15, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Mprobe(left, 15, MPI_COMM_WORLD, &msg, &s));
    MPI_Request rr;
    MPI_OK(MPI_Imrecv(dst, 1, v, &msg, &rr));
    MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++) {
        int want = i % 2 == 0 ? left + i / 2 : -1;
        CHECK(dst[i] == want, "Imrecv dst[%d]=%d want %d", i, dst[i], want);
    }
    /* Bsend of the vector; received as 4 ints. */
    int bufsize = 4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD + 64;
    void *bb = malloc((size_t)bufsize);
    MPI_OK(MPI_Buffer_attach(bb, bufsize));
    for (int i = 0; i < 8; i++) b[i] = mt_rank * 10 + i;
    int got[4];
    MPI_OK(MPI_Irecv(got, 4, MPI_INT, left, 16, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Bsend(b, 1, v, right, 16, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(got[i] == left * 10 + 2 * i, "Bsend got[%d]=%d", i, got[i]);
    void *det;
    int detsize;
    MPI_OK(MPI_Buffer_detach(&det, &detsize));
    free(bb);
    MPI_OK(MPI_Type_free(&v));
}

/* Cancel and Request_free on pending receives with a non-contiguous type. */
static void test_cancel_and_free(void) {
    MPI_Datatype v;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    int r[6] = {-1, -1, -1, -1, -1, -1};
    MPI_Request rq;
    MPI_Status st;
    MPI_OK(MPI_Irecv(r, 1, v, left, 30, MPI_COMM_WORLD, &rq)); /* never sent */
    MPI_OK(MPI_Cancel(&rq));
    MPI_OK(MPI_Wait(&rq, &st));
    int cancelled = 0;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "receive not cancelled");
    for (int i = 0; i < 6; i++) CHECK(r[i] == -1, "cancelled receive wrote r[%d]=%d", i, r[i]);
    /* A freed pending receive still lands in the buffer; tag 32 from the same sender follows it. */
    MPI_OK(MPI_Irecv(r, 1, v, left, 31, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Request_free(&rq));
    CHECK(rq == MPI_REQUEST_NULL, "Request_free did not reset the handle");
    MPI_OK(MPI_Type_free(&v));
    int s[3] = {mt_rank * 7, mt_rank * 7 + 1, mt_rank * 7 + 2}, dummy = 0, got;
    MPI_Request sq[2];
    MPI_OK(MPI_Isend(s, 3, MPI_INT, right, 31, MPI_COMM_WORLD, &sq[0]));
    MPI_OK(MPI_Isend(&dummy, 1, MPI_INT, right, 32, MPI_COMM_WORLD, &sq[1]));
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, left, 32, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(2, sq, ign_sts));
    const int want[6] = {left * 7, -1, left * 7 + 1, -1, left * 7 + 2, -1};
    for (int i = 0; i < 6; i++) CHECK(r[i] == want[i], "freed receive r[%d]=%d want %d", i, r[i], want[i]);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "datatypes");
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank - 1 + mt_size) % mt_size;
    test_vector_column();
    test_indexed_and_struct();
    test_subarray();
    test_large();
    test_partial();
    test_bottom();
    test_persistent();
    test_misc_paths();
    test_cancel_and_free();
    return mt_finish();
}
