// Data access with explicit offsets and the individual file pointer: MPI_File_read/_write, their
// _at, _all, _at_all forms, the non-blocking (i) and split collective (_begin/_end) ones.
// Collective forms do what the independent ones do (every rank's access is its own pread or
// pwrite runs); non-blocking ones complete before they return.
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "api/file_access.hpp"
#include "api/file_checks.hpp"
#include "api/file_collective.hpp"
#include "api/file_datarep.hpp"
#include "api/typed_buffer.hpp"
#include "core/datatype.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace railmpi::api {

int check_access(const char* call, MPI_File fh, Direction dir, bool explicit_offset, int count, MPI_Datatype type,
                 FileObject*& f, core::TypeInfo& t) {
  if (int e = check_file(call, fh, f)) return e;
  if (dir == Direction::read && (f->amode & MPI_MODE_WRONLY))
    return file_error(f, fh, MPI_ERR_ACCESS, call, "read from a file opened MPI_MODE_WRONLY");
  if (dir == Direction::write && (f->amode & MPI_MODE_RDONLY))
    return file_error(f, fh, MPI_ERR_READ_ONLY, call, "write to a file opened MPI_MODE_RDONLY");
  if (explicit_offset && (f->amode & MPI_MODE_SEQUENTIAL))
    return file_error(f, fh, MPI_ERR_UNSUPPORTED_OPERATION, call,
                      "explicit offsets on a file opened MPI_MODE_SEQUENTIAL");
  if (count < 0) return file_error(f, fh, MPI_ERR_COUNT, call, "count=%d is negative", count);
  t = type_info(type);
  if (!t.valid) return file_error(f, fh, MPI_ERR_TYPE, call, "datatype=0x%x is not a committed datatype", unsigned(type));
  return MPI_SUCCESS;
}

namespace {

// Reads through a view of runs with small holes between them: whole stretches of the access's
// span (up to kSieveChunk bytes) with one pread each, then the runs out of them (data sieving),
// instead of one pread per run. A pread costs about what copying 32 KiB more does (2 ranks,
// views of blocks dealt round robin, 4 MiB per rank, file in the page cache, bench/lib_ab.sh
// osu_io strided_read, MB/s of both: one pread per run 4400 at 4 KiB blocks, 8300 at 8 KiB,
// 14800 at 16 KiB, 23600 at 32 KiB, 36400 at 64 KiB; sieving 23400 at 2 KiB). Sieving when the
// holes average under kSieveGapMax and the runs under kSieveRunMax (larger runs are read
// straight into place, without the copy out of the stretch).
constexpr std::uint64_t kSieveGapMax = 32 * 1024;
constexpr std::uint64_t kSieveRunMax = 1024 * 1024;
constexpr std::size_t kSieveChunk = std::size_t{4} << 20;

int sieve_read(FileObject& f, std::uint64_t position, std::size_t bytes, std::byte* to, std::size_t& done) {
  const std::uint64_t span_end = f.view.file_offset(position + bytes - 1) + 1;
  std::byte* const chunk_memory = f.scratch[0].take(static_cast<std::size_t>(std::min<std::uint64_t>(kSieveChunk, span_end)));
  std::span<std::byte> chunk;
  std::uint64_t chunk_at = 0, chunk_valid = 0;  // the file's bytes [chunk_at, chunk_at + chunk_valid)
  bool at_end = false;
  int err = 0;
  f.view.for_each_run(position, bytes, [&](std::uint64_t offset, std::uint64_t n) {
    while (n > 0) {
      if (offset < chunk_at || offset >= chunk_at + chunk_valid) {
        if (at_end && offset >= chunk_at + chunk_valid) return false;
        chunk = {chunk_memory, static_cast<std::size_t>(std::min<std::uint64_t>(kSieveChunk, span_end - offset))};
        std::size_t got = 0;
        if ((err = f.file.read_at(offset, chunk, got))) return false;
        chunk_at = offset;
        chunk_valid = got;
        at_end = got < chunk.size();
        if (got == 0) return false;
      }
      const std::uint64_t k = std::min(n, chunk_at + chunk_valid - offset);
      std::memcpy(to + done, chunk.data() + (offset - chunk_at), static_cast<std::size_t>(k));
      done += static_cast<std::size_t>(k);
      offset += k;
      n -= k;
      if (n > 0 && at_end) return false;  // the file ends inside this run
    }
    return true;
  });
  return err;
}

}  // namespace

