// The MPI tools interface (MPI_T): what it keeps between calls. It may run before MPI_Init and after
// MPI_Finalize, so its state hangs off the library state, not off the runtime object.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/settings.hpp"

// The handle types mpi.h declares as pointers to these (opaque to programs).
struct MPIR_T_cvar_handle_s {
  int index;
};
struct MPIR_T_pvar_session_s;
struct MPIR_T_pvar_handle_s {
  int index = 0;
  MPIR_T_pvar_session_s* session = nullptr;
  std::uint64_t base = 0;  // counters: the value that reads as 0 (at allocation or reset)
};
struct MPIR_T_pvar_session_s {
  std::vector<std::unique_ptr<MPIR_T_pvar_handle_s>> handles;
};

namespace railmpi::api {

struct ToolsState {
  int initialized = 0;      // MPI_T_init_thread calls not yet matched by MPI_T_finalize
  base::Settings settings;  // the control variables before MPI_Init (after it: the instance's)
  std::vector<std::unique_ptr<MPIR_T_cvar_handle_s>> cvar_handles;
  std::vector<std::unique_ptr<MPIR_T_pvar_session_s>> sessions;
};

}  // namespace railmpi::api
