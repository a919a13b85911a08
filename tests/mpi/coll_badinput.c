/* Bad arguments to collectives under MPI_ERRORS_RETURN: the call returns the right error class
 * on every rank (every check here fails on all ranks alike, so no rank is left waiting), and the
 * communicator stays usable afterwards. */
#include "mpitest.h"

static void expect_class(int rc, int c1, int c2, const char *what) {
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == c1 || cls == c2, "%s: error class %d, expected %d or %d", what, cls, c1, c2);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "coll_badinput");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    const int n = mt_size;
    int a[64] = {0}, b[64 * 64] = {0};
    MPI_Request req;

    /* Invalid roots. */
    mt_check_error_class(MPI_Bcast(a, 1, MPI_INT, n, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root=size");
    mt_check_error_class(MPI_Bcast(a, 1, MPI_INT, -7, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root=-7");
    mt_check_error_class(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, n + 3, MPI_COMM_WORLD), MPI_ERR_ROOT, "reduce root");
    mt_check_error_class(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, n, MPI_COMM_WORLD), MPI_ERR_ROOT, "gather root");
    mt_check_error_class(MPI_Scatter(b, 1, MPI_INT, a, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT, "scatter root");
    mt_check_error_class(MPI_Ibcast(a, 1, MPI_INT, n, MPI_COMM_WORLD, &req), MPI_ERR_ROOT, "ibcast root");

    /* Invalid operations, and operations not defined for the datatype. */
    mt_check_error_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP, "op null");
    mt_check_error_class(MPI_Allreduce(a, b, 1, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "sum on 2int");
    mt_check_error_class(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, MPI_COMM_WORLD), MPI_ERR_OP, "minloc on int");
    mt_check_error_class(MPI_Reduce(a, b, 1, MPI_FLOAT, MPI_BAND, 0, MPI_COMM_WORLD), MPI_ERR_OP, "band on float");
    mt_check_error_class(MPI_Iallreduce(a, b, 1, MPI_DOUBLE, MPI_BXOR, MPI_COMM_WORLD, &req), MPI_ERR_OP,
                         "ibxor on double");
    mt_check_error_class(MPI_Reduce_local(a, b, 1, MPI_BYTE, MPI_SUM), MPI_ERR_OP, "reduce_local sum on byte");
    {
        MPI_Op sum = MPI_SUM;
        mt_check_error_class(MPI_Op_free(&sum), MPI_ERR_OP, "op_free predefined");
    }

    /* Invalid datatypes and counts. */
    mt_check_error_class(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "bcast type null");
    /* (MPICH checks the op against the type first and reports MPI_ERR_OP.) */
    expect_class(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE, MPI_ERR_OP,
                 "allreduce type null");
    mt_check_error_class(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count -1");
#ifndef MT_REFERENCE_MPICH_402 /* MPICH 4.0.2 does not check this count */
    mt_check_error_class(MPI_Allreduce(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
                         "allreduce count -3");
#endif
    mt_check_error_class(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
                         "allgather sendcount -1");
    mt_check_error_class(MPI_Alltoall(a, 1, MPI_INT, b, -1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
                         "alltoall recvcount -1");

    /* MPI_IN_PLACE where it is not allowed. */
    expect_class(MPI_Reduce_local(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, MPI_ERR_ARG,
                 "reduce_local in place");
#ifndef MT_REFERENCE_MPICH_402 /* MPICH 4.0.2 does not reject it */
    expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, MPI_ERR_ARG,
                 "bcast in place");
#endif

    /* Counts that differ across ranks: the root sends 10 ints, the others expect 5. Rank 1
     * receives from the root directly in every algorithm for 2 ranks, and sees the truncation;
     * with more ranks, which ranks see it depends on the algorithm. */
    if (n == 2) {
        int big[10] = {0};
        int rc = MPI_Bcast(big, mt_rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD);
        if (mt_rank == 1) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "bcast with a longer message");
        MPI_Request r2;
        MPI_OK(MPI_Ibcast(big, mt_rank == 0 ? 10 : 5, MPI_INT, 0, MPI_COMM_WORLD, &r2));
        rc = MPI_Wait(&r2, MPI_STATUS_IGNORE);
        if (mt_rank == 1) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "ibcast with a longer message");
        /* Across RailMPI's small bcast cell limit (248 bytes): 249 from the root, 248 expected. */
        char b249[249] = {0};
        rc = MPI_Bcast(b249, mt_rank == 0 ? 249 : 248, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (mt_rank == 1) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "bcast of 249 bytes into 248");
        rc = MPI_Bcast(b249, mt_rank == 0 ? 248 : 247, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (mt_rank == 1) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "bcast of 248 bytes into 247");
        /* Allreduce and reduce: the rank that passes fewer elements sees the truncation, within
         * RailMPI's inline limit (224 bytes) and across it, whichever side passes more. */
        char c225[225] = {0}, r225[225];
        const int pairs[][2] = {{10, 5}, {225, 224}, {224, 225}, {5, 10}};
        for (int i = 0; i < 4; i++) {
            const int mine = pairs[i][mt_rank], other = pairs[i][1 - mt_rank];
            rc = MPI_Allreduce(c225, r225, mine, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
            if (mine < other) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "allreduce with a longer input");
            rc = MPI_Reduce(c225, r225, mine, MPI_CHAR, MPI_SUM, 1, MPI_COMM_WORLD);
            if (mt_rank == 1 && mine < other) expect_class(rc, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, "reduce with a longer input");
        }
    }

    expect_class(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER, MPI_ERR_ARG,
                 "allreduce recvbuf in place");
    expect_class(MPI_Allgather(a, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER, MPI_ERR_ARG,
                 "allgather recvbuf in place");
    if (n == 1) /* sendbuf matters at the root only: elsewhere the call would go ahead */
        expect_class(MPI_Scatter(MPI_IN_PLACE, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     MPI_ERR_ARG, "scatter sendbuf in place");

    /* Invalid communicator. */
    mt_check_error_class(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "barrier comm null");

    /* Still usable. */
    a[0] = mt_rank + 1;
    MPI_OK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(b[0] == n * (n + 1) / 2, "allreduce after errors: %d", b[0]);
    return mt_finish();
}
