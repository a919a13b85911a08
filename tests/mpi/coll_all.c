/* Every collective on MPI_COMM_WORLD checked against a reference computed locally: several
 * counts (0, 1, odd, large), every root, MPI_IN_PLACE, predefined and user operations
 * (commutative sum, non-commutative 2x2 matrix product), blocking and non-blocking forms. */
#include "mpitest.h"

static int val(int rank, int i) { return rank * 1000 + i * 7 + 3; }

/* 2x2 integer matrices, row-major: inout = in * inout (non-commutative). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    int *a = (int *)in, *b = (int *)inout;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) { /* MPI_INT vector: len/4 matrices */
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}
static void mysum(void *in, void *inout, int *len, MPI_Datatype *dt) {
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}
static void mat_of(int rank, int k, int *m) { /* small entries: products stay in int range mod 2^32 */
    m[0] = 1; m[1] = (rank + k) % 3; m[2] = (rank * 2 + k) % 2; m[3] = 1;
}

static const int counts[] = {0, 1, 3, 17, 1000, 5000, 100000};
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "coll_all");
    const int n = mt_size, me = mt_rank;
    int *a = malloc(sizeof(int) * 100000 * 8 + 64), *b = malloc(sizeof(int) * 100000 * 8 + 64);
    int *ref = malloc(sizeof(int) * 100000 * 8 + 64);
    MPI_Op usum, umat;
    MPI_OK(MPI_Op_create(mysum, 1, &usum));
    MPI_OK(MPI_Op_create(matmul, 0, &umat));
    int commute = -1;
    MPI_OK(MPI_Op_commutative(umat, &commute));
    CHECK(commute == 0, "matmul commutative=%d", commute);
    MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "sum commutative=%d", commute);

    for (int ci = 0; ci < NCOUNTS; ci++) {
        const int cnt = counts[ci];
        const int big = cnt >= 100000;
        /* Bcast, every root (large: two roots). */
        for (int root = 0; root < n; root++) {
            if (big && root > 1) break;
            for (int i = 0; i < cnt; i++) a[i] = me == root ? val(root, i) : -1;
            MPI_OK(MPI_Bcast(a, cnt, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < cnt; i++) CHECK(a[i] == val(root, i), "bcast cnt=%d root=%d a[%d]=%d", cnt, root, i, a[i]);
        }
        /* Reduce (SUM, MAX, user sum), every root, plus in place at root. */
        for (int root = 0; root < n; root++) {
            if (big && root > 1) break;
            for (int i = 0; i < cnt; i++) { a[i] = val(me, i); b[i] = -1; }
            MPI_OK(MPI_Reduce(a, b, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            if (me == root)
                for (int i = 0; i < cnt; i++) {
                    int s = 0;
                    for (int r = 0; r < n; r++) s += val(r, i);
                    CHECK(b[i] == s, "reduce sum cnt=%d root=%d b[%d]=%d want %d", cnt, root, i, b[i], s);
                }
#ifdef MT_REFERENCE_MPICH_402
            /* MPICH 4.0.2 crashes on an in-place MPI_Reduce of 1000+ ints: skip it there. */
            if (cnt >= 1000) continue;
#endif
            MPI_OK(MPI_Reduce(me == root ? MPI_IN_PLACE : a, me == root ? a : NULL, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
            if (me == root)
                for (int i = 0; i < cnt; i++) {
                    int s = 0;
                    for (int r = 0; r < n; r++) s += val(r, i);
                    CHECK(a[i] == s, "reduce usum in place cnt=%d root=%d", cnt, root);
                }
        }
        /* Allreduce: SUM in place, MAX, user sum, non-commutative matrix product. */
        for (int i = 0; i < cnt; i++) a[i] = val(me, i);
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, a, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) {
            int s = 0;
            for (int r = 0; r < n; r++) s += val(r, i);
            CHECK(a[i] == s, "allreduce sum cnt=%d a[%d]=%d want %d", cnt, i, a[i], s);
        }
        for (int i = 0; i < cnt; i++) a[i] = val(me, i);
        MPI_OK(MPI_Allreduce(a, b, cnt, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) CHECK(b[i] == val(n - 1, i), "allreduce max cnt=%d", cnt);
        MPI_OK(MPI_Allreduce(a, b, cnt, MPI_INT, usum, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) {
            int s = 0;
            for (int r = 0; r < n; r++) s += val(r, i);
            CHECK(b[i] == s, "allreduce usum cnt=%d", cnt);
        }
        {
            const int m = cnt > 1000 ? 1000 : cnt; /* matrices */
            for (int k = 0; k < m; k++) mat_of(me, k, a + 4 * k);
            for (int k = 0; k < m; k++) {
                int acc[4];
                mat_of(0, k, acc);
                for (int r = 1; r < n; r++) {
                    int x[4];
                    int one = 4;
                    mat_of(r, k, x);
                    matmul(acc, x, &one, NULL); /* x = acc * x */
                    memcpy(acc, x, sizeof acc);
                }
                memcpy(ref + 4 * k, acc, sizeof acc);
            }
            const MPI_Datatype mt = MPI_INT; /* 4 ints per matrix */
            MPI_OK(MPI_Allreduce(a, b, 4 * m, mt, umat, MPI_COMM_WORLD));
            CHECK(memcmp(b, ref, sizeof(int) * 4 * m) == 0, "allreduce matmul m=%d", m);
            for (int root = 0; root < n; root++) {
                MPI_OK(MPI_Reduce(a, b, 4 * m, mt, umat, root, MPI_COMM_WORLD));
                if (me == root) CHECK(memcmp(b, ref, sizeof(int) * 4 * m) == 0, "reduce matmul m=%d root=%d", m, root);
            }
            /* Scan with the matrix product: prefix products. */
            MPI_OK(MPI_Scan(a, b, 4 * m, mt, umat, MPI_COMM_WORLD));
            for (int k = 0; k < m; k++) {
                int acc[4];
                mat_of(0, k, acc);
                for (int r = 1; r <= me; r++) {
                    int x[4], one = 4;
                    mat_of(r, k, x);
                    matmul(acc, x, &one, NULL);
                    memcpy(acc, x, sizeof acc);
                }
                CHECK(memcmp(b + 4 * k, acc, sizeof acc) == 0, "scan matmul m=%d k=%d", m, k);
            }
        }
        /* Scan / Exscan SUM. */
        for (int i = 0; i < cnt; i++) a[i] = val(me, i);
        MPI_OK(MPI_Scan(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int i = 0; i < cnt; i++) {
            int s = 0;
            for (int r = 0; r <= me; r++) s += val(r, i);
            CHECK(b[i] == s, "scan cnt=%d", cnt);
        }
        MPI_OK(MPI_Exscan(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        if (me > 0)
            for (int i = 0; i < cnt; i++) {
                int s = 0;
                for (int r = 0; r < me; r++) s += val(r, i);
                CHECK(b[i] == s, "exscan cnt=%d", cnt);
            }
        if (cnt > 20000) continue; /* the rest moves n*cnt per rank */
        /* Gather / Scatter, every root; in place at root. */
        for (int root = 0; root < n; root++) {
            for (int i = 0; i < cnt; i++) a[i] = val(me, i);
            for (int i = 0; i < cnt * n; i++) b[i] = -1;
            MPI_OK(MPI_Gather(a, cnt, MPI_INT, b, cnt, MPI_INT, root, MPI_COMM_WORLD));
            if (me == root)
                for (int r = 0; r < n; r++)
                    for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, i), "gather cnt=%d root=%d", cnt, root);
            if (me == root) {
                for (int i = 0; i < cnt * n; i++) b[i] = -1;
                for (int i = 0; i < cnt; i++) b[root * cnt + i] = val(me, i);
            }
            MPI_OK(MPI_Gather(me == root ? MPI_IN_PLACE : a, cnt, MPI_INT, b, cnt, MPI_INT, root, MPI_COMM_WORLD));
            if (me == root)
                for (int r = 0; r < n; r++)
                    for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, i), "gather inplace cnt=%d root=%d", cnt, root);
            if (me == root)
                for (int r = 0; r < n; r++)
                    for (int i = 0; i < cnt; i++) b[r * cnt + i] = val(r, i) + 5;
            for (int i = 0; i < cnt; i++) a[i] = -1;
            MPI_OK(MPI_Scatter(b, cnt, MPI_INT, me == root ? MPI_IN_PLACE : a, cnt, MPI_INT, root, MPI_COMM_WORLD));
            if (me != root)
                for (int i = 0; i < cnt; i++) CHECK(a[i] == val(me, i) + 5, "scatter cnt=%d root=%d", cnt, root);
            MPI_OK(MPI_Scatter(b, cnt, MPI_INT, a, cnt, MPI_INT, root, MPI_COMM_WORLD));
            for (int i = 0; i < cnt; i++) CHECK(a[i] == val(me, i) + 5, "scatter2 cnt=%d root=%d", cnt, root);
            /* Gatherv/Scatterv: rank r contributes cnt + r elements, reversed placement. */
            {
                int rc[64], dp[64], off = 0;
                for (int r = n - 1; r >= 0; r--) { rc[r] = cnt + r; dp[r] = off; off += cnt + r + 1; }
                for (int i = 0; i < cnt + me; i++) a[i] = val(me, i);
                MPI_OK(MPI_Gatherv(a, cnt + me, MPI_INT, b, rc, dp, MPI_INT, root, MPI_COMM_WORLD));
                if (me == root)
                    for (int r = 0; r < n; r++)
                        for (int i = 0; i < rc[r]; i++) CHECK(b[dp[r] + i] == val(r, i), "gatherv cnt=%d root=%d", cnt, root);
                for (int i = 0; i < cnt + me; i++) a[i] = -1;
                MPI_OK(MPI_Scatterv(b, rc, dp, MPI_INT, a, cnt + me, MPI_INT, root, MPI_COMM_WORLD));
                for (int i = 0; i < cnt + me; i++) CHECK(a[i] == val(me, i), "scatterv cnt=%d root=%d", cnt, root);
            }
        }
        /* Allgather (+ in place) and Allgatherv. */
        for (int i = 0; i < cnt; i++) a[i] = val(me, i);
        MPI_OK(MPI_Allgather(a, cnt, MPI_INT, b, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, i), "allgather cnt=%d", cnt);
        for (int i = 0; i < cnt * n; i++) b[i] = -1;
        for (int i = 0; i < cnt; i++) b[me * cnt + i] = val(me, i);
        MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, i), "allgather inplace cnt=%d", cnt);
        {
            int rc[64], dp[64], off = 0;
            for (int r = 0; r < n; r++) { rc[r] = cnt + (r % 3); dp[r] = off; off += rc[r] + 2; }
            for (int i = 0; i < rc[me]; i++) a[i] = val(me, i);
            MPI_OK(MPI_Allgatherv(a, rc[me], MPI_INT, b, rc, dp, MPI_INT, MPI_COMM_WORLD));
            for (int r = 0; r < n; r++)
                for (int i = 0; i < rc[r]; i++) CHECK(b[dp[r] + i] == val(r, i), "allgatherv cnt=%d", cnt);
        }
        /* Alltoall (+ in place), Alltoallv, Alltoallw. */
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt; i++) a[r * cnt + i] = val(me, r * 100 + i);
        MPI_OK(MPI_Alltoall(a, cnt, MPI_INT, b, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, me * 100 + i), "alltoall cnt=%d", cnt);
        memcpy(b, a, sizeof(int) * cnt * n);
        MPI_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, cnt, MPI_INT, MPI_COMM_WORLD));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < cnt; i++) CHECK(b[r * cnt + i] == val(r, me * 100 + i), "alltoall inplace cnt=%d", cnt);
        {
            int sc[64], sd[64], rc[64], rd[64], sw[64], rw[64], so = 0, ro = 0;
            MPI_Datatype ts[64];
            for (int r = 0; r < n; r++) {
                sc[r] = cnt + r; sd[r] = so; so += sc[r] + 1;   /* to r: cnt + r elements */
                rc[r] = cnt + me; rd[r] = ro; ro += rc[r] + 1;  /* from r: cnt + me elements */
                sw[r] = sd[r] * (int)sizeof(int); rw[r] = rd[r] * (int)sizeof(int); ts[r] = MPI_INT;
            }
            for (int r = 0; r < n; r++)
                for (int i = 0; i < sc[r]; i++) a[sd[r] + i] = val(me, r * 100 + i);
            MPI_OK(MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD));
            for (int r = 0; r < n; r++)
                for (int i = 0; i < rc[r]; i++) CHECK(b[rd[r] + i] == val(r, me * 100 + i), "alltoallv cnt=%d", cnt);
            for (int i = 0; i < ro; i++) b[i] = -1;
            MPI_OK(MPI_Alltoallw(a, sc, sw, ts, b, rc, rw, ts, MPI_COMM_WORLD));
            for (int r = 0; r < n; r++)
                for (int i = 0; i < rc[r]; i++) CHECK(b[rd[r] + i] == val(r, me * 100 + i), "alltoallw cnt=%d", cnt);
        }
        /* Reduce_scatter_block and Reduce_scatter (+ in place). */
        {
            for (int i = 0; i < cnt * n; i++) a[i] = val(me, i);
            MPI_OK(MPI_Reduce_scatter_block(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < cnt; i++) {
                int s = 0;
                for (int r = 0; r < n; r++) s += val(r, me * cnt + i);
                CHECK(b[i] == s, "reduce_scatter_block cnt=%d", cnt);
            }
            int rc[64], tot = 0, mine = 0;
            for (int r = 0; r < n; r++) { rc[r] = cnt + r; if (r < me) mine += rc[r]; tot += rc[r]; }
            for (int i = 0; i < tot; i++) a[i] = val(me, i);
            MPI_OK(MPI_Reduce_scatter(MPI_IN_PLACE, a, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
            for (int i = 0; i < rc[me]; i++) {
                int s = 0;
                for (int r = 0; r < n; r++) s += val(r, mine + i);
                CHECK(a[i] == s, "reduce_scatter inplace cnt=%d", cnt);
            }
        }
    }
    /* MINLOC / MAXLOC with ties: the lowest index wins. */
    {
        struct { int v, i; } in[2], out[2];
        in[0].v = me % 2; in[0].i = me;    /* min 0 at ranks 0,2,...: index 0 */
        in[1].v = 5;      in[1].i = n - me; /* all tie: smallest index 1 */
        MPI_OK(MPI_Allreduce(in, out, 2, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD));
        CHECK(out[0].v == 0 && out[0].i == 0, "minloc %d %d", out[0].v, out[0].i);
        CHECK(out[1].v == 5 && out[1].i == 1, "minloc tie %d %d", out[1].v, out[1].i);
        MPI_OK(MPI_Allreduce(in, out, 2, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD));
        CHECK(out[0].v == (n > 1) && out[0].i == (n > 1 ? 1 : 0), "maxloc %d %d", out[0].v, out[0].i);
        struct { double v; int i; } d = {(double)(me * 3 % 5), me}, dout;
        MPI_OK(MPI_Allreduce(&d, &dout, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
        double best = -1; int bi = -1;
        for (int r = 0; r < n; r++) if ((double)(r * 3 % 5) > best) { best = r * 3 % 5; bi = r; }
        CHECK(dout.v == best && dout.i == bi, "double_int maxloc");
    }
    MPI_OK(MPI_Op_free(&usum));
    MPI_OK(MPI_Op_free(&umat));
    CHECK(usum == MPI_OP_NULL, "op_free did not reset the handle");
    free(a); free(b); free(ref);
    return mt_finish();
}
