/* Collectives on an intercommunicator (MPI_Intercomm_create between the even and the odd ranks
 * of MPI_COMM_WORLD): rooted operations with MPI_ROOT / MPI_PROC_NULL / remote root, and the
 * all-to-all forms whose results come from the remote group. Needs 2+ ranks.
 * Not registered in CMake yet: it links once MPI_Comm_split/MPI_Intercomm_create exist (comm
 * branch); validated with MPICH (run_mpich.sh, ONLY=coll_inter). */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "coll_inter");
    if (mt_size < 2) return mt_finish();
    const int color = mt_rank % 2;
    MPI_Comm local, inter;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &local));
    /* Remote leader: world rank 1 for the even group, 0 for the odd one. */
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color == 0 ? 1 : 0, 77, &inter));
    int me, n, rn;
    MPI_OK(MPI_Comm_rank(inter, &me));
    MPI_OK(MPI_Comm_size(inter, &n));
    MPI_OK(MPI_Comm_remote_size(inter, &rn));
    enum { C = 1000 };
    int *a = malloc(sizeof(int) * C * 8), *b = malloc(sizeof(int) * C * 8);
    /* Group 0 (even) and group 1 (odd) take turns as the root group; root = local rank 0. */
    for (int rg = 0; rg < 2; rg++) {
        const int in_root_group = color == rg;
        const int root = in_root_group ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        /* Bcast */
        for (int i = 0; i < C; i++) a[i] = (in_root_group && me == 0) ? i * 3 + rg : -1;
        MPI_OK(MPI_Bcast(a, C, MPI_INT, root, inter));
        if (!in_root_group)
            for (int i = 0; i < C; i++) CHECK(a[i] == i * 3 + rg, "inter bcast rg=%d", rg);
        /* Reduce: the root receives the sum over the remote group. */
        for (int i = 0; i < C; i++) { a[i] = me + i; b[i] = -1; }
        MPI_OK(MPI_Reduce(a, b, C, MPI_INT, MPI_SUM, root, inter));
        if (root == MPI_ROOT)
            for (int i = 0; i < C; i++) CHECK(b[i] == rn * (rn - 1) / 2 + rn * i, "inter reduce rg=%d", rg);
        /* Gather / Scatter. */
        for (int i = 0; i < 4; i++) a[i] = me * 10 + i;
        MPI_OK(MPI_Gather(a, 4, MPI_INT, b, 4, MPI_INT, root, inter));
        if (root == MPI_ROOT)
            for (int r = 0; r < rn; r++)
                for (int i = 0; i < 4; i++) CHECK(b[r * 4 + i] == r * 10 + i, "inter gather");
        if (root == MPI_ROOT)
            for (int r = 0; r < rn; r++)
                for (int i = 0; i < 4; i++) b[r * 4 + i] = r * 100 + i;
        MPI_OK(MPI_Scatter(b, 4, MPI_INT, a, 4, MPI_INT, root, inter));
        if (!in_root_group)
            for (int i = 0; i < 4; i++) CHECK(a[i] == me * 100 + i, "inter scatter");
    }
    /* Allreduce: each group gets the remote group's sum. */
    int x = mt_rank, y = -1;
    MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter));
    {
        int want = 0;
        for (int r = 0; r < mt_size; r++)
            if (r % 2 != color) want += r;
        CHECK(y == want, "inter allreduce %d want %d", y, want);
    }
    /* Allgather: the remote group's blocks. */
    MPI_OK(MPI_Allgather(&x, 1, MPI_INT, b, 1, MPI_INT, inter));
    for (int r = 0; r < rn; r++) CHECK(b[r] == 2 * r + (1 - color), "inter allgather [%d]=%d", r, b[r]);
    /* Alltoall: block i goes to remote rank i. */
    for (int i = 0; i < rn; i++) a[i] = mt_rank * 100 + i;
    MPI_OK(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, inter));
    for (int r = 0; r < rn; r++) CHECK(b[r] == (2 * r + (1 - color)) * 100 + me, "inter alltoall");
    /* Reduce_scatter_block: the remote group's sum, scattered over the local group (both groups
     * must hold the same total: equal group sizes). */
    if (n == rn) {
        for (int i = 0; i < n; i++) a[i] = i + 1;
        MPI_OK(MPI_Reduce_scatter_block(a, &y, 1, MPI_INT, MPI_SUM, inter));
        CHECK(y == rn * (me + 1), "inter reduce_scatter_block %d", y);
    }
    MPI_OK(MPI_Barrier(inter));
    MPI_Request r;
    MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, inter, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(y == (color == 0 ? (mt_size % 2 ? mt_size - 2 : mt_size - 1) : (mt_size % 2 ? mt_size - 1 : mt_size - 2)),
          "inter iallreduce max %d", y);
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&local));
    free(a); free(b);
    return mt_finish();
}
