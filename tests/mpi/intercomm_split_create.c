/* MPI_Comm_split, MPI_Comm_split_type and MPI_Comm_create on an intercommunicator (MPI-2.2): the result joins the
 * selected processes of both groups; MPI_COMM_NULL where a process is not selected or the other
 * side selected nobody. Checked: sizes, ranks, both groups (translated to world ranks), p2p and an
 * intercommunicator allreduce across the new communicator, 60 split/free cycles, Comm_split_type
 * (MPI_COMM_TYPE_SHARED, MPI_UNDEFINED) on the intercommunicator, a group that is
 * not in the local group (MPI_ERR_GROUP) and a negative colour (MPI_ERR_ARG). */
#include "mpitest.h"

static int half; /* world ranks 0..half-1: the low group; half..size-1: the high group */

static int world_of(int low, int lr) { return low ? lr : half + lr; }

/* Checks intercommunicator `nc` against the expected groups (world ranks, in rank order), then
 * talks across it. want_null: nc must be MPI_COMM_NULL. */
static void check_inter(const char *what, MPI_Comm nc, int want_null, const int *local, int ln, const int *remote,
                        int rn) {
    if (want_null) {
        CHECK(nc == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL", what);
        return;
    }
    CHECK(nc != MPI_COMM_NULL, "%s: got MPI_COMM_NULL", what);
    int flag, n, r, m;
    MPI_OK(MPI_Comm_test_inter(nc, &flag));
    CHECK(flag, "%s: not an intercommunicator", what);
    MPI_OK(MPI_Comm_size(nc, &n));
    MPI_OK(MPI_Comm_rank(nc, &r));
    MPI_OK(MPI_Comm_remote_size(nc, &m));
    CHECK(n == ln && m == rn, "%s: size %d remote size %d, expected %d and %d", what, n, m, ln, rn);
    CHECK(local[r] == mt_rank, "%s: rank %d is world %d, not me (%d)", what, r, local[r], mt_rank);
    MPI_Group wg, lg, rg;
    int idx[64], wr[64];
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Comm_group(nc, &lg));
    MPI_OK(MPI_Comm_remote_group(nc, &rg));
    for (int i = 0; i < 64; i++) idx[i] = i;
    MPI_OK(MPI_Group_translate_ranks(lg, n, idx, wg, wr));
    for (int i = 0; i < n; i++) CHECK(wr[i] == local[i], "%s: local rank %d is world %d, expected %d", what, i, wr[i], local[i]);
    MPI_OK(MPI_Group_translate_ranks(rg, m, idx, wg, wr));
    for (int i = 0; i < m; i++)
        CHECK(wr[i] == remote[i], "%s: remote rank %d is world %d, expected %d", what, i, wr[i], remote[i]);
    MPI_OK(MPI_Group_free(&wg));
    MPI_OK(MPI_Group_free(&lg));
    MPI_OK(MPI_Group_free(&rg));

    /* p2p: local rank i sends its world rank to remote rank i % m */
    MPI_Request sq;
    int out = mt_rank, got;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, r % m, 9, nc, &sq));
    for (int j = 0; j < m; j++) {
        if (j % n != r) continue;
        MPI_Status st;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, j, 9, nc, &st));
        CHECK(st.MPI_SOURCE == j && got == remote[j], "%s: got %d from %d, expected %d", what, got, st.MPI_SOURCE,
              remote[j]);
    }
    MPI_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    /* intercommunicator allreduce: the sum of the remote group's world ranks */
    int sum = 0, expect = 0;
    MPI_OK(MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, nc));
    for (int j = 0; j < m; j++) expect += remote[j];
    CHECK(sum == expect, "%s: allreduce %d expected %d", what, sum, expect);
}

/* Colour of local rank lr of a group in test `t`: parity, one colour only the high group has,
 * and MPI_UNDEFINED for local rank 2 of the low group. */
