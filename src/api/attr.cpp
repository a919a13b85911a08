// Attribute caching: keyvals and attributes on communicators (MPI-2 and MPI-1 names), datatypes
// and window keyvals, over core::AttributeStore; predefined attributes of communicators.
#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

bool predefined_keyval(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE:
    case MPI_APPNUM:
    case MPI_LASTUSEDCODE: return true;
    default: return false;
  }
}

int create_keyval(const char* call, core::AttrKind kind, void* copy, void* del, int* keyval, void* extra) {
  require_running(call);
  if (!keyval) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "keyval is NULL");
  *keyval = instance().attributes.create_keyval(kind, reinterpret_cast<core::AttrCopyFn>(copy),
                                                reinterpret_cast<core::AttrDeleteFn>(del), extra);
  return MPI_SUCCESS;
}

int free_keyval(const char* call, core::AttrKind kind, int* keyval) {
  require_running(call);
  if (!keyval) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "keyval is NULL");
  if (predefined_keyval(*keyval) || !instance().attributes.find_keyval(*keyval, kind))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, call, "keyval=0x%x is not a valid user keyval of this kind",
                       static_cast<unsigned>(*keyval));
  instance().attributes.free_keyval(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int check_user_keyval(const char* call, MPI_Comm errcomm, core::AttrKind kind, int keyval) {
  if (!instance().attributes.find_keyval(keyval, kind))
    return raise_error(errcomm, MPI_ERR_KEYVAL, call, "keyval=0x%x is not a valid keyval of this object kind%s",
                       static_cast<unsigned>(keyval), predefined_keyval(keyval) ? " (predefined, read-only)" : "");
  return MPI_SUCCESS;
}

int set_attr(const char* call, MPI_Comm errcomm, core::AttrKind kind, int object, int keyval, void* value) {
  if (int e = check_user_keyval(call, errcomm, kind, keyval)) return e;
  if (int e = instance().attributes.set(object, keyval, value))
    return raise_error(errcomm, e, call, "the delete callback of the replaced value returned %d", e);
  return MPI_SUCCESS;
}

int get_attr(const char* call, MPI_Comm errcomm, core::AttrKind kind, int object, int keyval, void* value, int* flag) {
  if (!value || !flag) return raise_error(errcomm, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
  if (int e = check_user_keyval(call, errcomm, kind, keyval)) return e;
  void* v = nullptr;
  *flag = instance().attributes.get(object, keyval, v);
  if (*flag) *static_cast<void**>(value) = v;
  return MPI_SUCCESS;
}

int delete_attr(const char* call, MPI_Comm errcomm, core::AttrKind kind, int object, int keyval) {
  if (int e = check_user_keyval(call, errcomm, kind, keyval)) return e;
  bool found = false;
  if (int e = instance().attributes.remove(object, keyval, found))
    return raise_error(errcomm, e, call, "the delete callback returned %d", e);
  if (!found) return raise_error(errcomm, MPI_ERR_KEYVAL, call, "no attribute is set for keyval=0x%x", keyval);
  return MPI_SUCCESS;
}

int check_type_arg(const char* call, MPI_Datatype type) {
  std::size_t size;
  return check_type(call, MPI_COMM_WORLD, type, size);
}

}  // namespace

extern "C" {

// --- communicators ---

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", core::AttrKind::comm, reinterpret_cast<void*>(copy_fn),
                       reinterpret_cast<void*>(delete_fn), keyval, extra_state);
}
#pragma weak MPI_Comm_create_keyval = PMPI_Comm_create_keyval

int PMPI_Comm_free_keyval(int* keyval) { return free_keyval("MPI_Comm_free_keyval", core::AttrKind::comm, keyval); }
#pragma weak MPI_Comm_free_keyval = PMPI_Comm_free_keyval

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
  require_running("MPI_Comm_set_attr");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_set_attr", comm, c)) return e;
  return set_attr("MPI_Comm_set_attr", comm, core::AttrKind::comm, comm, keyval, value);
}
#pragma weak MPI_Comm_set_attr = PMPI_Comm_set_attr

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  const char* call = "MPI_Comm_get_attr";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (!value || !flag) return raise_error(comm, MPI_ERR_ARG, call, "attribute_val or flag is NULL");
  Instance& in = instance();
  int* found = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: found = &in.attr_tag_ub; break;
    case MPI_HOST: found = &in.attr_host; break;
    case MPI_IO: found = &in.attr_io; break;
    case MPI_WTIME_IS_GLOBAL: found = &in.attr_wtime_is_global; break;
    case MPI_UNIVERSE_SIZE: found = &in.attr_universe_size; break;
    case MPI_APPNUM: found = &in.attr_appnum; break;
    case MPI_LASTUSEDCODE: found = &in.attr_lastusedcode; break;
    default: return get_attr(call, comm, core::AttrKind::comm, comm, keyval, value, flag);
  }
  *flag = 1;
  *static_cast<int**>(value) = found;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  require_running("MPI_Comm_delete_attr");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_delete_attr", comm, c)) return e;
  return delete_attr("MPI_Comm_delete_attr", comm, core::AttrKind::comm, comm, keyval);
}
#pragma weak MPI_Comm_delete_attr = PMPI_Comm_delete_attr

