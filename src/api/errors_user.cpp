// Error classes and codes: MPI_Error_class / MPI_Error_string (builtin classes and user ones),
// MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string.
#include <cstring>

#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

Instance::UserError* user_error(int code) {
  if (library_state().phase != Phase::running) return nullptr;
  auto& v = instance().user_errors;
  const long long i = static_cast<long long>(code) - Instance::kFirstUserError;
  if (i < 0 || i >= static_cast<long long>(v.size())) return nullptr;
  return &v[static_cast<std::size_t>(i)];
}

bool is_class(int code) {
  if (error_class_name(code)) return true;
  const Instance::UserError* u = user_error(code);
  return u && u->errclass == code;
}

int add_error(int errclass) {
  Instance& in = instance();
  const int code = Instance::kFirstUserError + static_cast<int>(in.user_errors.size());
  in.user_errors.push_back({errclass < 0 ? code : errclass, {}});
  if (code > in.attr_lastusedcode) in.attr_lastusedcode = code;
  return code;
}

}  // namespace

extern "C" {

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) return MPI_ERR_ARG;
  if (error_class_name(errorcode)) {
    *errorclass = errorcode;
    return MPI_SUCCESS;
  }
  if (const Instance::UserError* u = user_error(errorcode)) {
    *errorclass = u->errclass;
    return MPI_SUCCESS;
  }
  if (library_state().phase == Phase::running)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_class", "errorcode=%d is not an error code", errorcode);
  return MPI_ERR_ARG;
}
#pragma weak MPI_Error_class = PMPI_Error_class

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen) return MPI_ERR_ARG;
  int n = 0;
  if (const char* name = error_class_name(errorcode)) {
    n = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", name, error_class_text(errorcode));
  } else if (const Instance::UserError* u = user_error(errorcode)) {
    n = std::snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->text.c_str());
  } else {
    if (library_state().phase == Phase::running)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Error_string", "errorcode=%d is not an error code",
                         errorcode);
    return MPI_ERR_ARG;
  }
  *resultlen = std::min(n, MPI_MAX_ERROR_STRING - 1);
  return MPI_SUCCESS;
}
#pragma weak MPI_Error_string = PMPI_Error_string

int PMPI_Add_error_class(int* errorclass) {
  require_running("MPI_Add_error_class");
  if (!errorclass) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_class", "errorclass is NULL");
  *errorclass = add_error(-1);
  return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_class = PMPI_Add_error_class

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  require_running("MPI_Add_error_code");
  if (!errorcode) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code", "errorcode is NULL");
  if (!is_class(errorclass) || errorclass == MPI_SUCCESS)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code", "errorclass=%d is not an error class",
                       errorclass);
  *errorcode = add_error(errorclass);
  return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_code = PMPI_Add_error_code

int PMPI_Add_error_string(int errorcode, const char* string) {
  require_running("MPI_Add_error_string");
  if (!string) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string", "string is NULL");
  Instance::UserError* u = user_error(errorcode);
  if (!u)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                       "errorcode=%d is not a user-defined error code or class", errorcode);
  u->text.assign(string, strnlen(string, MPI_MAX_ERROR_STRING - 1));
  return MPI_SUCCESS;
}
#pragma weak MPI_Add_error_string = PMPI_Add_error_string

}  // extern "C"
