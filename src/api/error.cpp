#include "api/error.hpp"

#include <cstdarg>
#include <cstdio>
#include <string>

#include "api/instance.hpp"
#include "base/log.hpp"

namespace railmpi::api {
namespace {

struct ClassInfo {
  int errclass;
  const char* name;
  const char* text;
};

constexpr ClassInfo kClasses[] = {
    {MPI_SUCCESS, "MPI_SUCCESS", "no error"},
    {MPI_ERR_BUFFER, "MPI_ERR_BUFFER", "invalid buffer pointer"},
    {MPI_ERR_COUNT, "MPI_ERR_COUNT", "invalid count argument"},
    {MPI_ERR_TYPE, "MPI_ERR_TYPE", "invalid datatype"},
    {MPI_ERR_TAG, "MPI_ERR_TAG", "invalid tag"},
    {MPI_ERR_COMM, "MPI_ERR_COMM", "invalid communicator"},
    {MPI_ERR_RANK, "MPI_ERR_RANK", "invalid rank"},
    {MPI_ERR_ROOT, "MPI_ERR_ROOT", "invalid root"},
    {MPI_ERR_GROUP, "MPI_ERR_GROUP", "invalid group"},
    {MPI_ERR_OP, "MPI_ERR_OP", "invalid reduce operation"},
    {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY", "invalid topology"},
    {MPI_ERR_DIMS, "MPI_ERR_DIMS", "invalid dimension argument"},
    {MPI_ERR_ARG, "MPI_ERR_ARG", "invalid argument"},
    {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN", "unknown error"},
    {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE", "message truncated: receive buffer too small"},
    {MPI_ERR_OTHER, "MPI_ERR_OTHER", "other error"},
    {MPI_ERR_INTERN, "MPI_ERR_INTERN", "internal error"},
    {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS", "error code is in status"},
    {MPI_ERR_PENDING, "MPI_ERR_PENDING", "pending request"},
    {MPI_ERR_REQUEST, "MPI_ERR_REQUEST", "invalid request"},
    {MPI_ERR_ACCESS, "MPI_ERR_ACCESS", "permission denied"},
    {MPI_ERR_AMODE, "MPI_ERR_AMODE", "invalid access mode"},
    {MPI_ERR_BAD_FILE, "MPI_ERR_BAD_FILE", "invalid file name"},
    {MPI_ERR_CONVERSION, "MPI_ERR_CONVERSION", "data conversion error"},
    {MPI_ERR_DUP_DATAREP, "MPI_ERR_DUP_DATAREP", "duplicate data representation"},
    {MPI_ERR_FILE_EXISTS, "MPI_ERR_FILE_EXISTS", "file exists"},
    {MPI_ERR_FILE_IN_USE, "MPI_ERR_FILE_IN_USE", "file in use"},
    {MPI_ERR_FILE, "MPI_ERR_FILE", "invalid file"},
    {MPI_ERR_INFO, "MPI_ERR_INFO", "invalid info object"},
    {MPI_ERR_INFO_KEY, "MPI_ERR_INFO_KEY", "invalid info key"},
    {MPI_ERR_INFO_VALUE, "MPI_ERR_INFO_VALUE", "invalid info value"},
    {MPI_ERR_INFO_NOKEY, "MPI_ERR_INFO_NOKEY", "info key not defined"},
    {MPI_ERR_IO, "MPI_ERR_IO", "I/O error"},
    {MPI_ERR_NAME, "MPI_ERR_NAME", "invalid service name"},
    {MPI_ERR_NO_MEM, "MPI_ERR_NO_MEM", "out of memory"},
    {MPI_ERR_NOT_SAME, "MPI_ERR_NOT_SAME", "arguments differ between processes"},
    {MPI_ERR_NO_SPACE, "MPI_ERR_NO_SPACE", "no space left"},
    {MPI_ERR_NO_SUCH_FILE, "MPI_ERR_NO_SUCH_FILE", "no such file"},
    {MPI_ERR_PORT, "MPI_ERR_PORT", "invalid port"},
    {MPI_ERR_QUOTA, "MPI_ERR_QUOTA", "quota exceeded"},
    {MPI_ERR_READ_ONLY, "MPI_ERR_READ_ONLY", "read-only file"},
    {MPI_ERR_SERVICE, "MPI_ERR_SERVICE", "invalid service"},
    {MPI_ERR_SPAWN, "MPI_ERR_SPAWN", "spawn error"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "MPI_ERR_UNSUPPORTED_DATAREP", "unsupported data representation"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION", "unsupported operation"},
    {MPI_ERR_WIN, "MPI_ERR_WIN", "invalid window"},
    {MPI_ERR_BASE, "MPI_ERR_BASE", "invalid base address"},
    {MPI_ERR_LOCKTYPE, "MPI_ERR_LOCKTYPE", "invalid lock type"},
    {MPI_ERR_KEYVAL, "MPI_ERR_KEYVAL", "invalid keyval"},
    {MPI_ERR_RMA_CONFLICT, "MPI_ERR_RMA_CONFLICT", "conflicting accesses to a window"},
    {MPI_ERR_RMA_SYNC, "MPI_ERR_RMA_SYNC", "wrong synchronization of RMA calls"},
    {MPI_ERR_SIZE, "MPI_ERR_SIZE", "invalid size"},
    {MPI_ERR_DISP, "MPI_ERR_DISP", "invalid displacement"},
    {MPI_ERR_ASSERT, "MPI_ERR_ASSERT", "invalid assert"},
    {MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "target memory is not part of the window"},
    {MPI_ERR_RMA_ATTACH, "MPI_ERR_RMA_ATTACH", "memory cannot be attached"},
    {MPI_ERR_RMA_SHARED, "MPI_ERR_RMA_SHARED", "memory cannot be shared"},
    {MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR", "wrong window flavor"},
};

const ClassInfo* find_class(int errclass) {
  for (const auto& c : kClasses)
    if (c.errclass == errclass) return &c;
  return nullptr;
}

}  // namespace

const char* error_class_name(int errclass) {
  const ClassInfo* c = find_class(errclass);
  return c ? c->name : nullptr;
}

const char* error_class_text(int errclass) {
  const ClassInfo* c = find_class(errclass);
  return c ? c->text : nullptr;
}

namespace {

// Applies error handler `handler` of the object whose handle `object` points at (an int, or an
// MPI_File).
int handle_error(int handler, void* object, int errclass, const char* call, const char* detail) {
  if (handler == MPI_ERRORS_RETURN) return errclass;
  const auto index = static_cast<std::uint32_t>(handler) & 0xffffu;
  if ((static_cast<std::uint32_t>(handler) >> 16) == 0x9400u && index < instance().user_errhandlers.size()) {
    int code = errclass;
    instance().user_errhandlers[index](static_cast<int*>(object), &code, call, detail);
    return errclass;
  }
  const char* name = error_class_name(errclass);
  abort_job(errclass, std::string(call) + ": " + (name ? error_class_text(errclass) : "error") + " (" +
                          (name ? name : "unknown class") + "): " + detail);
}

[[noreturn]] void not_running(int errclass, const char* call, const char* detail) {
  base::log_error("%s: %s (%s): %s (MPI is not running)", call, error_class_text(errclass), error_class_name(errclass),
                  detail);
  std::_Exit(1);
}

}  // namespace

int raise_error(MPI_Comm comm, int errclass, const char* call, const char* fmt, ...) {
  char detail[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);

  LibraryState& state = library_state();
  if (state.phase != Phase::running) not_running(errclass, call, detail);
  core::Communicator* c = find_comm(comm);
  if (!c) {
    c = &instance().world;
    comm = MPI_COMM_WORLD;
  }
  return handle_error(c->errhandler, &comm, errclass, call, detail);
}

namespace {

// An error of the object whose handle `object` points at, with error handler `handler`.
int raise_with(int handler, void* object, int errclass, const char* call, const char* fmt, va_list ap) {
  char detail[512];
  std::vsnprintf(detail, sizeof detail, fmt, ap);
  if (library_state().phase != Phase::running) not_running(errclass, call, detail);
  return handle_error(handler, object, errclass, call, detail);
}

}  // namespace

int raise_object_error(int handler, int object, int errclass, const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int e = raise_with(handler, &object, errclass, call, fmt, ap);
  va_end(ap);
  return e;
}

int raise_file_error(int handler, MPI_File file, int errclass, const char* call, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int e = raise_with(handler, &file, errclass, call, fmt, ap);
  va_end(ap);
  return e;
}

}  // namespace railmpi::api
