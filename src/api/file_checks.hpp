// Argument checks and error reporting shared by the MPI-IO entry points. Errors on a file go
// through its error handler (MPI_ERRORS_RETURN unless set); errors with no file (an invalid
// handle, MPI_File_open, MPI_File_delete) through MPI_FILE_NULL's.
#pragma once

#include <cerrno>
#include <utility>

#include "api/checks.hpp"
#include "api/error.hpp"
#include "api/instance.hpp"

namespace railmpi::api {

template <class... Args>
int file_error(const FileObject* f, MPI_File fh, int errclass, const char* call, const char* fmt, Args... args) {
  const int handler = f ? f->errhandler : instance().file_null_errhandler;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-security"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  return raise_file_error(handler, f ? fh : MPI_FILE_NULL, errclass, call, fmt, args...);
#pragma GCC diagnostic pop
}

// The object of a live file handle, or MPI_ERR_FILE.
inline int check_file(const char* call, MPI_File fh, FileObject*& f) {
  require_running(call);
  f = instance().files.find(handle_of_file(fh));
  if (!f) [[unlikely]]
    return file_error(nullptr, fh, MPI_ERR_FILE, call, "fh=%p is not an open file", static_cast<void*>(fh));
  return MPI_SUCCESS;
}

// The error class of a failed file system call.
inline int io_error_class(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
      return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
      return MPI_ERR_ACCESS;
    case EROFS:
      return MPI_ERR_READ_ONLY;
    case ENOSPC:
      return MPI_ERR_NO_SPACE;
    case EDQUOT:
      return MPI_ERR_QUOTA;
    case ENAMETOOLONG:
    case EISDIR:
    case EINVAL:
      return MPI_ERR_BAD_FILE;
    case ETXTBSY:
      return MPI_ERR_FILE_IN_USE;
    default:
      return MPI_ERR_IO;
  }
}

}  // namespace railmpi::api
