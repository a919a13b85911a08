/* MPI_Comm_idup is non-blocking: the new communicator is usable once the request completes, and
 * the agreement progresses while the program does other work between MPI_Test calls. Checked:
 * one idup with a Test loop; idup returning before the last process calls it; eight outstanding idups on one parent; idup mixed with other
 * collectives (Iallreduce, Ibarrier, a blocking Allreduce, a blocking Comm_dup and Comm_split
 * while it is in flight); idups on two overlapping communicators started in different orders by
 * different ranks; idup of an intercommunicator; attributes copied; 200 idup/free cycles. Every
 * communicator's traffic stays its own (messages sent on all of them and received in reverse
 * order). Bad input: MPI_COMM_NULL (MPI_ERR_COMM), NULL request (MPI_ERR_ARG). */
#include "mpitest.h"

/* Tests `rq` until it completes, doing other work in between; returns the number of tests. */
static long test_loop(MPI_Request *rq) {
    int done = 0;
    long tests = 0;
    volatile double work = 0;
    while (!done) {
        for (int k = 0; k < 200; ++k) work += k * 0.5;
        MPI_OK(MPI_Test(rq, &done, MPI_STATUS_IGNORE));
        tests++;
    }
    return tests;
}

/* Each communicator carries its own index around a ring; receives are posted in reverse order so
 * that two communicators sharing a context would swap messages. */
static void check_isolated(const char *what, MPI_Comm *comms, int k) {
    MPI_Request rq[2 * 16];
    int out[16], in[16];
    for (int i = 0; i < k; ++i) {
        int me, n;
        MPI_OK(MPI_Comm_rank(comms[i], &me));
        MPI_OK(MPI_Comm_size(comms[i], &n));
        out[i] = 1000 + i;
        MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, (me + 1) % n, 0, comms[i], &rq[i]));
    }
    for (int i = k - 1; i >= 0; --i) {
        int me, n;
        MPI_OK(MPI_Comm_rank(comms[i], &me));
        MPI_OK(MPI_Comm_size(comms[i], &n));
        MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, (me - 1 + n) % n, 0, comms[i], &rq[k + i]));
    }
    MPI_Status st[2 * 16];
    MPI_OK(MPI_Waitall(2 * k, rq, st));
    for (int i = 0; i < k; ++i) CHECK(in[i] == 1000 + i, "%s: communicator %d got %d", what, i, in[i]);
    for (int i = 0; i < k; ++i) {
        int sum = 0, n;
        MPI_OK(MPI_Comm_size(comms[i], &n));
        MPI_OK(MPI_Allreduce(&i, &sum, 1, MPI_INT, MPI_SUM, comms[i]));
        CHECK(sum == i * n, "%s: allreduce on communicator %d gave %d", what, i, sum);
    }
}

