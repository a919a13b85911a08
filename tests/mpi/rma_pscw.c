/* rma_pscw: generalized active-target synchronization (MPI_Win_post / MPI_Win_start /
 * MPI_Win_complete / MPI_Win_wait and MPI_Win_test). Ring neighbours expose to and access each
 * other (groups of the distinct ranks among left and right; itself with 1 rank): in each epoch
 * every rank puts into both neighbours, gets from both and accumulates into both, with values that
 * change per epoch; epochs in a row alternate MPI_Win_wait and polling MPI_Win_test until it
 * reports completion. Then one-directional epochs (expose to the left, access the right), an epoch
 * with MPI_MODE_NOCHECK, and disjoint roles (even ranks only expose, odd ranks only access, a rank
 * without a partner takes no part). Gets are checked after MPI_Win_complete, puts and accumulates
 * after MPI_Win_wait / MPI_Win_test; window memory is only stored to outside exposure epochs.
 * Open MPI 4.1 passes with --mca osc ucx (its default osc rdma hangs with 1 rank). */
#include "mpitest.h"

/* Window layout (ints): [0,16) read by gets, [16,24) put by the left neighbour, [24,32) put by the
 * right neighbour, [32] accumulated by both. */
#define NWIN 40
#define FROM_LEFT 16
#define FROM_RIGHT 24
#define ACC 32

static int left, right;

static int val(int r, int i) { return r * 100003 + i * 7 + 11; }

/* The group of the distinct world ranks in r[0..n). */
static MPI_Group make_group(const int *r, int n) {
    MPI_Group world, g;
    int uniq[2], k = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int j = 0; j < k; j++) dup |= uniq[j] == r[i];
        if (!dup) uniq[k++] = r[i];
    }
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    MPI_OK(MPI_Group_incl(world, k, uniq, &g));
    MPI_OK(MPI_Group_free(&world));
    return g;
}

static void end_exposure(MPI_Win win, int use_test) {
    if (use_test) {
        int flag = 0;
        while (!flag) MPI_OK(MPI_Win_test(win, &flag));
    } else {
        MPI_OK(MPI_Win_wait(win));
    }
}

static void reset_local(int *w, int epoch) {
    for (int i = 0; i < 16; i++) w[i] = val(mt_rank, epoch * 16 + i);
    for (int i = 16; i < NWIN; i++) w[i] = -1;
    w[ACC] = 0;
}

