// The profiling interface's own call, MPI_Pcontrol. The library has no profiling layer of its
// own (tools wrap the MPI_ symbols and call the PMPI_ ones), so every level does nothing, the
// standard's default; a tool that wraps MPI_Pcontrol sees the calls.
#include "api/checks.hpp"

extern "C" {

int PMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}
#pragma weak MPI_Pcontrol = PMPI_Pcontrol

}  // extern "C"