static int copied_attr = 0;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag) {
    (void)c, (void)key, (void)extra;
    copied_attr++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "comm_idup");
    MPI_Comm dup[16];
    MPI_Request rq[16];

    /* One idup, Test loop, then use it. */
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[0], &rq[0]));
    test_loop(&rq[0]);
    int cmp;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup[0], &cmp));
    CHECK(cmp == MPI_CONGRUENT, "idup compare %d", cmp);
    check_isolated("one idup", dup, 1);
    MPI_OK(MPI_Comm_free(&dup[0]));

    /* idup returns at once: rank 0 calls it only after every other rank has told it (on WORLD)
     * that its own call returned. A blocking agreement would never get there. */
    if (mt_rank != 0) {
        int x = 1;
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[0], &rq[0]));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
    } else {
        for (int r = 1; r < mt_size; ++r) {
            int x;
            MPI_OK(MPI_Recv(&x, 1, MPI_INT, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[0], &rq[0]));
    }
    test_loop(&rq[0]);
    check_isolated("idup before the last process calls it", dup, 1);
    MPI_OK(MPI_Comm_free(&dup[0]));

    /* Eight outstanding idups on one parent, completed in reverse order. */
    for (int i = 0; i < 8; ++i) MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[i], &rq[i]));
    for (int i = 7; i >= 0; --i) test_loop(&rq[i]);
    check_isolated("eight idups", dup, 8);
    for (int i = 0; i < 8; ++i) MPI_OK(MPI_Comm_free(&dup[i]));

    /* idup mixed with other collectives, and blocking communicator creation while it runs. */
    {
        int x = mt_rank + 1, sum = 0, sum2 = 0;
        MPI_Request other[2];
        MPI_Comm blocking_dup, split;
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[0], &rq[0]));
        MPI_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &other[0]));
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[1], &rq[1]));
        MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &other[1]));
        MPI_OK(MPI_Allreduce(&x, &sum2, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &blocking_dup));
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -mt_rank, &split));
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(2, other, st));
        test_loop(&rq[1]);
        test_loop(&rq[0]);
        CHECK(sum == mt_size * (mt_size + 1) / 2 && sum2 == sum, "mixed: allreduce %d %d", sum, sum2);
        dup[2] = blocking_dup;
        dup[3] = split;
        check_isolated("idup mixed with collectives", dup, 4);
        for (int i = 0; i < 4; ++i) MPI_OK(MPI_Comm_free(&dup[i]));
    }

    /* Two overlapping parents (WORLD and a half), idups started in rank-dependent order. */
    {
        MPI_Comm half;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &half));
        if (mt_rank % 2) {
            MPI_OK(MPI_Comm_idup(half, &dup[0], &rq[0]));
            MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[1], &rq[1]));
        } else {
            MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[1], &rq[1]));
            MPI_OK(MPI_Comm_idup(half, &dup[0], &rq[0]));
        }
        MPI_Status st[2];
        MPI_OK(MPI_Waitall(2, rq, st));
        dup[2] = half;
        check_isolated("overlapping parents", dup, 3);
        for (int i = 0; i < 3; ++i) MPI_OK(MPI_Comm_free(&dup[i]));
    }

    /* idup of an intercommunicator (low half / high half). */
    if (mt_size >= 2) {
        const int h = mt_size / 2, low = mt_rank < h;
        MPI_Comm local, inter, idup_inter;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
        MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? h : 0, 5, &inter));
        MPI_OK(MPI_Comm_idup(inter, &idup_inter, &rq[0]));
        test_loop(&rq[0]);
        int flag, rn, lr, got = -1, sum = 0, expect = 0;
        MPI_OK(MPI_Comm_test_inter(idup_inter, &flag));
        MPI_OK(MPI_Comm_remote_size(idup_inter, &rn));
        MPI_OK(MPI_Comm_rank(idup_inter, &lr));
        CHECK(flag && rn == (low ? mt_size - h : h), "inter idup: inter %d remote size %d", flag, rn);
        if (lr == 0) {
            int v = mt_rank;
            MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, idup_inter, MPI_STATUS_IGNORE));
            CHECK(got == (low ? h : 0), "inter idup: leader got %d", got);
        }
        MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, idup_inter));
        for (int r = low ? h : 0; r < (low ? mt_size : h); ++r) expect += r;
        CHECK(sum == expect, "inter idup: allreduce %d expected %d", sum, expect);
        MPI_OK(MPI_Comm_free(&idup_inter));
        MPI_OK(MPI_Comm_free(&inter));
        MPI_OK(MPI_Comm_free(&local));
    }

    /* Attributes are copied by the copy callbacks. */
    {
        int key, value = 42, *got = NULL, flag = 0;
        MPI_Comm base;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base));
        MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
        MPI_OK(MPI_Comm_set_attr(base, key, &value));
        MPI_OK(MPI_Comm_idup(base, &dup[0], &rq[0]));
        test_loop(&rq[0]);
        MPI_OK(MPI_Comm_get_attr(dup[0], key, &got, &flag));
        CHECK(flag && got == &value && copied_attr == 1, "attribute not copied (flag %d, copies %d)", flag,
              copied_attr);
        MPI_OK(MPI_Comm_free(&dup[0]));
        MPI_OK(MPI_Comm_free(&base));
        MPI_OK(MPI_Comm_free_keyval(&key));
    }

    /* Many cycles: ids are given back and reused. */
    for (int i = 0; i < 200; ++i) {
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup[0], &rq[0]));
        /* Test loops are slow with more ranks than cores (each spinning rank holds its core):
         * most cycles wait. */
        if (i % 20 == 0) test_loop(&rq[0]);
        else MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        if (i % 50 == 0) check_isolated("cycles", dup, 1);
        MPI_OK(MPI_Comm_free(&dup[0]));
    }

    /* Bad input. */
    {
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int cls = -1;
        MPI_Comm nc;
        MPI_Error_class(MPI_Comm_idup(MPI_COMM_NULL, &nc, &rq[0]), &cls);
        CHECK(cls == MPI_ERR_COMM, "idup of MPI_COMM_NULL: class %d", cls);
        MPI_Error_class(MPI_Comm_idup(MPI_COMM_WORLD, &nc, NULL), &cls);
        CHECK(cls == MPI_ERR_ARG, "idup with a NULL request: class %d", cls);
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
    return mt_finish();
}