/* Both neighbours both ways: put, get and accumulate into left and right. */
static void test_ring(MPI_Win win, int *w, int epochs) {
    const int nb[2] = {left, right};
    MPI_Group g = make_group(nb, 2);
    for (int e = 0; e < epochs; e++) {
        reset_local(w, e);
        int src[8], gl[8], gr[8], inc = mt_rank + 1;
        for (int k = 0; k < 8; k++) {
            src[k] = val(mt_rank, 1000 + e * 8 + k);
            gl[k] = gr[k] = -2;
        }
        MPI_OK(MPI_Win_post(g, 0, win));
        MPI_OK(MPI_Win_start(g, 0, win));
        MPI_OK(MPI_Put(src, 8, MPI_INT, right, FROM_LEFT, 8, MPI_INT, win));
        MPI_OK(MPI_Put(src, 8, MPI_INT, left, FROM_RIGHT, 8, MPI_INT, win));
        MPI_OK(MPI_Get(gl, 8, MPI_INT, left, 0, 8, MPI_INT, win));
        MPI_OK(MPI_Get(gr, 8, MPI_INT, right, 4, 8, MPI_INT, win));
        MPI_OK(MPI_Accumulate(&inc, 1, MPI_INT, left, ACC, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(&inc, 1, MPI_INT, right, ACC, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_complete(win));
        for (int k = 0; k < 8; k++) {
            CHECK(gl[k] == val(left, e * 16 + k), "epoch %d get from left [%d] = %d expected %d", e, k, gl[k],
                  val(left, e * 16 + k));
            CHECK(gr[k] == val(right, e * 16 + 4 + k), "epoch %d get from right [%d] = %d expected %d", e, k, gr[k],
                  val(right, e * 16 + 4 + k));
        }
        end_exposure(win, e % 2);
        for (int k = 0; k < 8; k++) {
            CHECK(w[FROM_LEFT + k] == val(left, 1000 + e * 8 + k), "epoch %d put from left [%d] = %d expected %d", e,
                  k, w[FROM_LEFT + k], val(left, 1000 + e * 8 + k));
            CHECK(w[FROM_RIGHT + k] == val(right, 1000 + e * 8 + k), "epoch %d put from right [%d] = %d expected %d",
                  e, k, w[FROM_RIGHT + k], val(right, 1000 + e * 8 + k));
        }
        for (int i = 0; i < 16; i++) CHECK(w[i] == val(mt_rank, e * 16 + i), "epoch %d: get region changed", e);
        CHECK(w[ACC] == left + 1 + right + 1, "epoch %d accumulate %d expected %d", e, w[ACC], left + right + 2);
    }
    MPI_OK(MPI_Group_free(&g));
}

/* Expose to the left neighbour only, access the right one only: a directed ring. */
static void test_one_way(MPI_Win win, int *w, int epochs) {
    MPI_Group gl = make_group(&left, 1), gr = make_group(&right, 1);
    for (int e = 0; e < epochs; e++) {
        reset_local(w, 100 + e);
        int src[8];
        for (int k = 0; k < 8; k++) src[k] = val(mt_rank, 2000 + e * 8 + k);
        MPI_OK(MPI_Win_post(gl, 0, win));
        MPI_OK(MPI_Win_start(gr, 0, win));
        MPI_OK(MPI_Put(src, 8, MPI_INT, right, FROM_LEFT, 8, MPI_INT, win));
        MPI_OK(MPI_Win_complete(win));
        end_exposure(win, e % 2 == 0);
        for (int k = 0; k < 8; k++) {
            CHECK(w[FROM_LEFT + k] == val(left, 2000 + e * 8 + k), "one-way epoch %d [%d] = %d expected %d", e, k,
                  w[FROM_LEFT + k], val(left, 2000 + e * 8 + k));
            CHECK(w[FROM_RIGHT + k] == -1, "one-way epoch %d: untouched [%d] = %d", e, k, w[FROM_RIGHT + k]);
        }
    }
    MPI_OK(MPI_Group_free(&gl));
    MPI_OK(MPI_Group_free(&gr));
}

/* MPI_MODE_NOCHECK: every post is known to precede the matching start (the barrier in between). */
static void test_nocheck(MPI_Win win, int *w) {
    const int nb[2] = {left, right};
    MPI_Group g = make_group(nb, 2);
    reset_local(w, 200);
    int src[8];
    for (int k = 0; k < 8; k++) src[k] = val(mt_rank, 3000 + k);
    MPI_OK(MPI_Win_post(g, MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_start(g, MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Put(src, 8, MPI_INT, right, FROM_LEFT, 8, MPI_INT, win));
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
    for (int k = 0; k < 8; k++)
        CHECK(w[FROM_LEFT + k] == val(left, 3000 + k), "NOCHECK epoch [%d] = %d expected %d", k, w[FROM_LEFT + k],
              val(left, 3000 + k));
    MPI_OK(MPI_Group_free(&g));
}

/* Even rank r exposes to r+1 (if any), odd rank r accesses r-1; nobody does both. */
static void test_disjoint_roles(MPI_Win win, int *w, int epochs) {
    int even = mt_rank % 2 == 0, partner = even ? mt_rank + 1 : mt_rank - 1;
    if (partner >= mt_size) partner = -1;
    MPI_Group g = MPI_GROUP_NULL;
    if (partner >= 0) g = make_group(&partner, 1);
    for (int e = 0; e < epochs; e++) {
        reset_local(w, 300 + e);
        if (partner < 0) continue;
        if (even) {
            MPI_OK(MPI_Win_post(g, 0, win));
            end_exposure(win, e % 2);
            for (int k = 0; k < 8; k++)
                CHECK(w[FROM_RIGHT + k] == val(partner, 4000 + e * 8 + k), "disjoint epoch %d [%d] = %d expected %d",
                      e, k, w[FROM_RIGHT + k], val(partner, 4000 + e * 8 + k));
            CHECK(w[ACC] == 5 * (partner + 1), "disjoint epoch %d accumulate %d", e, w[ACC]);
        } else {
            int src[8], got[16], inc = mt_rank + 1;
            for (int k = 0; k < 8; k++) src[k] = val(mt_rank, 4000 + e * 8 + k);
            for (int k = 0; k < 16; k++) got[k] = -3;
            MPI_OK(MPI_Win_start(g, 0, win));
            MPI_OK(MPI_Put(src, 8, MPI_INT, partner, FROM_RIGHT, 8, MPI_INT, win));
            MPI_OK(MPI_Get(got, 16, MPI_INT, partner, 0, 16, MPI_INT, win));
            for (int a = 0; a < 5; a++)
                MPI_OK(MPI_Accumulate(&inc, 1, MPI_INT, partner, ACC, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_complete(win));
            for (int k = 0; k < 16; k++)
                CHECK(got[k] == val(partner, (300 + e) * 16 + k), "disjoint epoch %d get [%d] = %d", e, k, got[k]);
        }
    }
    if (g != MPI_GROUP_NULL) MPI_OK(MPI_Group_free(&g));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_pscw");
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank - 1 + mt_size) % mt_size;
    const int epochs = mt_iters(argc, argv, 10);
    int *w = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(NWIN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w, &win));
    test_ring(win, w, epochs);
    test_one_way(win, w, epochs);
    test_nocheck(win, w);
    test_disjoint_roles(win, w, epochs);
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");

    /* The same ring over a window of user memory. */
    static int user[NWIN];
    MPI_OK(MPI_Win_create(user, sizeof user, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    test_ring(win, user, 3);
    MPI_OK(MPI_Win_free(&win));
    return mt_finish();
}
