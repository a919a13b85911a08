/* rma_shared: shared-memory windows and dynamic windows.
 * MPI_Win_allocate_shared over the ranks of a node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED):
 * parts of different sizes (one rank's empty), contiguous in rank order by default; each rank
 * stores into its own part, then reads every other part through MPI_Win_shared_query's pointer
 * (the lowest rank with memory for MPI_PROC_NULL); MPI_Put and MPI_Accumulate into a shared
 * window seen by direct loads; the flavor attribute. MPI_Win_create_dynamic: regions attached,
 * their addresses exchanged (MPI_Get_address), MPI_Put / MPI_Get / MPI_Fetch_and_op at
 * addresses in a lock_all epoch; detaching; bad input (MPI_Win_shared_query on a window that is
 * not shared, MPI_Win_attach on one that is not dynamic). */
#include "mpitest.h"

static int part_ints(int rank) { return rank == 1 ? 0 : 16 * (rank + 1); }

static void shared_window(void) {
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int me, n;
    MPI_OK(MPI_Comm_rank(node, &me));
    MPI_OK(MPI_Comm_size(node, &n));
    int *mine = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_shared((MPI_Aint)(part_ints(me) * sizeof(int)), sizeof(int), MPI_INFO_NULL, node, &mine,
                                   &win));
    int *flavor, flag;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", flag ? *flavor : -1);

    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < part_ints(me); ++i) mine[i] = me * 1000 + i;
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(win));
    char *prev_end = NULL;
    for (int r = 0; r < n; ++r) {
        MPI_Aint size;
        int unit;
        int *base;
        MPI_OK(MPI_Win_shared_query(win, r, &size, &unit, &base));
        CHECK(size == (MPI_Aint)(part_ints(r) * sizeof(int)) && unit == (int)sizeof(int),
              "rank %d's part: size %ld, disp_unit %d", r, (long)size, unit);
        if (prev_end && size > 0)
            CHECK((char *)base == prev_end, "rank %d's part does not follow rank %d's (contiguous by default)", r, r - 1);
        for (int i = 0; i < part_ints(r); ++i)
            CHECK(base[i] == r * 1000 + i, "rank %d's part [%d] = %d seen from rank %d", r, i, base[i], me);
        if (size > 0) prev_end = (char *)base + size;
    }
    MPI_Aint size;
    int unit;
    int *lowest, *zero;
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &unit, &lowest));
    MPI_OK(MPI_Win_shared_query(win, 0, &size, &unit, &zero));
    CHECK(lowest == zero && size == 16 * (MPI_Aint)sizeof(int), "MPI_PROC_NULL gave another part than rank 0's");
    MPI_OK(MPI_Barrier(node));

    /* RMA into the shared window: each rank adds its rank + 1 to element 0 of rank 0's part,
     * and puts its rank into slot `me` of it. */
    int one = me + 1;
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
    if (me >= 1 && me < 16) MPI_OK(MPI_Put(&me, 1, MPI_INT, 0, me, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Barrier(node));
    MPI_OK(MPI_Win_sync(win));
    CHECK(zero[0] == 0 + n * (n + 1) / 2, "accumulated %d, expected %d", zero[0], n * (n + 1) / 2);
    for (int r = 1; r < n && r < 16; ++r) CHECK(zero[r] == r, "slot %d = %d", r, zero[r]);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&node));
}

