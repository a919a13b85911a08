/* rma_lock: one-sided communication with passive-target synchronization. A counter on rank 0
 * incremented by every rank (100 times each, 6 when the ranks outnumber the CPUs; the first
 * argument overrides) with MPI_Accumulate under MPI_LOCK_EXCLUSIVE and with MPI_Fetch_and_op under
 * MPI_LOCK_SHARED: exact final values, and the fetched values of all ranks together are a
 * permutation of 0..N-1. A mutex built on MPI_Compare_and_swap guards a non-atomic get / increment
 * / put (no increment lost, the lock word holds the owner inside). MPI_LOCK_SHARED gets, one
 * target at a time and all targets locked at once. MPI_Win_lock_all with puts to every rank
 * completed by MPI_Win_flush_all, MPI_Win_flush, MPI_Win_flush_local (origin buffer reused at once)
 * and MPI_Win_flush_local_all, read back in the same epoch. MPI_Get_accumulate with MPI_SUM (the
 * fetched values form one chain of partial sums per target), MPI_REPLACE (an atomic swap: each
 * value fetched exactly once) and MPI_NO_OP (atomic read), MPI_Fetch_and_op with MPI_NO_OP.
 * MPI_Rput / MPI_Rget / MPI_Raccumulate / MPI_Rget_accumulate in a lock_all epoch completed by
 * MPI_Wait, MPI_Test and MPI_Waitall. RMA to the own rank under its own lock. Targets never have
 * to act: origins access, then every rank enters an MPI_Barrier (so a target that progresses
 * passive-target RMA only inside MPI calls does), then the owners check their memory inside a lock
 * of their own rank or after MPI_Win_sync.
 * Open MPI 4.1 passes with --mca osc ucx; its osc pt2pt hangs when one origin locks several
 * targets at once. */
#include "mpitest.h"

static int left, right;

static int val(int r, int i) { return r * 100003 + i * 7 + 11; }

static void free_win(MPI_Win *win) {
    MPI_OK(MPI_Win_free(win));
    CHECK(*win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
}

/* One allocated window of GW ints serves all tests but test_lock_all_flush. A test initializes
 * its part between init_begin (which locks the own rank exclusively, making the stores visible to
 * RMA in the separate model too, and zeroes the window) and init_end (unlock, then a barrier that
 * keeps every origin away until all owners have initialized). Every test ends with a barrier after
 * its last RMA call, so no access is in flight when the next one starts. */
#define GW 32
static MPI_Win gwin = MPI_WIN_NULL;
static int *gw = NULL;

static int *init_begin(MPI_Win *win) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, gwin));
    for (int i = 0; i < GW; i++) gw[i] = 0;
    *win = gwin;
    return gw;
}

