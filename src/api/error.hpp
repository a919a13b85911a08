// Error reporting: every failing MPI call goes through raise_error(), which applies the error
// handler of the communicator involved (MPI_COMM_WORLD's when there is none or it is invalid).
#pragma once

#include "mpi.h"

namespace railmpi::api {

// Fatal handlers print "MPI_Send: invalid rank (MPI_ERR_RANK): dest=9, communicator size 4" with
// the rank, and end the job; MPI_ERRORS_RETURN returns errclass; user handlers are called first.
[[gnu::format(printf, 4, 5)]] int raise_error(MPI_Comm comm, int errclass, const char* call, const char* fmt, ...);

// As raise_error(), with error handler `handler` of the object (a window) whose handle is
// `object` (a user handler gets a pointer to it).
[[gnu::format(printf, 5, 6)]] int raise_object_error(int handler, int object, int errclass, const char* call,
                                                     const char* fmt, ...);

// As raise_error(), with error handler `handler` of file `file` (a user handler gets a pointer to
// the file handle, which is pointer-sized).
[[gnu::format(printf, 5, 6)]] int raise_file_error(int handler, MPI_File file, int errclass, const char* call,
                                                   const char* fmt, ...);

// A predefined error handler or one the program created (communicators, windows and files share
// them).
bool valid_errhandler(MPI_Errhandler handler);

// "MPI_ERR_RANK" for MPI_ERR_RANK; nullptr for an unknown class.
const char* error_class_name(int errclass);
// "invalid rank" for MPI_ERR_RANK; nullptr for an unknown class.
const char* error_class_text(int errclass);

}  // namespace railmpi::api
