// Argument checks shared by the MPI entry points. Each returns MPI_SUCCESS or the result of
// raise_error() (which may not return, under a fatal error handler).
#pragma once

#include <cstdint>

#include "api/error.hpp"
#include "api/instance.hpp"
#include "core/datatype.hpp"
#include "core/datatype/datatype.hpp"

namespace railmpi::api {

inline constexpr int kTagUb = 0x7fffffff;

// Fatal (there is no handler yet or any more) unless MPI is running.
inline void require_running(const char* call) {
  if (library_state().phase != Phase::running) [[unlikely]] {
    raise_error(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "called %s MPI_Init",
                library_state().phase == Phase::before_init ? "before" : "after MPI_Finalize, not after");
  }
}

inline int check_comm(const char* call, MPI_Comm comm, core::Communicator*& out) {
  out = find_comm(comm);
  if (!out) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "comm=0x%x is not a valid communicator",
                       static_cast<unsigned>(comm));
  return MPI_SUCCESS;
}

inline int check_count(const char* call, MPI_Comm comm, int count, const char* what = "count") {
  if (count < 0) [[unlikely]]
    return raise_error(comm, MPI_ERR_COUNT, call, "%s=%d is negative", what, count);
  return MPI_SUCCESS;
}

// Description of a datatype handle: predefined types are decoded from the handle (the hot path
// never reaches the runtime object); derived types come from the instance's table.
inline core::TypeInfo type_info(MPI_Datatype type) {
  const core::TypeInfo t = core::predefined_type_info(type);
  if (!t.valid) [[unlikely]]
    return core::derived_type_info(instance().types, type);
  return t;
}

inline int type_error(const char* call, MPI_Comm comm, MPI_Datatype type) {
  if (type != MPI_DATATYPE_NULL && instance().types.find(type)) [[unlikely]]
    return raise_error(comm, MPI_ERR_TYPE, call, "datatype=0x%x is not committed (MPI_Type_commit)",
                       static_cast<unsigned>(type));
  return raise_error(comm, MPI_ERR_TYPE, call, "datatype=0x%x is not a valid datatype", static_cast<unsigned>(type));
}

// check_type() for anything but a predefined type.
inline int check_derived_type(const char* call, MPI_Comm comm, MPI_Datatype type, core::TypeInfo& info) {
  info = core::derived_type_info(instance().types, type);
  if (!info.valid || type == MPI_DATATYPE_NULL) [[unlikely]]
    return type_error(call, comm, type);
  return MPI_SUCCESS;
}

// A datatype usable for communication: predefined, or derived and committed.
[[gnu::always_inline]] inline int check_type(const char* call, MPI_Comm comm, MPI_Datatype type,
                                             core::TypeInfo& info) {
  if (core::fill_predefined_type_info(type, info)) [[likely]] return MPI_SUCCESS;  // decoded from the handle
  return check_derived_type(call, comm, type, info);
}

inline int check_type(const char* call, MPI_Comm comm, MPI_Datatype type, std::size_t& size) {
  core::TypeInfo info;
  const int e = check_type(call, comm, type, info);
  size = info.size;
  return e;
}

inline int check_buffer(const char* call, MPI_Comm comm, const void* buf, int count, std::size_t type_size) {
  if (!buf && count > 0 && type_size > 0) [[unlikely]]
    return raise_error(comm, MPI_ERR_BUFFER, call, "buf is NULL with count=%d", count);
  return MPI_SUCCESS;
}

// With a derived type, buf may be MPI_BOTTOM (NULL): the type's displacements are addresses.
inline int check_buffer(const char* call, MPI_Comm comm, const void* buf, int count, const core::TypeInfo& t) {
  if (!buf && count > 0 && t.size > 0 && !t.derived) [[unlikely]]
    return raise_error(comm, MPI_ERR_BUFFER, call, "buf is NULL with count=%d", count);
  return MPI_SUCCESS;
}

// A destination: a rank of the communicator or MPI_PROC_NULL.
inline int check_dest(const char* call, const core::Communicator& c, int rank, const char* what = "dest") {
  if ((rank < 0 || rank >= c.remote_size()) && rank != MPI_PROC_NULL) [[unlikely]]
    return raise_error(c.handle, MPI_ERR_RANK, call, "%s=%d is not a rank of a communicator of size %d", what, rank,
                       c.remote_size());
  return MPI_SUCCESS;
}

// A source: a rank, MPI_ANY_SOURCE or MPI_PROC_NULL.
inline int check_source(const char* call, const core::Communicator& c, int rank) {
  if (rank == MPI_ANY_SOURCE) return MPI_SUCCESS;
  return check_dest(call, c, rank, "source");
}

inline int check_send_tag(const char* call, MPI_Comm comm, int tag) {
  if (tag < 0 || tag > kTagUb) [[unlikely]]
    return raise_error(comm, MPI_ERR_TAG, call, "tag=%d is outside [0, MPI_TAG_UB=%d]", tag, kTagUb);
  return MPI_SUCCESS;
}

inline int check_recv_tag(const char* call, MPI_Comm comm, int tag) {
  if (tag == MPI_ANY_TAG) return MPI_SUCCESS;
  return check_send_tag(call, comm, tag);
}

// Everything a send entry point checks. Fills `comm_out` and `type_size`.
[[gnu::always_inline]] inline int check_send(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, core::Communicator*& comm_out, core::TypeInfo& type_info) {
  require_running(call);
  if (int e = check_comm(call, comm, comm_out)) return e;
  if (int e = check_count(call, comm, count)) return e;
  if (int e = check_type(call, comm, type, type_info)) return e;
  if (int e = check_buffer(call, comm, buf, count, type_info)) return e;
  if (int e = check_dest(call, *comm_out, dest)) return e;
  return check_send_tag(call, comm, tag);
}

[[gnu::always_inline]] inline int check_recv(const char* call, const void* buf, int count, MPI_Datatype type, int source, int tag,
                      MPI_Comm comm, core::Communicator*& comm_out, core::TypeInfo& type_info) {
  require_running(call);
  if (int e = check_comm(call, comm, comm_out)) return e;
  if (int e = check_count(call, comm, count)) return e;
  if (int e = check_type(call, comm, type, type_info)) return e;
  if (int e = check_buffer(call, comm, buf, count, type_info)) return e;
  if (int e = check_source(call, *comm_out, source)) return e;
  return check_recv_tag(call, comm, tag);
}

// Status helpers (MPICH layout: byte count split in count_lo / count_hi_and_cancelled).
inline void set_status(MPI_Status* s, int source, int tag, std::size_t bytes, bool cancelled, int error) {
  if (s == MPI_STATUS_IGNORE || s == MPI_STATUSES_IGNORE) return;
  s->MPI_SOURCE = source;
  s->MPI_TAG = tag;
  if (error != MPI_SUCCESS) s->MPI_ERROR = error;  // single-completion calls leave it alone on success
  const auto count = static_cast<std::uint64_t>(bytes);
  s->count_lo = static_cast<int>(count & 0xffffffffu);
  s->count_hi_and_cancelled = static_cast<int>(((count >> 32) << 1) | (cancelled ? 1u : 0u));
}
inline std::uint64_t status_bytes(const MPI_Status* s) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(s->count_hi_and_cancelled)) >> 1 << 32) |
         static_cast<std::uint32_t>(s->count_lo);
}
inline void set_empty_status(MPI_Status* s) { set_status(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false, MPI_SUCCESS); }
inline void set_proc_null_status(MPI_Status* s) { set_status(s, MPI_PROC_NULL, MPI_ANY_TAG, 0, false, MPI_SUCCESS); }

}  // namespace railmpi::api