int move_data(const char* call, MPI_File fh, FileObject& f, Direction dir, std::uint64_t position, void* buf,
              int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t bytes, std::size_t& done) {
  done = 0;
  if (bytes == 0) return MPI_SUCCESS;
  // A write's bytes as the file holds them; a read's place for them.
  PackedView data;
  if (dir == Direction::write) {
    if (int e = file_data_of(call, fh, f, buf, count, type, t, bytes, data)) return e;
  }
  std::optional<ReadTarget> target;
  if (dir == Direction::read) target.emplace(f, buf, count, type, t, bytes);
  int err = 0;
  // Atomic mode: the access's span of the file is locked for it (other processes' conflicting
  // accesses in atomic mode wait), so that its runs land or are read as one.
  std::uint64_t span_start = 0, span_bytes = 0;
  if (f.atomic) {
    span_start = f.view.file_offset(position);
    span_bytes = f.view.file_offset(position + bytes - 1) + 1 - span_start;
    if (int e = f.file.lock(span_start, span_bytes, dir == Direction::write); e && e != ENOLCK && e != EBADF)
      return file_error(&f, fh, io_error_class(e), call, "locking %s for an atomic access: %s", f.path.c_str(),
                        std::strerror(e));
  }
  if (dir == Direction::write) {
    const auto* from = static_cast<const std::byte*>(data.ptr);
    f.view.for_each_run(position, bytes, [&](std::uint64_t offset, std::uint64_t n) {
      std::size_t wrote = 0;
      err = f.file.write_at(offset, {from + done, static_cast<std::size_t>(n)}, wrote);
      done += wrote;
      return err == 0;
    });
  } else {
    std::byte* to = target->bytes();
    if (f.view.mean_gap() < kSieveGapMax && f.view.mean_run() < kSieveRunMax) {
      err = sieve_read(f, position, bytes, to, done);
    } else {
      f.view.for_each_run(position, bytes, [&](std::uint64_t offset, std::uint64_t n) {
        std::size_t got = 0;
        err = f.file.read_at(offset, {to + done, static_cast<std::size_t>(n)}, got);
        done += got;
        return err == 0 && got == n;  // a short read: the end of the file
      });
    }
  }
  if (f.atomic) f.file.unlock(span_start, span_bytes);
  if (err)
    return file_error(&f, fh, io_error_class(err), call, "%s %s: %s", dir == Direction::write ? "pwrite to" : "pread from",
                      f.path.c_str(), std::strerror(err));
  return target ? target->unpack(call, fh, done) : MPI_SUCCESS;
}

ReadTarget::ReadTarget(const FileObject& f, void* buf, int count, MPI_Datatype type, const core::TypeInfo& t,
                       std::size_t bytes)
    : f_(f), buf_(buf), count_(count), type_(type), bytes_(bytes) {
  if (t.contiguous && f.rep == Representation::native) {
    to_ = static_cast<std::byte*>(const_cast<void*>(contiguous_start(buf, t)));
  } else {
    staging_.reset(new std::byte[std::max<std::size_t>(bytes, 1)]);
    to_ = staging_.get();
  }
}

int ReadTarget::unpack(const char* call, MPI_File fh, std::size_t done) const {
  if (!staging_ || done == 0) return MPI_SUCCESS;
  if (f_.rep == Representation::native) {
    core::unpack(instance().types, staging_.get(), done, static_cast<std::size_t>(count_), type_, buf_);
    return MPI_SUCCESS;
  }
  const std::size_t per_element = count_ > 0 ? bytes_ / static_cast<std::size_t>(count_) : 0;
  const std::size_t whole = per_element ? done / per_element : 0;
  return memory_data_of(call, fh, f_, staging_.get(), whole, type_, buf_);
}