static void init_end(void) {
    MPI_OK(MPI_Win_unlock(mt_rank, gwin));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Counter on rank 0: MPI_Accumulate under an exclusive lock, MPI_Fetch_and_op under a shared lock. */
static void test_counter(int iters) {
    MPI_Win win;
    int *w = init_begin(&win);
    init_end();
    const int one = 1;
    for (int k = 0; k < iters; k++) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    int *got = malloc(sizeof(int) * (size_t)iters);
    CHECK(got != NULL, "malloc");
    for (int k = 0; k < iters; k++) {
        got[k] = -1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Fetch_and_op(&one, &got[k], MPI_INT, 0, 1, MPI_SUM, win));
        MPI_OK(MPI_Win_unlock(0, win));
        /* each fetch completed before the next started, so this rank's values increase */
        CHECK(got[k] >= 0 && (k == 0 || got[k] > got[k - 1]), "Fetch_and_op %d fetched %d after %d", k, got[k],
              k ? got[k - 1] : -1);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int total = iters * mt_size;
    int *all = mt_rank == 0 ? malloc(sizeof(int) * (size_t)total) : NULL;
    CHECK(mt_rank != 0 || all != NULL, "malloc");
    MPI_OK(MPI_Gather(got, iters, MPI_INT, all, iters, MPI_INT, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(w[0] == total, "accumulate counter %d expected %d", w[0], total);
        CHECK(w[1] == total, "fetch_and_op counter %d expected %d", w[1], total);
        MPI_OK(MPI_Win_unlock(0, win));
        qsort(all, (size_t)total, sizeof(int), cmp_int);
        for (int i = 0; i < total; i++)
            CHECK(all[i] == i, "fetched values are not a permutation: sorted[%d] = %d", i, all[i]);
        free(all);
    }
    free(got);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Mutex from MPI_Compare_and_swap on rank 0's w[0] (0 = free, r+1 = held by r) guarding a
 * non-atomic increment of w[1] with MPI_Get and MPI_Put. Rank 0 only hosts it (it waits in the
 * barrier, so a target that progresses RMA only inside MPI calls does), except with 1 rank. */
static void test_cas_mutex(int iters) {
    MPI_Win win;
    int *w = init_begin(&win);
    init_end();
    const int free_v = 0, mine = mt_rank + 1;
    const int users = mt_size > 1 ? mt_size - 1 : 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < iters && (mt_rank > 0 || mt_size == 1); k++) {
        int res = -1, spins = 0;
        do {
            MPI_OK(MPI_Compare_and_swap(&mine, &free_v, &res, MPI_INT, 0, 0, win));
            MPI_OK(MPI_Win_flush(0, win));
            CHECK(res >= 0 && res <= mt_size && res != mine, "CAS acquire fetched %d", res);
            spins++;
        } while (res != free_v);
        int owner = -1, c = -1;
        MPI_OK(MPI_Fetch_and_op(NULL, &owner, MPI_INT, 0, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Get(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(owner == mine, "inside the mutex the lock word is %d, expected %d", owner, mine);
        CHECK(c >= 0 && c < iters * users, "counter %d inside the mutex", c);
        c++;
        MPI_OK(MPI_Put(&c, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Compare_and_swap(&free_v, &mine, &res, MPI_INT, 0, 0, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(res == mine, "CAS release fetched %d, expected %d", res, mine);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(w[0] == 0 && w[1] == iters * users, "mutex: lock word %d, counter %d expected %d", w[0], w[1],
              iters * users);
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

#define NS 16

/* Shared locks and gets: one target at a time (neighbours and self), then all targets locked together. */
static void test_shared_get(void) {
    MPI_Win win;
    int *w = init_begin(&win);
    for (int i = 0; i < NS; i++) w[i] = val(mt_rank, i);
    init_end();
    int *buf = malloc(sizeof(int) * NS * (size_t)mt_size);
    CHECK(buf != NULL, "malloc");
    int one_by_one[3] = {right, left, mt_rank};
    for (int j = 0; j < 3; j++) {
        int t = one_by_one[j];
        for (int i = 0; i < NS; i++) buf[i] = -1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MPI_OK(MPI_Get(buf, NS - 3, MPI_INT, t, 3, NS - 3, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(t, win));
        for (int i = 0; i < NS; i++)
            CHECK(buf[i] == (i < NS - 3 ? val(t, 3 + i) : -1), "shared get from %d: [%d] = %d", t, i, buf[i]);
    }
    for (int t = 0; t < mt_size; t++) MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    for (int t = 0; t < mt_size; t++) MPI_OK(MPI_Get(buf + t * NS, NS, MPI_INT, t, 0, NS, MPI_INT, win));
    for (int t = mt_size - 1; t >= 0; t--) MPI_OK(MPI_Win_unlock(t, win));
    for (int t = 0; t < mt_size; t++)
        for (int i = 0; i < NS; i++)
            CHECK(buf[t * NS + i] == val(t, i), "all locked: get from %d [%d] = %d", t, i, buf[t * NS + i]);
    free(buf);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* lock_all epoch spanning the test: puts to every rank, slot o*4+k of rank t gets val(o, t*10+k),
 * completed four ways and read back by the origin in the same epoch; after a barrier each owner
 * checks its memory after MPI_Win_sync. */
static void test_lock_all_flush(void) {
    int n = mt_size, nw = 4 * n;
    int *w = malloc(sizeof(int) * (size_t)nw);
    CHECK(w != NULL, "malloc");
    for (int i = 0; i < nw; i++) w[i] = -1; /* before MPI_Win_create: no synchronization needed */
    MPI_Win win;
    MPI_OK(MPI_Win_create(w, (MPI_Aint)nw * (MPI_Aint)sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    int *src = malloc(sizeof(int) * 4 * (size_t)n), *back = malloc(sizeof(int) * 4 * (size_t)n);
    CHECK(src && back, "malloc");
    for (int t = 0; t < n; t++)
        for (int k = 0; k < 4; k++) {
            src[t * 4 + k] = val(mt_rank, t * 10 + k);
            back[t * 4 + k] = -2;
        }
    MPI_OK(MPI_Win_lock_all(0, win));
    /* slot 0: flush_all */
    for (int t = 0; t < n; t++) MPI_OK(MPI_Put(&src[t * 4], 1, MPI_INT, t, mt_rank * 4, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush_all(win));
    /* slot 1: flush of each target */
    for (int t = 0; t < n; t++) {
        MPI_OK(MPI_Put(&src[t * 4 + 1], 1, MPI_INT, t, mt_rank * 4 + 1, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(t, win));
    }
    /* slot 2: flush_local, then the origin buffer is reused at once */
    int tmp;
    for (int t = 0; t < n; t++) {
        tmp = src[t * 4 + 2];
        MPI_OK(MPI_Put(&tmp, 1, MPI_INT, t, mt_rank * 4 + 2, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush_local(t, win));
        tmp = -12345;
    }
    /* slot 3: flush_local_all, buffer overwritten, then flush_all for remote completion */
    int *tmps = malloc(sizeof(int) * (size_t)n);
    CHECK(tmps != NULL, "malloc");
    for (int t = 0; t < n; t++) {
        tmps[t] = src[t * 4 + 3];
        MPI_OK(MPI_Put(&tmps[t], 1, MPI_INT, t, mt_rank * 4 + 3, 1, MPI_INT, win));
    }
    MPI_OK(MPI_Win_flush_local_all(win));
    for (int t = 0; t < n; t++) tmps[t] = -54321;
    MPI_OK(MPI_Win_flush_all(win));
    /* read back this rank's own slots of every target in the same epoch */
    for (int t = 0; t < n; t++) MPI_OK(MPI_Get(&back[t * 4], 4, MPI_INT, t, mt_rank * 4, 4, MPI_INT, win));
    MPI_OK(MPI_Win_flush_all(win));
    for (int t = 0; t < n; t++)
        for (int k = 0; k < 4; k++)
            CHECK(back[t * 4 + k] == src[t * 4 + k], "read back from %d slot %d: %d expected %d", t, k,
                  back[t * 4 + k], src[t * 4 + k]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every origin's puts are complete at their targets */
    MPI_OK(MPI_Win_sync(win));
    for (int o = 0; o < n; o++)
        for (int k = 0; k < 4; k++)
            CHECK(w[o * 4 + k] == val(o, mt_rank * 10 + k), "slot %d of origin %d = %d expected %d", k, o,
                  w[o * 4 + k], val(o, mt_rank * 10 + k));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(&win);
    free(w);
    free(src);
    free(back);
    free(tmps);
}

/* fetched[o * n + t] is what origin o fetched from target t when adding inc(o) = o + 1. Per target,
 * sorted by fetched value, each fetch must equal the previous fetch plus the previous increment. */
static void check_sum_chain(const int *fetched, int base, const char *what) {
    int n = mt_size;
    int *f = malloc(sizeof(int) * (size_t)n);
    CHECK(f != NULL, "malloc");
    for (int t = 0; t < n; t++) {
        for (int o = 0; o < n; o++) f[o] = fetched[o * n + t];
        int expect = base, used = 0;
        /* walk the chain: find the origin whose fetch equals the running sum */
        for (int step = 0; step < n; step++) {
            int found = -1;
            for (int o = 0; o < n; o++)
                if (!(used & (1 << o)) && f[o] == expect) found = o;
            CHECK(found >= 0, "%s: target %d, no origin fetched %d (step %d)", what, t, expect, step);
            used |= 1 << found;
            expect += found + 1;
        }
    }
    free(f);
}

static void test_get_accumulate(void) {
    int n = mt_size;
    MPI_Win win;
    int *w = init_begin(&win); /* [0] sum, [1] swap, [2..3] read only */
    w[1] = -1;
    w[2] = 2;
    w[3] = 3;
    init_end();
    int *fetched = malloc(sizeof(int) * (size_t)n), *swapped = malloc(sizeof(int) * (size_t)n);
    int *allf = malloc(sizeof(int) * (size_t)(n * n)), *alls = malloc(sizeof(int) * (size_t)(n * n));
    CHECK(fetched && swapped && allf && alls, "malloc");
    int inc = mt_rank + 1, me = mt_rank;
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int j = 0; j < n; j++) {
        int t = (mt_rank + j) % n;
        MPI_OK(MPI_Get_accumulate(&inc, 1, MPI_INT, &fetched[t], 1, MPI_INT, t, 0, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(&me, 1, MPI_INT, &swapped[t], 1, MPI_INT, t, 1, 1, MPI_INT, MPI_REPLACE, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Allgather(fetched, n, MPI_INT, allf, n, MPI_INT, MPI_COMM_WORLD));
    MPI_OK(MPI_Allgather(swapped, n, MPI_INT, alls, n, MPI_INT, MPI_COMM_WORLD));
    check_sum_chain(allf, 0, "Get_accumulate MPI_SUM");
    /* atomic read of every target: the sum, and the last swapped-in rank */
    int sum = -1, last = -2, viafop = -3, pair[2] = {-4, -4};
    int seen_last[64];
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < n; t++) {
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &sum, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_NO_OP, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &last, MPI_INT, t, 1, MPI_NO_OP, win));
        MPI_OK(MPI_Fetch_and_op(NULL, &viafop, MPI_INT, t, 0, MPI_NO_OP, win));
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, pair, 2, MPI_INT, t, 2, 2, MPI_INT, MPI_NO_OP, win));
        MPI_OK(MPI_Win_flush(t, win));
        CHECK(sum == n * (n + 1) / 2 && viafop == sum, "target %d: NO_OP read %d / %d expected %d", t, sum, viafop,
              n * (n + 1) / 2);
        CHECK(pair[0] == 2 && pair[1] == 3, "target %d: 2-int NO_OP read %d %d", t, pair[0], pair[1]);
        CHECK(last >= 0 && last < n, "target %d: swapped value %d", t, last);
        if (t < 64) seen_last[t] = last;
    }
    MPI_OK(MPI_Win_unlock_all(win));
    /* MPI_REPLACE swaps on target t: the fetched values and the final value are -1 and every rank,
     * each exactly once. */
    for (int t = 0; t < n && t < 64; t++) {
        int count[65] = {0}; /* value v counted at index v + 1 */
        count[seen_last[t] + 1]++;
        for (int o = 0; o < n; o++) {
            int v = alls[o * n + t];
            CHECK(v >= -1 && v < n, "swap on %d: origin %d fetched %d", t, o, v);
            count[v + 1]++;
        }
        for (int v = -1; v < n; v++)
            CHECK(count[v + 1] == 1, "swap on %d: value %d seen %d times (fetched + final)", t, v, count[v + 1]);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(fetched);
    free(swapped);
    free(allf);
    free(alls);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Request-based operations in a lock_all epoch. Window: [0,8) val(me, i) read by MPI_Rget,
 * [8,16) written by the left neighbour's MPI_Rput, [16] MPI_Raccumulate sum, [17]
 * MPI_Rget_accumulate sum. */
static void test_request_based(void) {
    int n = mt_size;
    MPI_Win win;
    int *w = init_begin(&win);
    for (int i = 0; i < 20; i++) w[i] = i < 8 ? val(mt_rank, i) : (i < 16 ? -1 : 0);
    init_end();
    int src[8], dst[8], inc = mt_rank + 1;
    int *fetched = malloc(sizeof(int) * (size_t)n), *allf = malloc(sizeof(int) * (size_t)(n * n));
    MPI_Request *rq = malloc(sizeof(MPI_Request) * (size_t)(2 * n + 1));
    MPI_Status *sts = malloc(sizeof(MPI_Status) * (size_t)(2 * n + 1)); /* not MPI_STATUSES_IGNORE: gcc
                                                                            warns on MPICH's (MPI_Status *)1 */
    CHECK(fetched && allf && rq && sts, "malloc");
    for (int i = 0; i < 8; i++) {
        src[i] = val(mt_rank, 100 + i);
        dst[i] = -3;
    }
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Request rput, rget;
    MPI_OK(MPI_Rput(src, 8, MPI_INT, right, 8, 8, MPI_INT, win, &rput));
    MPI_OK(MPI_Rget(dst, 8, MPI_INT, left, 0, 8, MPI_INT, win, &rget));
    for (int t = 0; t < n; t++) {
        fetched[t] = -1;
        MPI_OK(MPI_Raccumulate(&inc, 1, MPI_INT, t, 16, 1, MPI_INT, MPI_SUM, win, &rq[2 * t]));
        MPI_OK(MPI_Rget_accumulate(&inc, 1, MPI_INT, &fetched[t], 1, MPI_INT, t, 17, 1, MPI_INT, MPI_SUM, win,
                                   &rq[2 * t + 1]));
    }
    MPI_Status st;
    MPI_OK(MPI_Wait(&rget, &st));
    CHECK(rget == MPI_REQUEST_NULL, "MPI_Wait left the Rget request");
    for (int i = 0; i < 8; i++) CHECK(dst[i] == val(left, i), "Rget [%d] = %d expected %d", i, dst[i], val(left, i));
    int flag = 0;
    while (!flag) MPI_OK(MPI_Test(&rput, &flag, MPI_STATUS_IGNORE));
    CHECK(rput == MPI_REQUEST_NULL, "MPI_Test left the Rput request");
    src[0] = -999; /* local completion: the origin buffer may be reused */
    rq[2 * n] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Waitall(2 * n + 1, rq, sts));
    for (int t = 0; t < n; t++)
        CHECK(rq[2 * t] == MPI_REQUEST_NULL && rq[2 * t + 1] == MPI_REQUEST_NULL, "Waitall left a request");
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Allgather(fetched, n, MPI_INT, allf, n, MPI_INT, MPI_COMM_WORLD));
    check_sum_chain(allf, 0, "MPI_Rget_accumulate MPI_SUM");
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int i = 0; i < 8; i++) CHECK(w[i] == val(mt_rank, i), "Rget source changed [%d] = %d", i, w[i]);
    for (int i = 0; i < 8; i++)
        CHECK(w[8 + i] == val(left, 100 + i), "Rput [%d] = %d expected %d", i, w[8 + i], val(left, 100 + i));
    CHECK(w[16] == n * (n + 1) / 2 && w[17] == n * (n + 1) / 2, "Raccumulate sum %d, Rget_accumulate sum %d", w[16],
          w[17]);
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(fetched);
    free(allf);
    free(rq);
    free(sts);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* RMA to the own rank under its own locks, then local loads. */
static void test_own_lock(void) {
    MPI_Win win;
    int *w = init_begin(&win);
    init_end();
    int src[8], dst[8], add[8];
    for (int i = 0; i < 8; i++) {
        src[i] = val(mt_rank, 200 + i);
        add[i] = i * 1000;
        dst[i] = -1;
    }
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
    MPI_OK(MPI_Put(src, 8, MPI_INT, mt_rank, 0, 8, MPI_INT, win));
    MPI_OK(MPI_Win_flush(mt_rank, win));
    MPI_OK(MPI_Get(dst, 8, MPI_INT, mt_rank, 0, 8, MPI_INT, win));
    MPI_OK(MPI_Accumulate(add, 8, MPI_INT, mt_rank, 8, 8, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    for (int i = 0; i < 8; i++) CHECK(dst[i] == src[i], "own get [%d] = %d expected %d", i, dst[i], src[i]);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int i = 0; i < 8; i++) {
        CHECK(w[i] == src[i], "own put [%d] = %d expected %d", i, w[i], src[i]);
        CHECK(w[8 + i] == i * 1000, "own accumulate [%d] = %d", i, w[8 + i]);
    }
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_lock");
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank - 1 + mt_size) % mt_size;
    CHECK(mt_size <= 30, "the bit set in check_sum_chain supports at most 30 ranks, not %d", mt_size);
    /* Counter increments per rank: 100, or 6 when the ranks outnumber the CPUs (a busy-polling
     * reference MPI then needs a time slice of the target for every lock round trip); the first
     * argument overrides. The mutex gets a tenth of that (at least 2). */
    int iters = mt_iters(argc, argv, mt_size <= mt_machine_cpus() ? 100 : 6);
    MPI_OK(MPI_Win_allocate(GW * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &gw, &gwin));
    test_own_lock();
    test_counter(iters);
    test_cas_mutex(iters / 10 > 2 ? iters / 10 : 2);
    test_shared_get();
    test_lock_all_flush();
    test_get_accumulate();
    test_request_based();
    free_win(&gwin);
    return mt_finish();
}
