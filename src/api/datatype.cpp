// Datatype queries for the predefined types (derived types come with the datatype work).
#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

extern "C" {

int PMPI_Type_size(MPI_Datatype type, int* size) {
  require_running("MPI_Type_size");
  std::size_t tsize;
  if (int e = check_type("MPI_Type_size", MPI_COMM_WORLD, type, tsize)) return e;
  if (!size) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
  *size = static_cast<int>(tsize);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

int PMPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int* size) {
  require_running("MPI_Pack_size");
  core::Communicator* c;
  std::size_t tsize;
  if (int e = check_comm("MPI_Pack_size", comm, c)) return e;
  if (int e = check_count("MPI_Pack_size", comm, incount, "incount")) return e;
  if (int e = check_type("MPI_Pack_size", comm, type, tsize)) return e;
  if (!size) return raise_error(comm, MPI_ERR_ARG, "MPI_Pack_size", "size is NULL");
  *size = static_cast<int>(tsize * std::size_t(incount));
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

}  // extern "C"