void complete_request(const FileObject& f, std::size_t bytes, MPI_Request* request) {
  core::RequestSlot* s = instance().requests.allocate();
  s->op = core::RequestOp::file;
  s->comm = f.comm;
  s->error = MPI_SUCCESS;
  s->p2p.status_bytes = bytes;
  s->p2p.complete = true;
  *request = s->handle;
}

void access_status(MPI_Status* status, std::size_t bytes) {
  set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, bytes, false, MPI_SUCCESS);
}

int split_may_begin(const char* call, MPI_File fh, const FileObject& f) {
  if (f.split_open)
    return file_error(&f, fh, MPI_ERR_OTHER, call, "a split collective on this file is begun and not ended");
  return MPI_SUCCESS;
}

void keep_split_status(FileObject& f, std::size_t bytes) {
  f.split_open = true;
  std::memset(&f.split_status, 0, sizeof f.split_status);
  access_status(&f.split_status, bytes);
}

int end_split(const char* call, MPI_File fh, MPI_Status* status) {
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (!f->split_open) return file_error(f, fh, MPI_ERR_OTHER, call, "no split collective on this file is begun");
  f->split_open = false;
  if (status != MPI_STATUS_IGNORE) *status = f->split_status;
  return MPI_SUCCESS;
}

}  // namespace railmpi::api

namespace {

enum class From { explicit_offset, individual_pointer };

// Where an access starts, and whether its call is a collective one (MPI_File_*_all and their split
// and non-blocking forms: they go by two phases when the file's collective buffering is on).
struct Where {
  From from;
  bool collective;
};

// A blocking access at `offset` (etypes; From::individual_pointer: at the file pointer, which then
// moves past the data).
int access(const char* call, MPI_File fh, Direction dir, Where where, MPI_Offset offset, void* buf, int count,
           MPI_Datatype type, std::size_t& done) {
  const From from = where.from;
  FileObject* f;
  core::TypeInfo t;
  if (int e = check_access(call, fh, dir, from == From::explicit_offset, count, type, f, t)) return e;
  if (from == From::explicit_offset && offset < 0)
    return file_error(f, fh, MPI_ERR_ARG, call, "offset=%lld is negative", static_cast<long long>(offset));
  if (from == From::individual_pointer && (f->amode & MPI_MODE_SEQUENTIAL))
    return file_error(f, fh, MPI_ERR_UNSUPPORTED_OPERATION, call,
                      "the individual file pointer on a file opened MPI_MODE_SEQUENTIAL");
  if (!buf && count > 0 && t.contiguous) return file_error(f, fh, MPI_ERR_BUFFER, call, "buf is NULL");
  const MPI_Offset at = from == From::explicit_offset ? offset : f->pointer;
  const std::uint64_t position = static_cast<std::uint64_t>(at) * f->etype_size;
  const bool two_phase = where.collective && (dir == Direction::read ? f->buffered_reads : f->buffered_writes);
  std::size_t bytes = 0;
  const int failed = access_file_bytes(call, fh, *f, count, type, t, bytes);
  if (failed && !two_phase) return failed;
  const int e = two_phase ? move_data_two_phase(call, fh, *f, dir, position, buf, count, type, t, bytes, failed, done)
                          : move_data(call, fh, *f, dir, position, buf, count, type, t, bytes, done);
  if (from == From::individual_pointer) f->pointer += static_cast<MPI_Offset>(done / f->etype_size);
  done = memory_bytes(*f, done, count, bytes, t);
  return e;
}

int blocking(const char* call, MPI_File fh, Direction dir, Where where, MPI_Offset offset, void* buf, int count,
             MPI_Datatype type, MPI_Status* status) {
  std::size_t done = 0;
  const int e = access(call, fh, dir, where, offset, buf, count, type, done);
  if (e == MPI_SUCCESS) access_status(status, done);
  return e;
}

int nonblocking(const char* call, MPI_File fh, Direction dir, Where where, MPI_Offset offset, void* buf, int count,
                MPI_Datatype type, MPI_Request* request) {
  return begin_nonblocking(call, fh, request, [&](std::size_t& done) {
    return access(call, fh, dir, where, offset, buf, count, type, done);
  });
}

int split_begin(const char* call, MPI_File fh, Direction dir, Where where, MPI_Offset offset, void* buf, int count,
                MPI_Datatype type) {
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  return begin_split(call, fh, *f, [&](std::size_t& done) {
    return access(call, fh, dir, where, offset, buf, count, type, done);
  });
}

constexpr Direction R = Direction::read, W = Direction::write;
constexpr Where AT{From::explicit_offset, false}, PTR{From::individual_pointer, false};
constexpr Where AT_ALL{From::explicit_offset, true}, PTR_ALL{From::individual_pointer, true};

}  // namespace

