/* Groups: incl/excl/range, set operations, translate_ranks, compare, Comm_group, Comm_create
 * and Comm_create_group with p2p inside. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "groups");
    MPI_Group world, evens, odds, u, inter, diff, rev, g;
    int n, r, res;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_size(world, &n));
    CHECK(n == mt_size, "group size %d", n);
    MPI_OK(MPI_Group_rank(world, &r));
    CHECK(r == mt_rank, "group rank %d", r);

    int ne = (mt_size + 1) / 2, ranks[64], ranks2[64];
    for (int i = 0; i < ne; i++) ranks[i] = 2 * i;
    MPI_OK(MPI_Group_incl(world, ne, ranks, &evens));
    MPI_OK(MPI_Group_excl(world, ne, ranks, &odds));
    MPI_OK(MPI_Group_size(odds, &n));
    CHECK(n == mt_size / 2, "odds size %d", n);
    MPI_OK(MPI_Group_rank(evens, &r));
    CHECK(r == (mt_rank % 2 == 0 ? mt_rank / 2 : MPI_UNDEFINED), "evens rank %d", r);

    MPI_OK(MPI_Group_union(odds, evens, &u));
    MPI_OK(MPI_Group_size(u, &n));
    CHECK(n == mt_size, "union size %d", n);
    MPI_OK(MPI_Group_compare(u, world, &res));
    CHECK(res == (mt_size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare union/world %d", res);
    MPI_OK(MPI_Group_intersection(evens, odds, &inter));
    MPI_OK(MPI_Group_size(inter, &n));
    CHECK(n == 0, "intersection size %d", n);
    MPI_OK(MPI_Group_compare(inter, MPI_GROUP_EMPTY, &res));
    CHECK(res == MPI_IDENT, "empty compare %d", res);
    MPI_OK(MPI_Group_difference(world, odds, &diff));
    MPI_OK(MPI_Group_compare(diff, evens, &res));
    CHECK(res == MPI_IDENT, "difference compare %d", res);

    int range[1][3] = {{mt_size - 1, 0, -1}};
    MPI_OK(MPI_Group_range_incl(world, 1, range, &rev));
    for (int i = 0; i < mt_size; i++) ranks[i] = i;
    MPI_OK(MPI_Group_translate_ranks(rev, mt_size, ranks, world, ranks2));
    for (int i = 0; i < mt_size; i++) CHECK(ranks2[i] == mt_size - 1 - i, "translate[%d]=%d", i, ranks2[i]);
    int skip[1][3] = {{0, mt_size - 1, 2}};
    MPI_OK(MPI_Group_range_excl(world, 1, skip, &g));
    MPI_OK(MPI_Group_compare(g, odds, &res));
    CHECK(res == MPI_IDENT, "range_excl compare %d", res);
    MPI_OK(MPI_Group_free(&g));
    ranks[0] = MPI_PROC_NULL;
    MPI_OK(MPI_Group_translate_ranks(world, 1, ranks, rev, ranks2));
    CHECK(ranks2[0] == MPI_PROC_NULL, "translate PROC_NULL %d", ranks2[0]);

    /* Comm_create on the reversed group: rank order reversed; a ring inside it. */
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    MPI_OK(MPI_Comm_rank(c, &r));
    CHECK(r == mt_size - 1 - mt_rank, "created rank %d", r);
    int token = r, got = -1;
    MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, (r + 1) % mt_size, 5, &got, 1, MPI_INT, (r - 1 + mt_size) % mt_size, 5, c,
                        MPI_STATUS_IGNORE));
    CHECK(got == (r - 1 + mt_size) % mt_size, "ring got %d", got);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "freed comm not NULL");

    /* Comm_create with evens only: odds get MPI_COMM_NULL. */
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (mt_rank % 2) {
        CHECK(c == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        MPI_OK(MPI_Comm_size(c, &n));
        CHECK(n == ne, "evens comm size %d", n);
        int sum = 0, one = mt_rank;
        MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == ne * (ne - 1), "evens sum %d", sum);
        MPI_OK(MPI_Comm_free(&c));
    }
    /* Comm_create_group: only odds call it. */
    if (mt_rank % 2) {
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 7, &c));
        MPI_OK(MPI_Comm_rank(c, &r));
        CHECK(r == mt_rank / 2, "create_group rank %d", r);
        MPI_OK(MPI_Barrier(c));
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_Group all[] = {world, evens, odds, u, inter, diff, rev};
    for (int i = 0; i < 7; i++) {
        MPI_OK(MPI_Group_free(&all[i]));
        CHECK(all[i] == MPI_GROUP_NULL, "group %d not NULL after free", i);
    }
    return mt_finish();
}
