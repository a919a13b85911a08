/* badinput_return: with MPI_ERRORS_RETURN, invalid arguments to MPI_Send,
 * MPI_Recv, MPI_Isend, MPI_Irecv and MPI_Probe return the right error class
 * (and a non-empty error string); an invalid request handle in MPI_Wait
 * gives MPI_ERR_REQUEST. Nothing is delivered by a failed call, and
 * communication still works afterwards. All "valid" arguments point at
 * this rank itself, so a missing check hangs or fails rather than passes. */
#include "mpitest.h"

enum { OP_SEND, OP_RECV, OP_ISEND, OP_IRECV, OP_PROBE, NOPS };
static const char *opname[NOPS] = {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Probe"};

static int call(int op, void *buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm) {
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    switch (op) {
    case OP_SEND: return MPI_Send(buf, count, dt, peer, tag, comm);
    case OP_RECV: return MPI_Recv(buf, count, dt, peer, tag, comm, &st);
    case OP_ISEND: return MPI_Isend(buf, count, dt, peer, tag, comm, &rq);
    case OP_IRECV: return MPI_Irecv(buf, count, dt, peer, tag, comm, &rq);
    default: return MPI_Probe(peer, tag, comm, &st);
    }
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "badinput_return");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    int buf[8] = {0}, me = mt_rank;
    char what[128];
    for (int op = 0; op < NOPS; op++) {
        snprintf(what, sizeof what, "%s invalid rank %d", opname[op], mt_size + 5);
        mt_check_error_class(call(op, buf, 4, MPI_INT, mt_size + 5, 1, MPI_COMM_WORLD), MPI_ERR_RANK, what);
        snprintf(what, sizeof what, "%s negative rank -7", opname[op]);
        mt_check_error_class(call(op, buf, 4, MPI_INT, -7, 1, MPI_COMM_WORLD), MPI_ERR_RANK, what);
        snprintf(what, sizeof what, "%s negative tag -5", opname[op]);
        mt_check_error_class(call(op, buf, 4, MPI_INT, me, -5, MPI_COMM_WORLD), MPI_ERR_TAG, what);
        if (op == OP_SEND || op == OP_ISEND) {
            snprintf(what, sizeof what, "%s tag MPI_ANY_TAG", opname[op]);
            mt_check_error_class(call(op, buf, 4, MPI_INT, me, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG, what);
            snprintf(what, sizeof what, "%s dest MPI_ANY_SOURCE", opname[op]);
            mt_check_error_class(call(op, buf, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD), MPI_ERR_RANK, what);
        }
        snprintf(what, sizeof what, "%s MPI_COMM_NULL", opname[op]);
        mt_check_error_class(call(op, buf, 4, MPI_INT, me, 1, MPI_COMM_NULL), MPI_ERR_COMM, what);
        if (op != OP_PROBE) {
            snprintf(what, sizeof what, "%s negative count", opname[op]);
            mt_check_error_class(call(op, buf, -3, MPI_INT, me, 1, MPI_COMM_WORLD), MPI_ERR_COUNT, what);
            snprintf(what, sizeof what, "%s MPI_DATATYPE_NULL", opname[op]);
            mt_check_error_class(call(op, buf, 4, MPI_DATATYPE_NULL, me, 1, MPI_COMM_WORLD), MPI_ERR_TYPE, what);
            snprintf(what, sizeof what, "%s NULL buffer with count 4", opname[op]);
            mt_check_error_class(call(op, NULL, 4, MPI_INT, me, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER, what);
        }
    }
    /* invalid request handle: a made-up value (MPICH ABI: MPI_Request is an int) */
    {
        MPI_Request bogus = (MPI_Request)(intptr_t)0x12345678;
        MPI_Status st;
        mt_check_error_class(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST, "MPI_Wait on a made-up request handle");
        int flag;
        bogus = (MPI_Request)(intptr_t)0x12345678;
        mt_check_error_class(MPI_Test(&bogus, &flag, &st), MPI_ERR_REQUEST, "MPI_Test on a made-up request handle");
    }
    /* error strings of all classes used are distinct from MPI_SUCCESS's */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int flag = 1;
    MPI_Status st;
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "a failed call delivered a message (source %d tag %d)", st.MPI_SOURCE, st.MPI_TAG);
    /* nobody sends again before every rank has probed */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* still works */
    int p = mt_partner(), v = 31 + mt_rank, r = -1;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, p, 3, &r, 1, MPI_INT, p, 3, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, p, 3, MPI_INT, 1);
    CHECK(r == 31 + p, "value %d", r);
    return mt_finish();
}
