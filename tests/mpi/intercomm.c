/* Intercommunicators: create from a split of WORLD (low half / high half), p2p across, remote
 * size and group, dup, merge (both high orders), test_inter. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "intercomm");
    if (mt_size < 2) return mt_finish();
    int half = mt_size / 2, low = mt_rank < half;
    MPI_Comm local, inter, dup, merged;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, mt_rank, &local));
    int lr, ln, rn, flag;
    MPI_OK(MPI_Comm_rank(local, &lr));
    MPI_OK(MPI_Comm_size(local, &ln));
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? half : 0, 77, &inter));
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "not an intercommunicator");
    MPI_OK(MPI_Comm_remote_size(inter, &rn));
    CHECK(rn == mt_size - ln, "remote size %d", rn);
    int r, n;
    MPI_OK(MPI_Comm_rank(inter, &r));
    MPI_OK(MPI_Comm_size(inter, &n));
    CHECK(r == lr && n == ln, "inter rank %d size %d", r, n);
    MPI_Group rg, wg;
    int tr[64], wr[64];
    MPI_OK(MPI_Comm_remote_group(inter, &rg));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < rn; i++) tr[i] = i;
    MPI_OK(MPI_Group_translate_ranks(rg, rn, tr, wg, wr));
    for (int i = 0; i < rn; i++) CHECK(wr[i] == (low ? half + i : i), "remote group [%d] = world %d", i, wr[i]);
    MPI_OK(MPI_Group_free(&rg));
    MPI_OK(MPI_Group_free(&wg));

    /* p2p across: local rank i talks to remote rank i % rn; everyone receives from all senders */
    int dest = lr % rn, out = 1000 * mt_rank + lr, got;
    MPI_Request sq;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, dest, 4, inter, &sq));
    for (int i = 0; i < rn; i++) {
        if (i % ln != lr) continue;
        MPI_Status st;
        MPI_OK(MPI_Recv(&got, 1, MPI_INT, i, 4, inter, &st));
        CHECK(st.MPI_SOURCE == i, "status source %d expected %d", st.MPI_SOURCE, i);
        int world_src = low ? half + i : i;
        CHECK(got == 1000 * world_src + i, "got %d from remote %d", got, i);
    }
    MPI_OK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    /* ANY_SOURCE on the intercomm reports the remote rank */
    if (lr == 0) {
        int v = mt_rank;
        MPI_Status st;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, MPI_ANY_SOURCE, 5, inter, &st));
        CHECK(st.MPI_SOURCE == 0 && got == (low ? half : 0), "any-source recv %d from %d", got, st.MPI_SOURCE);
    }

    MPI_OK(MPI_Comm_dup(inter, &dup));
    MPI_OK(MPI_Comm_test_inter(dup, &flag));
    CHECK(flag, "dup not inter");
    if (lr == 0) {
        int v = mt_rank;
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, 0, 6, &got, 1, MPI_INT, 0, 6, dup, MPI_STATUS_IGNORE));
        CHECK(got == (low ? half : 0), "dup p2p got %d", got);
    }
    MPI_OK(MPI_Comm_free(&dup));

    /* merge: high group second */
    MPI_OK(MPI_Intercomm_merge(inter, !low, &merged));
    MPI_OK(MPI_Comm_rank(merged, &r));
    MPI_OK(MPI_Comm_size(merged, &n));
    CHECK(n == mt_size && r == mt_rank, "merged rank %d size %d", r, n);
    int sum = 0, one = 1;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK(sum == mt_size, "merged allreduce %d", sum);
    MPI_OK(MPI_Comm_free(&merged));
    /* merge with low group high: it comes second */
    MPI_OK(MPI_Intercomm_merge(inter, low, &merged));
    MPI_OK(MPI_Comm_rank(merged, &r));
    CHECK(r == (low ? (mt_size - half) + lr : lr), "merged (low high) rank %d", r);
    MPI_OK(MPI_Barrier(merged));
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
    return mt_finish();
}
