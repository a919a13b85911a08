// MPI_Pack / MPI_Unpack / MPI_Pack_size and their "external32" forms.
#include <cstring>

#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_datarep(const char* call, const char* datarep) {
  if (!datarep || std::strcmp(datarep, "external32") != 0)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "datarep=\"%s\" is not \"external32\"",
                       datarep ? datarep : "(null)");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Pack_size(int incount, MPI_Datatype type, MPI_Comm comm, int* size) {
  require_running("MPI_Pack_size");
  core::Communicator* c;
  std::size_t tsize;
  if (int e = check_comm("MPI_Pack_size", comm, c)) return e;
  if (int e = check_count("MPI_Pack_size", comm, incount, "incount")) return e;
  if (int e = check_type("MPI_Pack_size", comm, type, tsize)) return e;
  if (!size) return raise_error(comm, MPI_ERR_ARG, "MPI_Pack_size", "size is NULL");
  const std::size_t bytes = tsize * std::size_t(incount);
  *size = bytes > 0x7fffffffu ? MPI_UNDEFINED : static_cast<int>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack_size = PMPI_Pack_size

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype type, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
  const char* call = "MPI_Pack";
  require_running(call);
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_count(call, comm, incount, "incount")) return e;
  if (int e = check_type(call, comm, type, t)) return e;
  if (int e = check_buffer(call, comm, inbuf, incount, t)) return e;
  if (!position) return raise_error(comm, MPI_ERR_ARG, call, "position is NULL");
  if (outsize < 0 || *position < 0 || *position > outsize)
    return raise_error(comm, MPI_ERR_ARG, call, "position=%d / outsize=%d are inconsistent", *position, outsize);
  const std::size_t bytes = t.size * std::size_t(incount);
  if (bytes > std::size_t(outsize - *position))
    return raise_error(comm, MPI_ERR_TRUNCATE, call, "%zu bytes do not fit outbuf (outsize=%d, position=%d)", bytes,
                       outsize, *position);
  if (bytes == 0) return MPI_SUCCESS;
  if (!outbuf) return raise_error(comm, MPI_ERR_BUFFER, call, "outbuf is NULL");
  core::pack(instance().types, inbuf, std::size_t(incount), type, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack = PMPI_Pack

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype type,
                MPI_Comm comm) {
  const char* call = "MPI_Unpack";
  require_running(call);
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_count(call, comm, outcount, "outcount")) return e;
  if (int e = check_type(call, comm, type, t)) return e;
  if (int e = check_buffer(call, comm, outbuf, outcount, t)) return e;
  if (!position) return raise_error(comm, MPI_ERR_ARG, call, "position is NULL");
  if (insize < 0 || *position < 0 || *position > insize)
    return raise_error(comm, MPI_ERR_ARG, call, "position=%d / insize=%d are inconsistent", *position, insize);
  const std::size_t bytes = t.size * std::size_t(outcount);
  if (bytes > std::size_t(insize - *position))
    return raise_error(comm, MPI_ERR_TRUNCATE, call, "%zu bytes to unpack but inbuf has %d left (insize=%d, position=%d)",
                       bytes, insize - *position, insize, *position);
  if (bytes == 0) return MPI_SUCCESS;
  if (!inbuf) return raise_error(comm, MPI_ERR_BUFFER, call, "inbuf is NULL");
  core::unpack(instance().types, static_cast<const std::byte*>(inbuf) + *position, bytes, std::size_t(outcount), type, outbuf);
  *position += static_cast<int>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Unpack = PMPI_Unpack

int PMPI_Pack_external_size(const char* datarep, int incount, MPI_Datatype type, MPI_Aint* size) {
  const char* call = "MPI_Pack_external_size";
  require_running(call);
  core::TypeInfo t;
  if (int e = check_datarep(call, datarep)) return e;
  if (int e = check_count(call, MPI_COMM_WORLD, incount, "incount")) return e;
  if (int e = check_type(call, MPI_COMM_WORLD, type, t)) return e;
  if (!size) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size is NULL");
  *size = static_cast<MPI_Aint>(core::external32_size(instance().types, std::size_t(incount), type));
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size

int PMPI_Pack_external(const char* datarep, const void* inbuf, int incount, MPI_Datatype type, void* outbuf,
                       MPI_Aint outsize, MPI_Aint* position) {
  const char* call = "MPI_Pack_external";
  require_running(call);
  core::TypeInfo t;
  if (int e = check_datarep(call, datarep)) return e;
  if (int e = check_count(call, MPI_COMM_WORLD, incount, "incount")) return e;
  if (int e = check_type(call, MPI_COMM_WORLD, type, t)) return e;
  if (int e = check_buffer(call, MPI_COMM_WORLD, inbuf, incount, t)) return e;
  if (!position) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "position is NULL");
  if (outsize < 0 || *position < 0 || *position > outsize)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "position=%ld / outsize=%ld are inconsistent",
                       static_cast<long>(*position), static_cast<long>(outsize));
  const std::size_t bytes = core::external32_size(instance().types, std::size_t(incount), type);
  if (bytes > static_cast<std::size_t>(outsize - *position))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, call, "%zu bytes do not fit outbuf (outsize=%ld, position=%ld)",
                       bytes, static_cast<long>(outsize), static_cast<long>(*position));
  if (bytes == 0) return MPI_SUCCESS;
  if (!outbuf) return raise_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "outbuf is NULL");
  core::pack_external32(instance().types, inbuf, std::size_t(incount), type, static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Pack_external = PMPI_Pack_external

int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position, void* outbuf,
                         int outcount, MPI_Datatype type) {
  const char* call = "MPI_Unpack_external";
  require_running(call);
  core::TypeInfo t;
  if (int e = check_datarep(call, datarep)) return e;
  if (int e = check_count(call, MPI_COMM_WORLD, outcount, "outcount")) return e;
  if (int e = check_type(call, MPI_COMM_WORLD, type, t)) return e;
  if (int e = check_buffer(call, MPI_COMM_WORLD, outbuf, outcount, t)) return e;
  if (!position) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "position is NULL");
  if (insize < 0 || *position < 0 || *position > insize)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "position=%ld / insize=%ld are inconsistent",
                       static_cast<long>(*position), static_cast<long>(insize));
  const std::size_t bytes = core::external32_size(instance().types, std::size_t(outcount), type);
  if (bytes > static_cast<std::size_t>(insize - *position))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, call, "%zu bytes to unpack but inbuf has %ld left", bytes,
                       static_cast<long>(insize - *position));
  if (bytes == 0) return MPI_SUCCESS;
  if (!inbuf) return raise_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "inbuf is NULL");
  core::unpack_external32(instance().types, static_cast<const std::byte*>(inbuf) + *position, std::size_t(outcount), type, outbuf);
  *position += static_cast<MPI_Aint>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Unpack_external = PMPI_Unpack_external

}  // extern "C"
