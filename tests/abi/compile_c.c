/*
 * tests/abi/compile_c.c -- mpi.h must compile cleanly as strict ISO C
 * (built with -std=c89 and -std=c99 -Wall -Wextra -Werror -pedantic,
 * syntax check only: nothing is linked).
 */
#include <mpi.h>

#if !defined(RAILMPI) || MPI_VERSION != 3 || MPI_SUBVERSION != 1
#error "mpi.h: expected RailMPI implementing MPI 3.1"
#endif
#if defined(MPICH) || defined(MPICH_VERSION)
#error "mpi.h must not pretend to be MPICH"
#endif

/* Compile-time checks that need no library: negative array size on failure. */
typedef char check_status_size[sizeof(MPI_Status) == 5 * sizeof(int) ? 1 : -1];
typedef char check_aint_size[sizeof(MPI_Aint) == sizeof(void *) ? 1 : -1];
typedef char check_count_size[sizeof(MPI_Count) >= sizeof(MPI_Offset) ? 1 : -1];
typedef char check_handle_size[sizeof(MPI_Comm) == sizeof(int) ? 1 : -1];

/* Constants usable where the language demands constant expressions. */
static char processor_name[MPI_MAX_PROCESSOR_NAME];
static char error_string[MPI_MAX_ERROR_STRING];
static char version_string[MPI_MAX_LIBRARY_VERSION_STRING];

static int classify(int err)
{
    switch (err) {
    case MPI_SUCCESS: return 0;
    case MPI_ERR_TRUNCATE: return 1;
    case MPI_ERR_OTHER: return 2;
    default: return err <= MPI_ERR_LASTCODE ? 3 : 4;
    }
}

static void my_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in; (void)inout; (void)len; (void)type;
}

static int my_copy(MPI_Comm c, int k, void *x, void *in, void *out, int *flag)
{
    (void)c; (void)k; (void)x; (void)in; (void)out; *flag = 0;
    return MPI_SUCCESS;
}

/* Function-pointer types of a few prototypes (declared, never called). */
static int (*const p_send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = MPI_Send;
static int (*const p_psend)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = PMPI_Send;
static double (*const p_wtime)(void) = MPI_Wtime;

int railmpi_abi_compile_check(void);
int railmpi_abi_compile_check(void)
{
    MPI_Status st;
    MPI_User_function *op = my_op;
    MPI_Comm_copy_attr_function *copy = my_copy;
    MPI_Comm_delete_attr_function *del = MPI_COMM_NULL_DELETE_FN;
    MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
    MPI_Comm back = MPI_Comm_f2c(f);
    void *buf = MPI_IN_PLACE;
    int ok;

    st.MPI_SOURCE = MPI_ANY_SOURCE;
    st.MPI_TAG = MPI_ANY_TAG;
    st.MPI_ERROR = MPI_SUCCESS;
    st.count_lo = 0;
    st.count_hi_and_cancelled = 0;
    ok = back == MPI_COMM_WORLD && op != 0 && copy != 0 && del == 0 && buf != MPI_BOTTOM
         && p_send != 0 && p_psend != 0 && p_wtime != 0 && MPI_STATUS_IGNORE != &st
         && MPI_DATATYPE_NULL != MPI_INT && MPI_REQUEST_NULL == (MPI_Request)MPI_MESSAGE_NULL;
    processor_name[0] = error_string[0] = version_string[0] = 0;
    return ok + classify(st.MPI_ERROR);
}
