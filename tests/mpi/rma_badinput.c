/* rma_badinput: with MPI_ERRORS_RETURN on MPI_COMM_WORLD, MPI_COMM_SELF and the window, invalid
 * one-sided calls return the right error class (and a non-empty error string): window creation
 * with a negative size (MPI_ERR_SIZE), a disp_unit <= 0 (MPI_ERR_DISP), MPI_COMM_NULL; RMA calls
 * outside any epoch and unmatched synchronization (MPI_ERR_RMA_SYNC): put / get / accumulate
 * before the first fence, unlock / unlock_all / flush without a lock, complete without start,
 * wait without post, a second lock of the same target, a lock or a fence inside a lock_all epoch,
 * a put after the unlock; a bad lock type (MPI_ERR_LOCKTYPE), a bad fence assertion
 * (MPI_ERR_ASSERT); inside a fence epoch: target rank out of range (MPI_ERR_RANK), negative counts
 * (MPI_ERR_COUNT), MPI_DATATYPE_NULL (MPI_ERR_TYPE), a negative target displacement
 * (MPI_ERR_DISP), MPI_OP_NULL and a user-defined op for accumulate (MPI_ERR_OP), MPI_FLOAT for
 * compare-and-swap (MPI_ERR_TYPE); MPI_WIN_NULL and made-up window handles (MPI_ERR_WIN); invalid
 * keyvals for MPI_Win_get_attr (MPI_ERR_KEYVAL). A window's default error handler is
 * MPI_ERRORS_ARE_FATAL. A user window error handler (MPI_Win_create_errhandler) gets the window
 * and the error code of a failing call, which then returns that code, and the code given to
 * MPI_Win_call_errhandler; it stays attached after MPI_Errhandler_free. Failed calls move no data,
 * and the window works normally afterwards. Every "valid" argument names this rank itself, so a
 * missing check fails or hangs rather than passes.
 * Where Debian's MPICH 4.0.2 or Open MPI 4.1 (--mca osc ucx) deviates, the #ifdef says how; Open
 * MPI's osc rdma does not detect MPI_Win_complete without MPI_Win_start, its osc pt2pt says
 * MPI_ERR_RMA_CONFLICT for the second lock. */
#include "mpitest.h"

#define NB 16

static int wbuf[NB]; /* the window: wbuf[i] = val(me, i) unless a valid operation wrote it */
static int left, right;

static int val(int r, int i) { return r * 100003 + i * 7 + 11; }

#define EXPECT(call, cls) mt_check_error_class((call), (cls), #call)

static void check_window_untouched(const char *when) {
    for (int i = 0; i < NB; i++)
        CHECK(wbuf[i] == val(mt_rank, i), "%s: window[%d] = %d expected %d (a failed call moved data)", when, i,
              wbuf[i], val(mt_rank, i));
}

/* All ranks pass the same invalid arguments to the collective creation calls. */
static void test_create_errors(void) {
    static int buf[4];
    void *base = NULL;
    MPI_Win w = MPI_WIN_NULL;
    EXPECT(MPI_Win_create(buf, -1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w), MPI_ERR_SIZE);
    EXPECT(MPI_Win_create(buf, sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w), MPI_ERR_DISP);
    EXPECT(MPI_Win_create(buf, sizeof buf, -4, MPI_INFO_NULL, MPI_COMM_WORLD, &w), MPI_ERR_DISP);
    EXPECT(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_NULL, &w), MPI_ERR_COMM);
    EXPECT(MPI_Win_allocate(-1, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w), MPI_ERR_SIZE);
    EXPECT(MPI_Win_allocate(sizeof buf, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w), MPI_ERR_DISP);
}