// MPI-1 names.
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return create_keyval("MPI_Keyval_create", core::AttrKind::comm, reinterpret_cast<void*>(copy_fn),
                       reinterpret_cast<void*>(delete_fn), keyval, extra_state);
}
#pragma weak MPI_Keyval_create = PMPI_Keyval_create

int PMPI_Keyval_free(int* keyval) { return free_keyval("MPI_Keyval_free", core::AttrKind::comm, keyval); }
#pragma weak MPI_Keyval_free = PMPI_Keyval_free

int PMPI_Attr_put(MPI_Comm comm, int keyval, void* value) {
  require_running("MPI_Attr_put");
  core::Communicator* c;
  if (int e = check_comm("MPI_Attr_put", comm, c)) return e;
  return set_attr("MPI_Attr_put", comm, core::AttrKind::comm, comm, keyval, value);
}
#pragma weak MPI_Attr_put = PMPI_Attr_put

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* value, int* flag) { return PMPI_Comm_get_attr(comm, keyval, value, flag); }
#pragma weak MPI_Attr_get = PMPI_Attr_get

int PMPI_Attr_delete(MPI_Comm comm, int keyval) {
  require_running("MPI_Attr_delete");
  core::Communicator* c;
  if (int e = check_comm("MPI_Attr_delete", comm, c)) return e;
  return delete_attr("MPI_Attr_delete", comm, core::AttrKind::comm, comm, keyval);
}
#pragma weak MPI_Attr_delete = PMPI_Attr_delete

// --- datatypes (the datatype code runs copy_all on MPI_Type_dup and remove_all on free) ---

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  return create_keyval("MPI_Type_create_keyval", core::AttrKind::type, reinterpret_cast<void*>(copy_fn),
                       reinterpret_cast<void*>(delete_fn), keyval, extra_state);
}
#pragma weak MPI_Type_create_keyval = PMPI_Type_create_keyval

int PMPI_Type_free_keyval(int* keyval) { return free_keyval("MPI_Type_free_keyval", core::AttrKind::type, keyval); }
#pragma weak MPI_Type_free_keyval = PMPI_Type_free_keyval

int PMPI_Type_set_attr(MPI_Datatype type, int keyval, void* value) {
  require_running("MPI_Type_set_attr");
  if (int e = check_type_arg("MPI_Type_set_attr", type)) return e;
  return set_attr("MPI_Type_set_attr", MPI_COMM_WORLD, core::AttrKind::type, type, keyval, value);
}
#pragma weak MPI_Type_set_attr = PMPI_Type_set_attr

int PMPI_Type_get_attr(MPI_Datatype type, int keyval, void* value, int* flag) {
  require_running("MPI_Type_get_attr");
  if (int e = check_type_arg("MPI_Type_get_attr", type)) return e;
  return get_attr("MPI_Type_get_attr", MPI_COMM_WORLD, core::AttrKind::type, type, keyval, value, flag);
}
#pragma weak MPI_Type_get_attr = PMPI_Type_get_attr

int PMPI_Type_delete_attr(MPI_Datatype type, int keyval) {
  require_running("MPI_Type_delete_attr");
  if (int e = check_type_arg("MPI_Type_delete_attr", type)) return e;
  return delete_attr("MPI_Type_delete_attr", MPI_COMM_WORLD, core::AttrKind::type, type, keyval);
}
#pragma weak MPI_Type_delete_attr = PMPI_Type_delete_attr

// --- windows: keyvals here; MPI_Win_set/get/delete_attr belong to the window code (store kind win) ---

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* copy_fn, MPI_Win_delete_attr_function* delete_fn,
                           int* keyval, void* extra_state) {
  return create_keyval("MPI_Win_create_keyval", core::AttrKind::win, reinterpret_cast<void*>(copy_fn),
                       reinterpret_cast<void*>(delete_fn), keyval, extra_state);
}
#pragma weak MPI_Win_create_keyval = PMPI_Win_create_keyval

int PMPI_Win_free_keyval(int* keyval) { return free_keyval("MPI_Win_free_keyval", core::AttrKind::win, keyval); }
#pragma weak MPI_Win_free_keyval = PMPI_Win_free_keyval

}  // extern "C"
