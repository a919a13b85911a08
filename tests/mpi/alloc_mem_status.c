/* alloc_mem_status: MPI_Alloc_mem / MPI_Free_mem (aligned memory used as send and receive
 * buffers around a ring), MPI_Status_set_elements(_x) read back by MPI_Get_elements(_x) and
 * MPI_Get_count (source, tag and the cancelled flag kept), MPI_Status_c2f / MPI_Status_f2c,
 * MPI_Type_match_size for every
 * Fortran size, MPI_Comm_get_parent (MPI_COMM_NULL: mpiexec started every rank) and
 * MPI_Pcontrol; with MPI_ERRORS_RETURN, their bad arguments give the right error class. */
#include "mpitest.h" /* first: defines _GNU_SOURCE */

#include <stdint.h>

static void alloc_mem_ring(void) {
    enum { N = 100000 };
    int *send = NULL, *recv = NULL;
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "alloc_shared_noncontig", "true")); /* a hint: ignored */
    MPI_OK(MPI_Alloc_mem((MPI_Aint)(N * sizeof(int)), MPI_INFO_NULL, &send));
    MPI_OK(MPI_Alloc_mem((MPI_Aint)(N * sizeof(int)), info, &recv));
    MPI_OK(MPI_Info_free(&info));
    CHECK(send != NULL && recv != NULL && send != recv, "Alloc_mem gave %p and %p", (void *)send, (void *)recv);
    CHECK(((uintptr_t)send & 7) == 0 && ((uintptr_t)recv & 7) == 0, "misaligned %p %p", (void *)send, (void *)recv);
    for (int i = 0; i < N; i++) send[i] = mt_rank * N + i;
    const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(send, N, MPI_INT, right, 7, recv, N, MPI_INT, left, 7, MPI_COMM_WORLD, &st));
    CHECK_STATUS(st, left, 7, MPI_INT, N);
    for (int i = 0; i < N; i++) CHECK(recv[i] == left * N + i, "recv[%d] = %d, want %d", i, recv[i], left * N + i);
    MPI_OK(MPI_Free_mem(send));
    MPI_OK(MPI_Free_mem(recv));
    void *empty = NULL;
    MPI_OK(MPI_Alloc_mem(0, MPI_INFO_NULL, &empty));
    MPI_OK(MPI_Free_mem(empty));
}

static void status_set_elements(void) {
    MPI_Status st;
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 44;
    st.MPI_ERROR = MPI_SUCCESS;
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    MPI_OK(MPI_Status_set_elements(&st, MPI_DOUBLE, 5));
    int n, flag;
    MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
    CHECK(n == 5, "Get_elements %d, want 5", n);
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(n == 5, "Get_count %d, want 5", n);
    MPI_OK(MPI_Get_count(&st, MPI_FLOAT, &n));
    CHECK(n == 10, "Get_count as float %d, want 10", n);
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "cancelled flag lost");
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 44, "source %d tag %d changed", st.MPI_SOURCE, st.MPI_TAG);
    /* more than 2^32 bytes: the count's high half */
    const MPI_Count big = ((MPI_Count)1 << 31) + 12345;
    MPI_OK(MPI_Status_set_elements_x(&st, MPI_INT, big));
    MPI_Count x;
    MPI_OK(MPI_Get_elements_x(&st, MPI_INT, &x));
    CHECK(x == big, "Get_elements_x %lld, want %lld", (long long)x, (long long)big);
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == MPI_UNDEFINED, "Get_count of 2^31+ ints %d, want MPI_UNDEFINED", n);
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 1, "cancelled flag lost by set_elements_x");
    /* a derived type: count basic elements, as MPI_Get_elements counts them (MPICH 4.0.2 stores
     * count copies of the type instead) */
    MPI_Datatype pair, mixed;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    MPI_OK(MPI_Type_commit(&pair));
#ifndef MT_REFERENCE_MPICH_402
    MPI_OK(MPI_Status_set_elements(&st, pair, 3));
    MPI_OK(MPI_Get_elements(&st, pair, &n));
    CHECK(n == 3, "Get_elements of pairs %d, want 3 ints", n);
    MPI_OK(MPI_Get_count(&st, pair, &n));
    CHECK(n == MPI_UNDEFINED, "Get_count of 1.5 pairs %d, want MPI_UNDEFINED", n);
    MPI_OK(MPI_Status_set_elements(&st, pair, 4));
    MPI_OK(MPI_Get_count(&st, pair, &n));
    CHECK(n == 2, "Get_count of 4 ints as pairs %d, want 2", n);
    /* {char, double}: 3 elements are one copy and the char of the next */
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
    MPI_OK(MPI_Type_create_struct(2, lens, disps, types, &mixed));
    MPI_OK(MPI_Type_commit(&mixed));
    MPI_OK(MPI_Status_set_elements(&st, mixed, 3));
    MPI_OK(MPI_Get_elements(&st, mixed, &n));
    CHECK(n == 3, "Get_elements of {char, double} %d, want 3", n);
    MPI_OK(MPI_Type_free(&mixed));