/* Synchronization errors; the window is in no epoch at entry and exit. */
static void test_sync_errors(MPI_Win win) {
    int o[4] = {1, 2, 3, 4}, r[4] = {0, 0, 0, 0};
    const int me = mt_rank;
    EXPECT(MPI_Put(o, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(r, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(o, 1, MPI_INT, me, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    CHECK(r[0] == 0, "a get outside an epoch wrote %d", r[0]);
    EXPECT(MPI_Win_unlock(me, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(me, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);

    /* MPI-3.1 says MPI_ERR_LOCKTYPE and MPI_ERR_ASSERT; MPICH 4.0.2 says MPI_ERR_ARG for both. */
#ifdef MT_REFERENCE_MPICH_402
    const int locktype_class = MPI_ERR_ARG, assert_class = MPI_ERR_ARG;
#else
    const int locktype_class = MPI_ERR_LOCKTYPE, assert_class = MPI_ERR_ASSERT;
#endif
    EXPECT(MPI_Win_lock(12345, me, 0, win), locktype_class);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, mt_size + 3, 0, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_fence(0x7fff0000, win), assert_class);

    /* A second lock of the same target; the first one stays valid. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win), MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Get(r, 1, MPI_INT, me, 2, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(me, win));
    CHECK(r[0] == val(me, 2), "get in the lock epoch: %d", r[0]);
    EXPECT(MPI_Put(o, 1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC); /* after the unlock */

    /* Inside lock_all: no lock of a single target, no fence. */
    MPI_OK(MPI_Win_lock_all(0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Win_unlock_all(win));
    check_window_untouched("after the synchronization errors");
}

static void never_called(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)in, (void)inout, (void)len, (void)type;
    mt_fail(__FILE__, __LINE__, "never_called", "a user-defined op ran in an accumulate that must fail");
}

/* Argument errors inside a fence epoch. */
static void test_arg_errors(MPI_Win win) {
    int o[4] = {-1, -2, -3, -4}, r[4] = {0, 0, 0, 0}, res = 0;
    const int me = mt_rank, bad = mt_size + 5;
    MPI_OK(MPI_Win_fence(0, win));
    EXPECT(MPI_Put(o, 1, MPI_INT, bad, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(o, 1, MPI_INT, -7, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Get(r, 1, MPI_INT, bad, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Accumulate(o, 1, MPI_INT, bad, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RANK);

    EXPECT(MPI_Put(o, -1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(o, 1, MPI_INT, me, 0, -1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Get(r, -1, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Accumulate(o, -1, MPI_INT, me, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_COUNT);

    EXPECT(MPI_Put(o, 1, MPI_DATATYPE_NULL, me, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Put(o, 1, MPI_INT, me, 0, 1, MPI_DATATYPE_NULL, win), MPI_ERR_TYPE);
    EXPECT(MPI_Get(r, 1, MPI_DATATYPE_NULL, me, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(o, 1, MPI_DATATYPE_NULL, me, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&o[0], &o[1], &res, MPI_DATATYPE_NULL, me, 0, win), MPI_ERR_TYPE);
#ifndef OPEN_MPI /* Open MPI 4.1 accepts a floating-point type (MPI-3.1 11.3.4 allows integer types only) */
    float f = 1.0f, fc = 2.0f, fr = 0.0f;
    EXPECT(MPI_Compare_and_swap(&f, &fc, &fr, MPI_FLOAT, me, 0, win), MPI_ERR_TYPE);
#endif

    EXPECT(MPI_Put(o, 1, MPI_INT, me, -1, 1, MPI_INT, win), MPI_ERR_DISP);

    MPI_Op user_op;
    MPI_OK(MPI_Op_create(never_called, 1, &user_op));
    EXPECT(MPI_Accumulate(o, 1, MPI_INT, me, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT(MPI_Accumulate(o, 1, MPI_INT, me, 0, 1, MPI_INT, user_op, win), MPI_ERR_OP); /* MPI-3.1 11.3.4 */
    EXPECT(MPI_Get_accumulate(o, 1, MPI_INT, r, 1, MPI_INT, me, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
#ifndef OPEN_MPI /* Open MPI 4.1 (osc ucx, rdma and pt2pt) crashes on MPI_Fetch_and_op with MPI_OP_NULL */
    EXPECT(MPI_Fetch_and_op(o, &res, MPI_INT, me, 0, MPI_OP_NULL, win), MPI_ERR_OP);
#endif
    MPI_OK(MPI_Op_free(&user_op));
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    /* Detected by neither reference (MPICH returns success for MAXLOC on MPI_INT and then hangs at
     * the next fence; both let a put run past the end of the target's window): a region outside
     * the target's window, an operation not defined on the type, origin and target of different
     * sizes. */
    EXPECT(MPI_Put(o, 1, MPI_INT, me, NB, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(r, 4, MPI_INT, me, NB - 3, 4, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate(o, 1, MPI_INT, me, 0, 1, MPI_INT, MPI_MAXLOC, win), MPI_ERR_OP);
    EXPECT(MPI_Put(o, 2, MPI_INT, me, 0, 1, MPI_INT, win), MPI_ERR_ARG);
#endif
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 4; i++) CHECK(r[i] == 0, "a failed get wrote r[%d] = %d", i, r[i]);
    CHECK(res == 0, "a failed atomic wrote its result: %d", res);
    check_window_untouched("after the argument errors");
}

static void test_handle_errors(void) {
    int o = 1;
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Win w = MPI_WIN_NULL;
    EXPECT(MPI_Put(&o, 1, MPI_INT, mt_rank, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_set_name(MPI_WIN_NULL, "x"), MPI_ERR_WIN);
    EXPECT(MPI_Win_get_group(MPI_WIN_NULL, &g), MPI_ERR_WIN);
    EXPECT(MPI_Win_free(&w), MPI_ERR_WIN);
#ifndef OPEN_MPI /* Open MPI's handles are pointers: a made-up one would be dereferenced */
    MPI_Win bogus = (MPI_Win)(intptr_t)0x12345678;
    EXPECT(MPI_Put(&o, 1, MPI_INT, mt_rank, 0, 1, MPI_INT, bogus), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, bogus), MPI_ERR_WIN);
#endif
}

static void test_attr_errors(MPI_Win win) {
    void *v = NULL;
    int flag = -1;
    EXPECT(MPI_Win_get_attr(win, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
#ifndef OPEN_MPI
    /* Open MPI 4.1 returns MPI_SUCCESS for a communicator keyval on a window and MPI_ERR_OTHER for
     * a made-up keyval. */
    int ckv;
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckv, NULL));
    EXPECT(MPI_Win_get_attr(win, ckv, &v, &flag), MPI_ERR_KEYVAL);
    MPI_OK(MPI_Comm_free_keyval(&ckv));
    EXPECT(MPI_Win_get_attr(win, 123456, &v, &flag), MPI_ERR_KEYVAL);
#endif
    /* a valid window keyval without a value: not an error, flag 0 */
    int wkv;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkv, NULL));
    flag = -1;
    MPI_OK(MPI_Win_get_attr(win, wkv, &v, &flag));
    CHECK(flag == 0, "unset window attribute: flag %d", flag);
    MPI_OK(MPI_Win_free_keyval(&wkv));
}

static int h_calls;
static MPI_Win h_win;
static int h_code;

static void win_handler(MPI_Win *win, int *code, ...) {
    h_calls++;
    h_win = *win;
    h_code = *code;
}

static void test_user_errhandler(MPI_Win win) {
    MPI_Errhandler eh, got;
    MPI_OK(MPI_Win_create_errhandler(win_handler, &eh));
    MPI_OK(MPI_Win_set_errhandler(win, eh));
    MPI_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler did not return the handler set");
    MPI_OK(MPI_Errhandler_free(&got));

    /* a failing call: the handler sees the window and the code, the call returns the code */
    int o = 5;
    MPI_OK(MPI_Win_fence(0, win));
    int rc = MPI_Put(&o, 1, MPI_INT, mt_size + 4, 0, 1, MPI_INT, win);
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(h_calls == 1 && h_win == win && h_code == rc, "handler: %d calls, same window %d, code %d vs returned %d",
          h_calls, h_win == win, h_code, rc);
    mt_check_error_class(rc, MPI_ERR_RANK, "MPI_Put to a bad rank with a user handler");
    rc = MPI_Win_unlock(mt_rank, win);
    CHECK(h_calls == 2 && h_code == rc, "handler for MPI_Win_unlock: %d calls", h_calls);
    mt_check_error_class(rc, MPI_ERR_RMA_SYNC, "MPI_Win_unlock without a lock, user handler");

    /* MPI_Win_call_errhandler: the handler gets exactly the code; the call returns MPI_SUCCESS */
    int eclass, ecode;
    MPI_OK(MPI_Add_error_class(&eclass));
    MPI_OK(MPI_Add_error_code(eclass, &ecode));
    MPI_OK(MPI_Win_call_errhandler(win, ecode));
    CHECK(h_calls == 3 && h_win == win && h_code == ecode, "call_errhandler: %d calls, code %d expected %d", h_calls,
          h_code, ecode);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(h_calls == 4 && h_code == MPI_ERR_OTHER, "call_errhandler(MPI_ERR_OTHER): %d calls, code %d", h_calls,
          h_code);

    /* freeing the handle leaves the handler attached */
    MPI_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set MPI_ERRHANDLER_NULL");
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(h_calls == 5, "handler after MPI_Errhandler_free: %d calls", h_calls);

    /* MPI_ERRORS_RETURN again: MPI_Win_call_errhandler returns MPI_SUCCESS, the handler is not run */
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(h_calls == 5, "the user handler ran after it was replaced");
    check_window_untouched("after the error handler tests");
}

/* The window still works: put to the right neighbour, get from the left. */
static void test_still_works(MPI_Win win) {
    int o = val(mt_rank, 1000), r = -1;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&o, 1, MPI_INT, right, NB - 1, 1, MPI_INT, win));
    MPI_OK(MPI_Get(&r, 1, MPI_INT, left, 3, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(wbuf[NB - 1] == val(left, 1000), "put after the errors: %d expected %d", wbuf[NB - 1], val(left, 1000));
    CHECK(r == val(left, 3), "get after the errors: %d expected %d", r, val(left, 3));
    for (int i = 0; i < NB - 1; i++) CHECK(wbuf[i] == val(mt_rank, i), "window[%d] = %d", i, wbuf[i]);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "rma_badinput");
    right = (mt_rank + 1) % mt_size;
    left = (mt_rank - 1 + mt_size) % mt_size;
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    test_create_errors();
    test_handle_errors();

    for (int i = 0; i < NB; i++) wbuf[i] = val(mt_rank, i);
    MPI_Win win;
    MPI_OK(MPI_Win_create(wbuf, sizeof wbuf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Errhandler eh;
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL (MPI-3.1 8.3)");
    MPI_OK(MPI_Errhandler_free(&eh));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_get_errhandler(win, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_Win_get_errhandler after setting MPI_ERRORS_RETURN");
    MPI_OK(MPI_Errhandler_free(&eh));

    test_sync_errors(win);
    test_arg_errors(win);
    test_attr_errors(win);
    test_user_errhandler(win);
    test_still_works(win);
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    return mt_finish();
}
