// What every MPI-IO data access call does: check its arguments, move the data between the
// program's buffer and the view's bytes, report the bytes in a status or a request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "api/file_checks.hpp"
#include "api/files.hpp"
#include "core/datatype.hpp"

namespace railmpi::api {

enum class Direction { read, write };

// Checks a data access on `fh` (open, the access mode allows `dir`, count, datatype; an explicit
// offset is refused on a file opened MPI_MODE_SEQUENTIAL). Fills `f` and `t`.
int check_access(const char* call, MPI_File fh, Direction dir, bool explicit_offset, int count, MPI_Datatype type,
                 FileObject*& f, core::TypeInfo& t);

// Moves `count` elements of `type` at `buf`, `bytes` in the file (access_file_bytes(), reckoned
// once an access), to or from the view's data bytes from `position` (bytes of the view); `done`
// gets the bytes moved (a read stops at the end of the file). An error of the file system goes
// through the file's handler.
int move_data(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position, void* buf,
              int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t bytes, std::size_t& done);

// Where a read puts the file's bytes in order: the program's buffer for a contiguous type in the
// native representation, else a staging buffer that unpack() spreads (and converts) over the
// program's buffer once the read is over.
class ReadTarget {
 public:
  // `bytes`: the access's bytes in the file (file_bytes()).
  ReadTarget(const FileObject& f, void* buf, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t bytes);
  std::byte* bytes() const { return to_; }
  // The first `done` bytes are in: into the program's buffer with them (whole elements, for a
  // representation other than native). A conversion's error goes through the file's handler.
  int unpack(const char* call, MPI_File fh, std::size_t done) const;

 private:
  const FileObject& f_;
  void* buf_;
  int count_;
  MPI_Datatype type_;
  std::size_t bytes_;
  std::unique_ptr<std::byte[]> staging_;
  std::byte* to_ = nullptr;
};

// A request already complete, with `bytes` moved (the non-blocking calls do their work at once).
void complete_request(const FileObject& f, std::size_t bytes, MPI_Request* request);

// A non-blocking access (MPI_File_i*): refuses a NULL `request`, runs `access(done)` (the whole
// access, at once) and hands back a request already complete.
template <class Access>
int begin_nonblocking(const char* call, MPI_File fh, MPI_Request* request, Access&& access);

// The status of an access that moved `bytes`.
void access_status(MPI_Status* status, std::size_t bytes);

// A split collective (MPI_File_*_begin): runs `access(done)` (the whole access, at once) and keeps
// its status for the matching _end; one split collective at a time per file.
template <class Access>
int begin_split(const char* call, MPI_File fh, FileObject& f, Access&& access);
// MPI_File_*_end: the status kept by the _begin.
int end_split(const char* call, MPI_File fh, MPI_Status* status);

// Records a finished split collective's status (begin_split()).
void keep_split_status(FileObject& f, std::size_t bytes);
// Whether a split collective may begin on `f` (MPI_SUCCESS) or one is open (its error).
int split_may_begin(const char* call, MPI_File fh, const FileObject& f);

template <class Access>
int begin_nonblocking(const char* call, MPI_File fh, MPI_Request* request, Access&& access) {
  if (!request) return file_error(instance().files.find(handle_of_file(fh)), fh, MPI_ERR_REQUEST, call, "request is NULL");
  std::size_t done = 0;
  if (int e = access(done)) return e;
  complete_request(*instance().files.find(handle_of_file(fh)), done, request);
  return MPI_SUCCESS;
}

template <class Access>
int begin_split(const char* call, MPI_File fh, FileObject& f, Access&& access) {
  if (int e = split_may_begin(call, fh, f)) return e;
  std::size_t done = 0;
  if (int e = access(done)) return e;
  keep_split_status(f, done);
  return MPI_SUCCESS;
}

}  // namespace railmpi::api