#endif
    MPI_OK(MPI_Type_free(&pair));
    /* Fortran's INTEGER array form and back */
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_Status back;
    MPI_OK(MPI_Status_set_elements(&st, MPI_INT, 9));
    MPI_OK(MPI_Status_c2f(&st, f));
    MPI_OK(MPI_Status_f2c(f, &back));
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 44 && back.MPI_ERROR == st.MPI_ERROR, "f2c(c2f) source %d tag %d",
          back.MPI_SOURCE, back.MPI_TAG);
    MPI_OK(MPI_Get_count(&back, MPI_INT, &n));
    CHECK(n == 9, "Get_count after f2c(c2f) %d, want 9", n);
    MPI_OK(MPI_Test_cancelled(&back, &flag));
    CHECK(flag == 1, "cancelled flag lost by c2f/f2c");
    MPI_OK(MPI_Status_set_elements(&st, MPI_BYTE, 0));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 0, "Get_count %d after 0 elements", n);
}

static void type_match_size(void) {
    struct { int cls, size; MPI_Datatype want; } cases[] = {
        {MPI_TYPECLASS_REAL, 4, MPI_REAL4},       {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},     {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
        {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2}, {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8}, {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
        {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int size = 0;
        MPI_OK(MPI_Type_match_size(cases[i].cls, cases[i].size, &t));
        CHECK(t == cases[i].want, "class %d size %d: got 0x%x", cases[i].cls, cases[i].size, (unsigned)t);
        MPI_OK(MPI_Type_size(t, &size));
        CHECK(size == cases[i].size, "class %d size %d: the type has size %d", cases[i].cls, cases[i].size, size);
    }
    /* the matched type carries data */
    MPI_Datatype r8;
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, (int)sizeof(double), &r8));
    double in[3] = {1.5, -2.25, 1e300}, out[3] = {0};
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(in, 3, r8, mt_rank, 1, out, 3, r8, mt_rank, 1, MPI_COMM_WORLD, &st));
    CHECK(out[0] == 1.5 && out[1] == -2.25 && out[2] == 1e300, "REAL8 data %g %g %g", out[0], out[1], out[2]);
}

static void bad_arguments(void) {
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    void *p = NULL;
    mt_check_error_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), MPI_ERR_ARG, "MPI_Alloc_mem size -1");
    mt_check_error_class(MPI_Alloc_mem(16, MPI_INFO_NULL, NULL), MPI_ERR_ARG, "MPI_Alloc_mem NULL baseptr");
    mt_check_error_class(MPI_Alloc_mem(16, (MPI_Info)0x1c0004d2, &p), MPI_ERR_INFO, "MPI_Alloc_mem made-up info");
    CHECK(p == NULL, "a failed MPI_Alloc_mem set baseptr");
    MPI_OK(MPI_Free_mem(NULL));
    MPI_Status st;
    mt_check_error_class(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT, "MPI_Status_set_elements count -1");
    mt_check_error_class(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE,
                         "MPI_Status_set_elements MPI_DATATYPE_NULL");
    mt_check_error_class(MPI_Status_set_elements(NULL, MPI_INT, 1), MPI_ERR_ARG, "MPI_Status_set_elements NULL");
    mt_check_error_class(MPI_Status_set_elements_x(&st, MPI_INT, -5), MPI_ERR_COUNT,
                         "MPI_Status_set_elements_x count -5");
    MPI_Datatype t;
    mt_check_error_class(MPI_Type_match_size(99, 4, &t), MPI_ERR_ARG, "MPI_Type_match_size typeclass 99");
    mt_check_error_class(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG, "MPI_Type_match_size REAL 3");
    mt_check_error_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, NULL), MPI_ERR_ARG,
                         "MPI_Type_match_size NULL datatype");
    mt_check_error_class(MPI_Comm_get_parent(NULL), MPI_ERR_ARG, "MPI_Comm_get_parent NULL");
#ifndef MT_REFERENCE_MPICH_402 /* the class is not specified: MPICH says MPI_ERR_OTHER */
    MPI_Fint f[MPI_F_STATUS_SIZE];
    mt_check_error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG, "MPI_Status_c2f MPI_STATUS_IGNORE");
    mt_check_error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st), MPI_ERR_ARG, "MPI_Status_f2c MPI_F_STATUS_IGNORE");
#endif
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "alloc_mem_status");
    alloc_mem_ring();
    status_set_elements();
    type_match_size();
    MPI_Comm parent = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "parent 0x%x, want MPI_COMM_NULL", (unsigned)parent);
    MPI_OK(MPI_Pcontrol(0));
    MPI_OK(MPI_Pcontrol(1));
    MPI_OK(MPI_Pcontrol(2, "extra", 3));
    bad_arguments();
    return mt_finish();
}