static void dynamic_window(void) {
    MPI_Win win;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *flavor, flag;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor %d", flag ? *flavor : -1);
    enum { N = 1000 };
    int *region = calloc(N, sizeof(int));
    long counter = 0;
    MPI_OK(MPI_Win_attach(win, region, N * sizeof(int)));
    MPI_OK(MPI_Win_attach(win, &counter, sizeof counter));
    MPI_Aint mine[2], *all = malloc(sizeof(MPI_Aint) * 2 * (size_t)mt_size);
    MPI_OK(MPI_Get_address(region, &mine[0]));
    MPI_OK(MPI_Get_address(&counter, &mine[1]));
    MPI_OK(MPI_Allgather(mine, 2, MPI_AINT, all, 2, MPI_AINT, MPI_COMM_WORLD));
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    int src[N], back[N];
    for (int i = 0; i < N; ++i) src[i] = mt_rank * 10000 + i;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put(src, N, MPI_INT, right, all[2 * right], N, MPI_INT, win));
    long add = 1, fetched = -1;
    for (int r = 0; r < mt_size; ++r) MPI_OK(MPI_Fetch_and_op(&add, &fetched, MPI_LONG, r, all[2 * r + 1], MPI_SUM, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) CHECK(region[i] == left * 10000 + i, "dynamic put [%d] = %d", i, region[i]);
    CHECK(counter == mt_size, "dynamic fetch_and_op counter %ld, expected %d", counter, mt_size);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Get(back, N, MPI_INT, left, all[2 * left], N, MPI_INT, win));
    MPI_OK(MPI_Win_unlock_all(win));
    int leftleft = (left + mt_size - 1) % mt_size;
    for (int i = 0; i < N; ++i) CHECK(back[i] == leftleft * 10000 + i, "dynamic get [%d] = %d", i, back[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_detach(win, region));
    MPI_OK(MPI_Win_detach(win, &counter));
    MPI_OK(MPI_Win_free(&win));
    free(region);
    free(all);
}

/* Passive target without the target in MPI: the other ranks lock rank 0 exclusively, add 1 to a
 * counter in its window and unlock, while rank 0 reads the counter in a loop that calls no MPI
 * function. It ends only if locks and accumulates need nothing from the target (RailMPI's
 * MPI_Win_allocate windows on one node; Open MPI's osc/sm). */
static void passive_without_target(void) {
    long *counter;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win));
    *counter = 0;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        long seen;
        do {
            seen = __atomic_load_n(counter, __ATOMIC_ACQUIRE);
        } while (seen < mt_size - 1);
        CHECK(seen == mt_size - 1, "counter %ld", seen);
    } else {
        long one = 1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_free(&win));
}

static void bad_input(void) {
    int *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Aint size;
    int unit, cls = 0;
    void *p;
    int rc = MPI_Win_shared_query(win, 0, &size, &unit, &p);
    MPI_Error_class(rc, &cls);
    /* MPI-3.1 11.2.3: only for MPI_Win_allocate_shared's windows. MPICH 4.0.2 answers for any window
     * of ranks on one node; Open MPI 4.1 returns MPI_ERR_WIN (its osc component answers this). */
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on an allocated window: class %d", cls);
#endif
    char x[8];
    rc = MPI_Win_attach(win, x, 8);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "MPI_Win_attach on an allocated window succeeded");
#if !defined(OPEN_MPI)
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "MPI_Win_attach on an allocated window: class %d", cls);
#endif
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_shared");
    shared_window();
#ifdef OPEN_MPI
    /* Open MPI 4.1 on one process picks its osc/sm component, which has no dynamic windows
     * (MPI_Win_create_dynamic: MPI_ERR_WIN). */
    if (mt_size > 1)
#endif
        dynamic_window();
    /* Only where the target takes no part: every rank on one node (a window across hosts is
     * messages the target must handle), not MPICH 4.0.2's ch4:ucx, not RailMPI with
     * RAILMPI_RMA_SHARED=0. */
    const char *shared = getenv("RAILMPI_RMA_SHARED");
    MPI_Comm node;
    int node_size;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Comm_size(node, &node_size));
    MPI_OK(MPI_Comm_free(&node));
#ifndef MT_REFERENCE_MPICH_402
    if ((!shared || atoi(shared) != 0) && node_size == mt_size) passive_without_target();
#else
    (void)shared;
    (void)node_size;
#endif
    bad_input();
    return mt_finish();
}
