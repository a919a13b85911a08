/* grequest: generalized requests (MPI_Grequest_start / MPI_Grequest_complete). The program's
 * functions are counted and checked: the query function fills the status that MPI_Wait, MPI_Test,
 * MPI_Waitall, MPI_Waitany and MPI_Request_get_status return, once per call that reports it; the
 * free function runs once, when a wait or test consumes the request or, for a request freed with
 * MPI_Request_free before it completed, at MPI_Grequest_complete (the query never); the cancel
 * function is told whether the request had completed. A query's error code comes back from
 * MPI_Wait (MPI_ERRORS_RETURN) and as MPI_ERR_IN_STATUS from MPI_Waitall. Generalized requests
 * mixed with a real receive in MPI_Waitany. Bad input: MPI_Grequest_complete on a request that is
 * not generalized, on one completed twice, a NULL request for MPI_Grequest_start. */
#include "mpitest.h"

typedef struct {
    int queries, frees, cancels, last_complete_flag;
    int query_error;  /* what the query function returns */
    int elements;     /* MPI_INTs the "operation" moved */
} Op;

static int query(void *state, MPI_Status *status) {
    Op *op = state;
    op->queries++;
    status->MPI_SOURCE = mt_rank;
    status->MPI_TAG = 42;
    MPI_Status_set_elements(status, MPI_INT, op->elements);
    MPI_Status_set_cancelled(status, op->cancels > 0);
    return op->query_error;
}

static int release(void *state) {
    ((Op *)state)->frees++;
    return MPI_SUCCESS;
}

static int cancel(void *state, int complete) {
    Op *op = state;
    op->cancels++;
    op->last_complete_flag = complete;
    return MPI_SUCCESS;
}

static void start(Op *op, int elements, MPI_Request *r) {
    memset(op, 0, sizeof *op);
    op->elements = elements;
    MPI_OK(MPI_Grequest_start(query, release, cancel, op, r));
    CHECK(*r != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "grequest");
    Op op, op2;
    MPI_Request r, rs[3];
    MPI_Status st;
    int flag = -1, count = -1, cancelled = -1;

    /* Test before and after completion, then the status of the query. */
    start(&op, 5, &r);
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag == 0 && op.queries == 0 && op.frees == 0, "Test before completion: flag %d, %d queries, %d frees",
          flag, op.queries, op.frees);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(flag == 1 && op.queries == 1 && op.frees == 0 && r != MPI_REQUEST_NULL,
          "MPI_Request_get_status: flag %d, %d queries, %d frees", flag, op.queries, op.frees);
    MPI_OK(MPI_Test(&r, &flag, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(flag == 1 && r == MPI_REQUEST_NULL && op.queries == 2 && op.frees == 1,
          "Test after completion: flag %d, %d queries, %d frees", flag, op.queries, op.frees);
    CHECK(st.MPI_SOURCE == mt_rank && st.MPI_TAG == 42 && count == 5 && !cancelled,
          "status: source %d tag %d count %d cancelled %d", st.MPI_SOURCE, st.MPI_TAG, count, cancelled);

    /* MPI_Wait with MPI_STATUS_IGNORE: the query still runs (on a status of MPI's own). */
    start(&op, 1, &r);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL && op.queries == 1 && op.frees == 1, "Wait: %d queries, %d frees", op.queries,
          op.frees);

#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    /* Freed before it completed: the free function runs at MPI_Grequest_complete, no query (MPI-3.1
     * 12.2: at whichever of the two calls comes last). MPICH 4.0.2 runs it in MPI_Request_free;
     * Open MPI 4.1 crashes in the MPI_Grequest_complete. */
    start(&op, 1, &r);
    MPI_Request kept = r;
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL && op.frees == 0, "Request_free before completion: %d frees", op.frees);
    MPI_OK(MPI_Grequest_complete(kept));
    CHECK(op.frees == 1 && op.queries == 0, "Grequest_complete after Request_free: %d frees, %d queries", op.frees,
          op.queries);
