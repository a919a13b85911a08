// Memory MPI hands out: MPI_Alloc_mem and MPI_Free_mem. No device here needs registered memory
// (shared memory copies and reads any address; the RDMA device registers on demand through its
// cache), so this is aligned heap memory: 64-byte aligned, a cache line, as the shm cells.
#include <cstdlib>

#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

constexpr std::size_t kAlignment = 64;

}  // namespace

extern "C" {

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  const char* call = "MPI_Alloc_mem";
  require_running(call);
  if (size < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size=%ld is negative", static_cast<long>(size));
  if (!baseptr) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "baseptr is NULL");
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "info=0x%x is not an info object", static_cast<unsigned>(info));
  void* p = nullptr;
  // posix_memalign, not aligned_alloc: MPI_Free_mem hands it to free(), and size 0 is allowed.
  if (::posix_memalign(&p, kAlignment, size == 0 ? 1 : static_cast<std::size_t>(size)) != 0)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "cannot allocate %ld bytes", static_cast<long>(size));
  *static_cast<void**>(baseptr) = p;
  return MPI_SUCCESS;
}
#pragma weak MPI_Alloc_mem = PMPI_Alloc_mem

int PMPI_Free_mem(void* base) {
  require_running("MPI_Free_mem");
  std::free(base);
  return MPI_SUCCESS;
}
#pragma weak MPI_Free_mem = PMPI_Free_mem

}  // extern "C"
