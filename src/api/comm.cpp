// Communicator queries (rank, size, name, parent, info), error handlers and error strings.
#include <cstring>

#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {
constexpr unsigned kUserErrhandlerPrefix = 0x94000000u;  // direct kind, object type errhandler
}  // namespace

bool railmpi::api::valid_errhandler(MPI_Errhandler h) {
  if (h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN || h == MPI_ERRORS_ABORT) return true;
  const auto u = static_cast<unsigned>(h);
  return (u & 0xffff0000u) == kUserErrhandlerPrefix && (u & 0xffffu) < instance().user_errhandlers.size() &&
         instance().user_errhandlers[u & 0xffffu] != nullptr;
}

extern "C" {

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  require_running("MPI_Comm_rank");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_rank", comm, c)) return e;
  if (!rank) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_rank = PMPI_Comm_rank

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  require_running("MPI_Comm_size");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_size", comm, c)) return e;
  if (!size) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
  *size = c->size();
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_size = PMPI_Comm_size

// No process of a job is started by MPI_Comm_spawn (mpiexec starts them all): no parent.
int PMPI_Comm_get_parent(MPI_Comm* parent) {
  require_running("MPI_Comm_get_parent");
  if (!parent) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_get_parent", "parent is NULL");
  *parent = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent

// No communicator hint changes what this library does (it recognizes none): MPI_Comm_set_info
// checks the hints and keeps none, MPI_Comm_get_info returns a new, empty info object (the hints
// in use), as the standard allows.
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const char* call = "MPI_Comm_set_info";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  // MPI_INFO_NULL is no info object (MPI_ERR_INFO, as Open MPI; MPICH 4.0.2 says MPI_ERR_ARG).
  if (!instance().infos.find(info))
    return raise_error(comm, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", static_cast<unsigned>(info));
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_info = PMPI_Comm_set_info

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  const char* call = "MPI_Comm_get_info";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (!info_used) return raise_error(comm, MPI_ERR_ARG, call, "info_used is NULL");
  *info_used = instance().infos.add({});
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_info = PMPI_Comm_get_info

int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  require_running("MPI_Comm_get_name");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_get_name", comm, c)) return e;
  if (!name || !resultlen) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "name or resultlen is NULL");
  const std::size_t n = std::min<std::size_t>(c->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(name, c->name.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_name = PMPI_Comm_get_name

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  require_running("MPI_Comm_set_errhandler");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_set_errhandler", comm, c)) return e;
  if (!valid_errhandler(errhandler))
    return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "errhandler=0x%x is not an error handler",
                       static_cast<unsigned>(errhandler));
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  require_running("MPI_Comm_get_errhandler");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_get_errhandler", comm, c)) return e;
  if (!errhandler) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "errhandler is NULL");
  *errhandler = c->errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  require_running("MPI_Comm_create_errhandler");
  if (!function || !errhandler)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_create_errhandler", "function or errhandler is NULL");
  auto& table = instance().user_errhandlers;
  table.push_back(function);
  *errhandler = static_cast<MPI_Errhandler>(kUserErrhandlerPrefix | unsigned(table.size() - 1));
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler

// Window and file handlers share the table (same handle space); windows and files set them.
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* function, MPI_Errhandler* errhandler) {
  require_running("MPI_Win_create_errhandler");
  if (!function || !errhandler)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_create_errhandler", "function or errhandler is NULL");
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(function), errhandler);
}
#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler

int PMPI_File_create_errhandler(MPI_File_errhandler_function* function, MPI_Errhandler* errhandler) {
  require_running("MPI_File_create_errhandler");
  if (!function || !errhandler)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_File_create_errhandler", "function or errhandler is NULL");
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(function), errhandler);
}
#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  require_running("MPI_Errhandler_free");
  if (!errhandler || !valid_errhandler(*errhandler))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "not an error handler");
  // Communicators keep using a freed handler (MPI semantics), so the table entry stays.
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  require_running("MPI_Comm_call_errhandler");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_call_errhandler", comm, c)) return e;
  raise_error(comm, errorcode, "MPI_Comm_call_errhandler", "error raised by the application");
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler

// MPI-1 names of the same calls (deprecated, still used by old programs).
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) { return PMPI_Comm_set_errhandler(comm, errhandler); }
#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) { return PMPI_Comm_get_errhandler(comm, errhandler); }
#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_create(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  return PMPI_Comm_create_errhandler(function, errhandler);
}
#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create

}  // extern "C"
