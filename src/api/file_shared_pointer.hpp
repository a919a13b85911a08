// The shared file pointer of a file: an MPI_Offset (in etypes of the view) in a window at rank
// 0 of the file's communicator, read and moved with atomic fetch-and-add from any rank.
#pragma once

#include "api/files.hpp"

namespace railmpi::api {

// Adds `etypes` to the shared pointer; `before` gets its value before. Returns an MPI error code.
int shared_pointer_add(const FileObject& f, MPI_Offset etypes, MPI_Offset& before);
// Sets it (rank 0 only, inside a collective call that orders it with every other access).
int shared_pointer_set(const FileObject& f, MPI_Offset etypes);

// The end of the file in etypes of the file's view (the data the view shows of the file).
int view_end(const FileObject& f, MPI_Offset& etypes);

}  // namespace railmpi::api
