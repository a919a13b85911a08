// tests/abi/compile_cxx.cpp -- mpi.h must compile cleanly as C++
// (built with -std=c++11 and -std=c++20 -Wall -Wextra -Werror -pedantic,
// syntax check only: nothing is linked).
#include <mpi.h>

#include <cstddef>
#include <type_traits>

#if !defined(RAILMPI) || MPI_VERSION != 3 || MPI_SUBVERSION != 1
#error "mpi.h: expected RailMPI implementing MPI 3.1"
#endif
#if defined(MPICH) || defined(MPICH_VERSION)
#error "mpi.h must not pretend to be MPICH"
#endif

static_assert(std::is_same<MPI_Comm, int>::value, "integer handles");
static_assert(std::is_same<MPI_Datatype, int>::value, "integer handles");
static_assert(std::is_same<MPI_Aint, long>::value, "MPI_Aint is long");
static_assert(sizeof(MPI_Status) == 20, "MPI_Status is five ints");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == 8, "MPI_Status layout");
static_assert(offsetof(MPI_Status, MPI_ERROR) == 16, "MPI_Status layout");
static_assert(MPI_COMM_WORLD == 0x44000000, "MPICH value");
static_assert(MPI_INT == 0x4c000405, "MPICH value");
static_assert(((MPI_DOUBLE >> 8) & 0xff) == sizeof(double), "size in bits 8-15");
static_assert(MPI_ERR_LASTCODE == 0x3fffffff, "MPICH value");

namespace {

// Constants are usable as template arguments and case labels.
template <int Tag> struct tagged { static constexpr int value = Tag; };
static_assert(tagged<MPI_ANY_TAG>::value == -1, "MPI_ANY_TAG");

int classify(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return 0;
    case MPI_THREAD_FUNNELED: return 1;
    case MPI_THREAD_SERIALIZED: return 2;
    case MPI_THREAD_MULTIPLE: return 3;
    default: return -1;
    }
}

extern "C" void my_op(void *, void *, int *, MPI_Datatype *) {}

}  // namespace

int railmpi_abi_compile_check_cxx()
{
    MPI_User_function *op = my_op;
    MPI_Comm_copy_attr_function *copy = MPI_COMM_DUP_FN;
    int (*send)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = &MPI_Send;
    int (*psend)(const void *, int, MPI_Datatype, int, int, MPI_Comm) = &PMPI_Send;
    MPI_Status st{};
    st.MPI_TAG = MPI_ANY_TAG;
    MPI_Fint f = MPI_Type_c2f(MPI_DOUBLE);
    return classify(MPI_THREAD_MULTIPLE) + (op != nullptr) + (copy != nullptr) + (send != psend)
           + (MPI_Type_f2c(f) == MPI_DOUBLE) + (MPI_IN_PLACE != MPI_BOTTOM) + st.MPI_TAG;
}
