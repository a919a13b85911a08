// Data access with the shared file pointer: MPI_File_read_shared / _write_shared (and their
// non-blocking forms), the collective MPI_File_read_ordered / _write_ordered (rank order; split
// forms too), MPI_File_seek_shared and MPI_File_get_position_shared. The pointer is an MPI_Offset
// at rank 0 of the file's communicator, moved by MPI_Fetch_and_op under a shared lock.
#include <cstring>

#include "api/file_access.hpp"
#include "api/file_checks.hpp"
#include "api/file_datarep.hpp"
#include "api/file_shared_pointer.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace railmpi::api {

int shared_pointer_add(const FileObject& f, MPI_Offset etypes, MPI_Offset& before) {
  if (int e = PMPI_Win_lock(MPI_LOCK_SHARED, 0, 0, f.shared)) return e;
  if (int e = PMPI_Fetch_and_op(&etypes, &before, MPI_OFFSET, 0, 0, MPI_SUM, f.shared)) return e;
  return PMPI_Win_unlock(0, f.shared);
}

int shared_pointer_set(const FileObject& f, MPI_Offset etypes) {
  if (int e = PMPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, f.shared)) return e;
  *f.shared_base = etypes;
  return PMPI_Win_unlock(0, f.shared);
}

int view_end(const FileObject& f, MPI_Offset& etypes) {
  std::uint64_t bytes = 0;
  if (int err = f.file.size(bytes))
    return file_error(&f, MPI_FILE_NULL, io_error_class(err), "MPI_File_seek", "fstat of %s: %s", f.path.c_str(),
                      std::strerror(err));
  etypes = static_cast<MPI_Offset>(f.view.data_bytes_before(bytes) / f.etype_size);
  return MPI_SUCCESS;
}

}  // namespace railmpi::api

namespace {

// The etypes of the view that `bytes` of the file fill.
MPI_Offset etypes_of(const FileObject& f, std::size_t bytes) { return static_cast<MPI_Offset>(bytes / f.etype_size); }

// An access at the shared pointer, which moves past the data first (each rank's data go where
// the pointer was when it came).
int shared_access(const char* call, MPI_File fh, Direction dir, void* buf, int count, MPI_Datatype type,
                  std::size_t& done) {
  FileObject* f;
  core::TypeInfo t;
  if (int e = check_access(call, fh, dir, false, count, type, f, t)) return e;
  std::size_t bytes = 0;
  if (int e = access_file_bytes(call, fh, *f, count, type, t, bytes)) return e;
  MPI_Offset at = 0;
  if (int e = shared_pointer_add(*f, etypes_of(*f, bytes), at)) return e;
  const int e =
      move_data(call, fh, *f, dir, static_cast<std::uint64_t>(at) * f->etype_size, buf, count, type, t, bytes, done);
  done = memory_bytes(*f, done, count, bytes, t);
  return e;
}

// The collective access in rank order: rank r's data follow those of ranks 0..r-1 from where the
// shared pointer was, and the pointer moves past all of them.
int ordered_access(const char* call, MPI_File fh, Direction dir, void* buf, int count, MPI_Datatype type,
                   std::size_t& done) {
  FileObject* f;
  core::TypeInfo t;
  if (int e = check_access(call, fh, dir, false, count, type, f, t)) return e;
  std::size_t bytes = 0;
  // A rank whose bytes in the file cannot be reckoned (a user representation's extent function
  // failed; its error already raised) takes part in the collective calls below with no data: the
  // others wait for it there.
  const int failed = access_file_bytes(call, fh, *f, count, type, t, bytes);
  const MPI_Offset mine = failed ? 0 : etypes_of(*f, bytes);
  MPI_Offset before = 0, total = 0, start = 0;
  if (int e = PMPI_Exscan(&mine, &before, 1, MPI_OFFSET, MPI_SUM, f->comm)) return e;
  if (int e = PMPI_Allreduce(&mine, &total, 1, MPI_OFFSET, MPI_SUM, f->comm)) return e;
  int rank = 0;
  PMPI_Comm_rank(f->comm, &rank);
  if (rank == 0) {
    before = 0;  // MPI_Exscan leaves rank 0's result undefined
    if (int e = shared_pointer_add(*f, total, start)) return e;
  }
  if (int e = PMPI_Bcast(&start, 1, MPI_OFFSET, 0, f->comm)) return e;
  if (failed) return failed;
  const int e = move_data(call, fh, *f, dir, static_cast<std::uint64_t>(start + before) * f->etype_size, buf, count,
                          type, t, bytes, done);
  done = memory_bytes(*f, done, count, bytes, t);
  return e;
}

int blocking(int (*how)(const char*, MPI_File, Direction, void*, int, MPI_Datatype, std::size_t&), const char* call,
             MPI_File fh, Direction dir, void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  std::size_t done = 0;
  const int e = how(call, fh, dir, buf, count, type, done);
  if (e == MPI_SUCCESS) access_status(status, done);
  return e;
}

int ordered_begin(const char* call, MPI_File fh, Direction dir, void* buf, int count, MPI_Datatype type) {
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  return begin_split(call, fh, *f, [&](std::size_t& done) { return ordered_access(call, fh, dir, buf, count, type, done); });
}

constexpr Direction R = Direction::read, W = Direction::write;

}  // namespace

