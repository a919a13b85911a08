// Info objects: MPI_Info_create, set, get, get_valuelen, get_nkeys, get_nthkey, delete, dup, free
// (MPI_INFO_ENV is builtin: readable, not freeable).
#include <cstring>

#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_info(const char* call, MPI_Info info, core::Info*& out) {
  out = instance().infos.find(info);
  if (!out) return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "info=0x%x is not a valid info object",
                               static_cast<unsigned>(info));
  return MPI_SUCCESS;
}

int check_key(const char* call, const char* key) {
  if (!key) return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, call, "key is NULL");
  const std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0 || n > MPI_MAX_INFO_KEY)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, call, "key is %s", n == 0 ? "empty" : "longer than MPI_MAX_INFO_KEY");
  return MPI_SUCCESS;
}

void copy_out(const std::string& s, char* out, int room) {
  const std::size_t n = std::min<std::size_t>(s.size(), static_cast<std::size_t>(room));
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
}

}  // namespace

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  require_running("MPI_Info_create");
  if (!info) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_create", "info is NULL");
  *info = instance().infos.add({});
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_create = PMPI_Info_create

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const char* call = "MPI_Info_set";
  require_running(call);
  core::Info* i;
  if (int e = check_info(call, info, i)) return e;
  if (int e = check_key(call, key)) return e;
  if (!value) return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, call, "value is NULL");
  const std::size_t n = strnlen(value, MPI_MAX_INFO_VAL + 1);
  if (n > MPI_MAX_INFO_VAL)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, call, "value is longer than MPI_MAX_INFO_VAL");
  i->set(key, std::string(value, n));
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_set = PMPI_Info_set

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const char* call = "MPI_Info_get";
  require_running(call);
  core::Info* i;
  if (int e = check_info(call, info, i)) return e;
  if (int e = check_key(call, key)) return e;
  if (valuelen < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "valuelen=%d is negative", valuelen);
  if (!value || !flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "value or flag is NULL");
  const std::string* v = i->get(key);
  *flag = v != nullptr;
  if (v) copy_out(*v, value, valuelen);
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_get = PMPI_Info_get

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const char* call = "MPI_Info_get_valuelen";
  require_running(call);
  core::Info* i;
  if (int e = check_info(call, info, i)) return e;
  if (int e = check_key(call, key)) return e;
  if (!valuelen || !flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "valuelen or flag is NULL");
  const std::string* v = i->get(key);
  *flag = v != nullptr;
  if (v) *valuelen = static_cast<int>(v->size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  require_running("MPI_Info_get_nkeys");
  core::Info* i;
  if (int e = check_info("MPI_Info_get_nkeys", info, i)) return e;
  if (!nkeys) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get_nkeys", "nkeys is NULL");
  *nkeys = static_cast<int>(i->entries.size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const char* call = "MPI_Info_get_nthkey";
  require_running(call);
  core::Info* i;
  if (int e = check_info(call, info, i)) return e;
  if (!key) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "key is NULL");
  if (n < 0 || n >= static_cast<int>(i->entries.size()))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "n=%d is outside [0, nkeys=%zu)", n, i->entries.size());
  copy_out(i->entries[static_cast<std::size_t>(n)].first, key, MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey

int PMPI_Info_delete(MPI_Info info, const char* key) {
  const char* call = "MPI_Info_delete";
  require_running(call);
  core::Info* i;
  if (int e = check_info(call, info, i)) return e;
  if (int e = check_key(call, key)) return e;
  if (!i->erase(key)) return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, call, "key \"%s\" is not set", key);
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_delete = PMPI_Info_delete

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  require_running("MPI_Info_dup");
  core::Info* i;
  if (int e = check_info("MPI_Info_dup", info, i)) return e;
  if (!newinfo) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_dup", "newinfo is NULL");
  core::Info copy = *i;
  *newinfo = instance().infos.add(std::move(copy));
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_dup = PMPI_Info_dup

int PMPI_Info_free(MPI_Info* info) {
  const char* call = "MPI_Info_free";
  require_running(call);
  if (!info) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "info is NULL");
  core::Info* i;
  if (int e = check_info(call, *info, i)) return e;
  if (!instance().infos.release(*info))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_INFO, call, "MPI_INFO_ENV cannot be freed");
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Info_free = PMPI_Info_free

}  // extern "C"