#endif
    /* Freed after it completed: the free function at once. */
    start(&op, 1, &r);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(op.frees == 1 && op.queries == 0, "Request_free after completion: %d frees, %d queries", op.frees,
          op.queries);

    /* Cancel: told whether it completed; the query reports the cancellation. */
    start(&op, 0, &r);
    MPI_OK(MPI_Cancel(&r));
    CHECK(op.cancels == 1 && op.last_complete_flag == 0, "Cancel: %d calls, complete=%d", op.cancels,
          op.last_complete_flag);
    MPI_OK(MPI_Grequest_complete(r));
    MPI_OK(MPI_Cancel(&r));
    CHECK(op.cancels == 2 && op.last_complete_flag == 1, "Cancel after completion: complete=%d",
          op.last_complete_flag);
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled == 1 && op.frees == 1, "cancelled %d, %d frees", cancelled, op.frees);

    /* Waitany over a receive (from this rank itself) and two generalized requests. */
    int out = 7 + mt_rank, in = -1, index = -1;
    start(&op, 2, &rs[0]);
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, mt_rank, 3, MPI_COMM_WORLD, &rs[1]));
    start(&op2, 3, &rs[2]);
    MPI_OK(MPI_Grequest_complete(rs[2]));
    MPI_OK(MPI_Waitany(3, rs, &index, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(index == 2 && count == 3 && op2.queries == 1 && op2.frees == 1 && op.queries == 0,
          "Waitany: index %d count %d", index, count);
    MPI_OK(MPI_Send(&out, 1, MPI_INT, mt_rank, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Waitany(3, rs, &index, &st));
    CHECK(index == 1 && in == out && st.MPI_SOURCE == mt_rank && st.MPI_TAG == 3, "Waitany: index %d, got %d",
          index, in);
    MPI_OK(MPI_Grequest_complete(rs[0]));
    MPI_OK(MPI_Waitall(3, rs, MPI_STATUSES_IGNORE));
    CHECK(op.queries == 1 && op.frees == 1 && rs[0] == MPI_REQUEST_NULL, "Waitall: %d queries, %d frees",
          op.queries, op.frees);

    /* A query's error code: from MPI_Wait, and in the statuses of MPI_Waitall. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    start(&op, 1, &r);
    op.query_error = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(r));
    int rc = MPI_Wait(&r, &st);
    mt_check_error_class(rc, MPI_ERR_OTHER, "MPI_Wait of a generalized request whose query failed");
    CHECK(r == MPI_REQUEST_NULL && op.frees == 1, "failed query: request %s, %d frees",
          r == MPI_REQUEST_NULL ? "freed" : "kept", op.frees);
    MPI_Status sts[2];
    start(&op, 1, &rs[0]);
    start(&op2, 1, &rs[1]);
    op2.query_error = MPI_ERR_OTHER;
    MPI_OK(MPI_Grequest_complete(rs[0]));
    MPI_OK(MPI_Grequest_complete(rs[1]));
    rc = MPI_Waitall(2, rs, sts);
    mt_check_error_class(rc, MPI_ERR_IN_STATUS, "MPI_Waitall with a failed query");
    int cls = -1;
    MPI_OK(MPI_Error_class(sts[1].MPI_ERROR, &cls));
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && cls == MPI_ERR_OTHER, "Waitall statuses: %d %d (class %d)",
          sts[0].MPI_ERROR, sts[1].MPI_ERROR, cls);

    /* Bad input (Open MPI 4.1 crashes on the first two). */
#ifndef OPEN_MPI
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, mt_rank, 4, MPI_COMM_WORLD, &r));
    rc = MPI_Grequest_complete(r);
    mt_check_error_class(rc, MPI_ERR_REQUEST, "MPI_Grequest_complete of a receive");
    MPI_OK(MPI_Send(&out, 1, MPI_INT, mt_rank, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rc = MPI_Grequest_complete(MPI_REQUEST_NULL);
    mt_check_error_class(rc, MPI_ERR_REQUEST, "MPI_Grequest_complete of MPI_REQUEST_NULL");
#endif
    start(&op, 1, &r);
    MPI_OK(MPI_Grequest_complete(r));
#if !defined(MT_REFERENCE_MPICH_402) && !defined(OPEN_MPI)
    rc = MPI_Grequest_complete(r); /* MPICH 4.0.2 accepts a second completion */
    mt_check_error_class(rc, MPI_ERR_REQUEST, "MPI_Grequest_complete twice");
#endif
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    rc = MPI_Grequest_start(query, release, cancel, &op, NULL);
#ifdef OPEN_MPI
    mt_check_error_class(rc, MPI_ERR_REQUEST, "MPI_Grequest_start with request NULL"); /* MPICH: MPI_ERR_ARG */
#else
    mt_check_error_class(rc, MPI_ERR_ARG, "MPI_Grequest_start with request NULL");
#endif
    return mt_finish();
}