extern "C" {

int PMPI_File_read_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking(shared_access, "MPI_File_read_shared", fh, R, buf, count, datatype, status);
}
#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_write_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking(shared_access, "MPI_File_write_shared", fh, W, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking(ordered_access, "MPI_File_read_ordered", fh, R, buf, count, datatype, status);
}
#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking(ordered_access, "MPI_File_write_ordered", fh, W, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered

int PMPI_File_iread_shared(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  constexpr const char* call = "MPI_File_iread_shared";
  return begin_nonblocking(call, fh, request, [&](std::size_t& done) {
    return shared_access(call, fh, R, buf, count, datatype, done);
  });
}
#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  constexpr const char* call = "MPI_File_iwrite_shared";
  return begin_nonblocking(call, fh, request, [&](std::size_t& done) {
    return shared_access(call, fh, W, const_cast<void*>(buf), count, datatype, done);
  });
}
#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared

int PMPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return ordered_begin("MPI_File_read_ordered_begin", fh, R, buf, count, datatype);
}
#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_read_ordered_end", fh, status);
}
#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
int PMPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return ordered_begin("MPI_File_write_ordered_begin", fh, W, const_cast<void*>(buf), count, datatype);
}
#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_write_ordered_end", fh, status);
}
#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence) {
  constexpr const char* call = "MPI_File_seek_shared";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
    return file_error(f, fh, MPI_ERR_ARG, call, "whence=%d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
  long long mine[4] = {offset, -offset, whence, -whence}, all[4] = {0, 0, 0, 0};
  if (int e = PMPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_MAX, f->comm)) return e;
  if (all[0] != -all[1] || all[2] != -all[3])
    return file_error(f, fh, MPI_ERR_NOT_SAME, call, "the ranks gave different offsets or whence values");
  int rank = 0;
  PMPI_Comm_rank(f->comm, &rank);
  // Every rank's accesses through the pointer are over before rank 0 moves it.
  if (int e = PMPI_Barrier(f->comm)) return e;
  MPI_Offset to = -1;
  if (rank == 0) {
    MPI_Offset base = 0;
    if (whence == MPI_SEEK_CUR) {
      if (int e = shared_pointer_add(*f, 0, base)) return e;
    } else if (whence == MPI_SEEK_END) {
      if (int e = view_end(*f, base)) return e;
    }
    to = base + offset;
    if (to >= 0) {
      if (int e = shared_pointer_set(*f, to)) return e;
    }
  }
  if (int e = PMPI_Bcast(&to, 1, MPI_OFFSET, 0, f->comm)) return e;
  if (to < 0) return file_error(f, fh, MPI_ERR_ARG, call, "the shared pointer would move before the view's start");
  return MPI_SUCCESS;
}
#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset* offset) {
  constexpr const char* call = "MPI_File_get_position_shared";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (!offset) return file_error(f, fh, MPI_ERR_ARG, call, "offset is NULL");
  return shared_pointer_add(*f, 0, *offset);
}
#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared

}  // extern "C"
