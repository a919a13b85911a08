// Argument checks of the datatype entry points (constructors and queries accept derived types
// that are not committed yet).
#pragma once

#include "api/checks.hpp"
#include "core/datatype/datatype.hpp"

namespace railmpi::api {

// Any live datatype, committed or not: predefined or derived and not freed.
inline int query_type(const char* call, MPI_Datatype type, core::dtype::Datatype& scratch,
                      const core::dtype::Datatype*& out, const char* what = "datatype") {
  out = type == MPI_DATATYPE_NULL ? nullptr : core::dtype::lookup(instance().types, type, scratch);
  if (!out) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "%s=0x%x is not a valid datatype", what,
                       static_cast<unsigned>(type));
  return MPI_SUCCESS;
}

inline int check_old_type(const char* call, MPI_Datatype type) {
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  return query_type(call, type, scratch, t, "oldtype");
}

inline int check_newtype(const char* call, const MPI_Datatype* newtype) {
  if (!newtype) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newtype is NULL");
  return MPI_SUCCESS;
}

inline int check_ctor_count(const char* call, int count, const char* what = "count") {
  if (count < 0) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "%s=%d is negative", what, count);
  return MPI_SUCCESS;
}

inline int check_blocklength(const char* call, int blocklength, const char* what = "blocklength") {
  if (blocklength < 0) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "%s=%d is negative", what, blocklength);
  return MPI_SUCCESS;
}

inline int check_array_arg(const char* call, int count, const void* array, const char* what) {
  if (count > 0 && !array) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%s is NULL with count=%d", what, count);
  return MPI_SUCCESS;
}

}  // namespace railmpi::api
