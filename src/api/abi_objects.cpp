// Objects and callbacks the MPICH ABI makes part of the library: binaries built against MPICH's
// header reference these symbol names.
#include "mpi.h"

#include "api/tools_interface.hpp"

namespace {
int unweighted_marker;
int weights_empty_marker;
MPI_Fint fortran_status_ignore[6];
MPI_Fint fortran_statuses_ignore[6];
MPI_F08_status f08_status_ignore;
MPI_F08_status f08_statuses_ignore;
MPIR_T_pvar_handle_s all_pvar_handles;  // what MPI_T_PVAR_ALL_HANDLES points at
}  // namespace

extern "C" {

int* const MPI_UNWEIGHTED = &unweighted_marker;
int* const MPI_WEIGHTS_EMPTY = &weights_empty_marker;
MPI_Fint* MPI_F_STATUS_IGNORE = fortran_status_ignore;
MPI_Fint* MPI_F_STATUSES_IGNORE = fortran_statuses_ignore;
MPI_F08_status* MPI_F08_STATUS_IGNORE = &f08_status_ignore;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = &f08_statuses_ignore;
struct MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES = &all_pvar_handles;

// MPI_DUP_FN: the attribute copy callback that copies the value and keeps it.
int MPIR_Dup_fn(MPI_Comm, int, void*, void* attr_in, void* attr_out, int* flag) {
  *static_cast<void**>(attr_out) = attr_in;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // extern "C"