extern "C" {

int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_at", fh, R, AT, offset, buf, count, datatype, status);
}
#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                          MPI_Status* status) {
  return blocking("MPI_File_read_at_all", fh, R, AT_ALL, offset, buf, count, datatype, status);
}
#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                       MPI_Status* status) {
  return blocking("MPI_File_write_at", fh, W, AT, offset, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                           MPI_Status* status) {
  return blocking("MPI_File_write_at_all", fh, W, AT_ALL, offset, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all

int PMPI_File_read(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read", fh, R, PTR, 0, buf, count, datatype, status);
}
#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_read_all", fh, R, PTR_ALL, 0, buf, count, datatype, status);
}
#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_write(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write", fh, W, PTR, 0, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  return blocking("MPI_File_write_all", fh, W, PTR_ALL, 0, const_cast<void*>(buf), count, datatype, status);
}
#pragma weak MPI_File_write_all = PMPI_File_write_all

int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                       MPI_Request* request) {
  return nonblocking("MPI_File_iread_at", fh, R, AT, offset, buf, count, datatype, request);
}
#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                           MPI_Request* request) {
  return nonblocking("MPI_File_iread_at_all", fh, R, AT_ALL, offset, buf, count, datatype, request);
}
#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                        MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at", fh, W, AT, offset, const_cast<void*>(buf), count, datatype, request);
}
#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype,
                            MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_at_all", fh, W, AT_ALL, offset, const_cast<void*>(buf), count, datatype, request);
}
#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iread(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread", fh, R, PTR, 0, buf, count, datatype, request);
}
#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iread_all", fh, R, PTR_ALL, 0, buf, count, datatype, request);
}
#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iwrite(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite", fh, W, PTR, 0, const_cast<void*>(buf), count, datatype, request);
}
#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblocking("MPI_File_iwrite_all", fh, W, PTR_ALL, 0, const_cast<void*>(buf), count, datatype, request);
}
#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype) {
  return split_begin("MPI_File_read_at_all_begin", fh, R, AT_ALL, offset, buf, count, datatype);
}
#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_read_at_all_end", fh, status);
}
#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count, MPI_Datatype datatype) {
  return split_begin("MPI_File_write_at_all_begin", fh, W, AT_ALL, offset, const_cast<void*>(buf), count, datatype);
}
#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_write_at_all_end", fh, status);
}
#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
int PMPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  return split_begin("MPI_File_read_all_begin", fh, R, PTR_ALL, 0, buf, count, datatype);
}
#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_read_all_end", fh, status);
}
#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
int PMPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  return split_begin("MPI_File_write_all_begin", fh, W, PTR_ALL, 0, const_cast<void*>(buf), count, datatype);
}
#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  (void)buf;
  return end_split("MPI_File_write_all_end", fh, status);
}
#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end

}  // extern "C"