static int color_of(int t, int low, int lr, int ln) {
    if (low && lr == 2) return MPI_UNDEFINED;
    if (!low && lr == ln - 1 && ln > 1) return 7 + t;
    return (lr + t) % 2;
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "intercomm_split_create");
    if (mt_size < 2) return mt_finish();
    half = mt_size / 2;
    const int low = mt_rank < half;
    MPI_Comm local, inter, nc;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 31, &inter));
    int lr, ln, rn;
    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_size(inter, &ln));
    MPI_OK(MPI_Comm_remote_size(inter, &rn));
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));

    /* Split: colours per color_of, key = -local rank (reverse order); 60 cycles. */
    for (int t = 0; t < 60; t++) {
        const int mine = color_of(t, low, lr, ln);
        MPI_OK(MPI_Comm_split(inter, mine, -lr, &nc));
        int lw[64], rw[64], nl = 0, nr = 0;
        for (int i = ln - 1; i >= 0; i--)
            if (mine != MPI_UNDEFINED && color_of(t, low, i, ln) == mine) lw[nl++] = world_of(low, i);
        for (int i = rn - 1; i >= 0; i--)
            if (mine != MPI_UNDEFINED && color_of(t, !low, i, rn) == mine) rw[nr++] = world_of(!low, i);
        check_inter("split", nc, mine == MPI_UNDEFINED || nr == 0, lw, nl, rw, nr);
        if (nc != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&nc));
    }

    /* Create: the low group picks its even local ranks, the high group all but its rank 0 (or
     * everyone when it has one process). */
    MPI_Group g, sub;
    MPI_OK(MPI_Comm_group(inter, &g));
    {
        int pick[64], np = 0;
        for (int i = 0; i < ln; i++)
            if (low ? i % 2 == 0 : (i > 0 || ln == 1)) pick[np++] = i;
        MPI_OK(MPI_Group_incl(g, np, pick, &sub));
        int lw[64], rw[64], nl = 0, nr = 0, me_in = 0;
        for (int i = 0; i < np; i++) {
            lw[nl++] = world_of(low, pick[i]);
            me_in |= pick[i] == lr;
        }
        for (int i = 0; i < rn; i++)
            if (!low ? i % 2 == 0 : (i > 0 || rn == 1)) rw[nr++] = world_of(!low, i);
        MPI_OK(MPI_Comm_create(inter, sub, &nc));
        check_inter("create", nc, !me_in, lw, nl, rw, nr);
        if (nc != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&nc));
        MPI_OK(MPI_Group_free(&sub));
    }
    /* Create where the high group selects nobody: MPI_COMM_NULL everywhere. */
    {
        MPI_OK(MPI_Comm_create(inter, low ? g : MPI_GROUP_EMPTY, &nc));
        CHECK(nc == MPI_COMM_NULL, "create with an empty remote side: not MPI_COMM_NULL");
    }
    /* Create with the whole local group: the same groups as inter. */
    {
        int lw[64], rw[64];
        for (int i = 0; i < ln; i++) lw[i] = world_of(low, i);
        for (int i = 0; i < rn; i++) rw[i] = world_of(!low, i);
        MPI_OK(MPI_Comm_create(inter, g, &nc));
        check_inter("create all", nc, 0, lw, ln, rw, rn);
        MPI_OK(MPI_Comm_free(&nc));
    }
    MPI_OK(MPI_Group_free(&g));
    /* Split_type SHARED: the processes of my node in both groups (one node: the same groups as
     * inter); MPI_UNDEFINED: MPI_COMM_NULL. */
    {
        char name[MPI_MAX_PROCESSOR_NAME], all[64][MPI_MAX_PROCESSOR_NAME];
        int len;
        MPI_OK(MPI_Get_processor_name(name, &len));
        MPI_OK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                             MPI_COMM_WORLD));
        int lw[64], rw[64], nl = 0, nr = 0;
        for (int i = 0; i < ln; i++)
            if (!strcmp(all[world_of(low, i)], name)) lw[nl++] = world_of(low, i);
        for (int i = 0; i < rn; i++)
            if (!strcmp(all[world_of(!low, i)], name)) rw[nr++] = world_of(!low, i);
        MPI_OK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc));
        check_inter("split_type shared", nc, nr == 0, lw, nl, rw, nr);
        if (nc != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&nc));
        MPI_OK(MPI_Comm_split_type(inter, MPI_UNDEFINED, 0, MPI_INFO_NULL, &nc));
        CHECK(nc == MPI_COMM_NULL, "split_type MPI_UNDEFINED: not MPI_COMM_NULL");
    }

    /* Bad input: a group of the remote side's processes; a negative colour. */
    {
        MPI_Group rg;
        MPI_OK(MPI_Comm_remote_group(inter, &rg));
        int rc = MPI_Comm_create(inter, rg, &nc), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_GROUP, "create with the remote group: class %d, expected MPI_ERR_GROUP", cls);
        MPI_OK(MPI_Group_free(&rg));
#ifndef MT_REFERENCE_MPICH_402 /* MPICH 4.0.2 accepts a negative colour */
        rc = MPI_Comm_split(inter, -5, 0, &nc);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_ARG, "split with colour -5: class %d, expected MPI_ERR_ARG", cls);
#endif
    }

    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
    return mt_finish();
}
