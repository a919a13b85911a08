/* Bad datatype input with MPI_ERRORS_RETURN: uncommitted and freed types (MPI_ERR_TYPE), bad
 * constructor arguments (MPI_ERR_COUNT / MPI_ERR_ARG), truncation in MPI_Pack / MPI_Unpack. */
#include "mpitest.h"

static void expect_class(int rc, int cls, const char *what) {
    int got = -1;
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    MPI_OK(MPI_Error_class(rc, &got));
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "badinput_datatype");
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int buf[64] = {0};
    MPI_Datatype v, nt;
    MPI_Request rq;
    /* Uncommitted. */
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
    expect_class(MPI_Send(buf, 1, v, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send with uncommitted type");
    expect_class(MPI_Irecv(buf, 1, v, 0, 0, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE, "Irecv with uncommitted type");
    char pk[64];
    int pos = 0;
    expect_class(MPI_Pack(buf, 1, v, pk, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE, "Pack with uncommitted type");
    /* Queries work on uncommitted types. */
    int sz;
    MPI_OK(MPI_Type_size(v, &sz));
    CHECK(sz == 8, "size %d", sz);
    /* Freed. Using a freed handle is erroneous; RailMPI detects it, MPICH (the reference the
     * test is validated against, run_mpich.sh) does not and hangs or crashes. */
    MPI_Datatype copy = v;
    MPI_OK(MPI_Type_commit(&v));
    MPI_OK(MPI_Type_free(&v));
    CHECK(v == MPI_DATATYPE_NULL, "Type_free did not reset the handle");
#ifndef MT_REFERENCE_MPICH_402
    expect_class(MPI_Send(buf, 1, copy, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send with freed type");
    expect_class(MPI_Type_size(copy, &sz), MPI_ERR_TYPE, "Type_size of freed type");
    expect_class(MPI_Type_free(&copy), MPI_ERR_TYPE, "Type_free twice");
#else
    (void)copy;
#endif
    MPI_Datatype predefined = MPI_INT;
    expect_class(MPI_Type_free(&predefined), MPI_ERR_TYPE, "Type_free of MPI_INT");
    expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "Send MPI_DATATYPE_NULL");
    /* Constructors. */
    expect_class(MPI_Type_contiguous(-1, MPI_INT, &nt), MPI_ERR_COUNT, "contiguous count -1");
    expect_class(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &nt), MPI_ERR_TYPE, "contiguous of NULL type");
    expect_class(MPI_Type_vector(-2, 1, 1, MPI_INT, &nt), MPI_ERR_COUNT, "vector count -2");
    expect_class(MPI_Type_vector(2, -1, 1, MPI_INT, &nt), MPI_ERR_COUNT, "vector blocklength -1");
    int bl[2] = {1, -3}, disp[2] = {0, 4};
    expect_class(MPI_Type_indexed(2, bl, disp, MPI_INT, &nt), MPI_ERR_COUNT, "indexed blocklength -3");
    expect_class(MPI_Type_indexed(-1, bl, disp, MPI_INT, &nt), MPI_ERR_COUNT, "indexed count -1");
    MPI_Aint ad[2] = {0, 8};
    MPI_Datatype tys[2] = {MPI_INT, MPI_DATATYPE_NULL};
    int bl2[2] = {1, 1};
    expect_class(MPI_Type_create_struct(2, bl2, ad, tys, &nt), MPI_ERR_TYPE, "struct with NULL type");
    int sizes[2] = {4, 4}, subs[2] = {5, 1}, starts[2] = {0, 0};
    int subs2[2] = {2, 2}, starts2[2] = {3, 0};
    expect_class(MPI_Type_create_subarray(2, sizes, subs2, starts, 99, MPI_INT, &nt), MPI_ERR_ARG, "subarray order");
#ifndef MT_REFERENCE_MPICH_402
    /* MPICH 4.0.2 checks neither subarray ranges, nor Pack/Unpack buffer space, nor datarep. */
    expect_class(MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &nt), MPI_ERR_ARG,
                 "subarray subsize > size");
    expect_class(MPI_Type_create_subarray(2, sizes, subs2, starts2, MPI_ORDER_C, MPI_INT, &nt), MPI_ERR_ARG,
                 "subarray start out of range");
    /* Pack / Unpack truncation. */
    pos = 0;
    expect_class(MPI_Pack(buf, 20, MPI_INT, pk, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "Pack overflow");
    pos = 0;
    expect_class(MPI_Unpack(pk, 64, &pos, buf, 20, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE, "Unpack overflow");
    MPI_Aint apos = 0;
    expect_class(MPI_Pack_external("native", buf, 1, MPI_INT, pk, 64, &apos), MPI_ERR_ARG, "Pack_external datarep");
#endif
    /* Still working afterwards. */
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &nt));
    MPI_OK(MPI_Type_commit(&nt));
    MPI_OK(MPI_Type_free(&nt));
    return mt_finish();
}
