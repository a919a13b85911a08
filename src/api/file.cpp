// Files: MPI_File_open / _close / _delete and what a file carries: size, access mode, group,
// info, error handler, atomicity, Fortran handle. Data access is in file_io.cpp (individual and
// collective), file_shared.cpp (the shared file pointer), the view in file_view.cpp.
#include <cstring>
#include <string_view>

#include "api/file_checks.hpp"
#include "api/file_collective.hpp"
#include "api/file_datarep.hpp"
#include "core/datatype/type_table.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

constexpr int kAccessModes = MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR;

// Why `amode` is not a valid access mode (nullptr when it is).
const char* bad_amode(int amode) {
  const int access = amode & kAccessModes;
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR is required";
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return "MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL";
  if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL)) return "MPI_MODE_SEQUENTIAL with MPI_MODE_RDWR";
  constexpr int known = kAccessModes | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                        MPI_MODE_EXCL | MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
  if (amode & ~known) return "unknown bits";
  return nullptr;
}

// The path of a file name, without a file system prefix ("ufs:/path", as ROMIO accepts).
std::string path_of(const char* name) {
  const std::string_view n(name);
  for (std::string_view prefix : {"ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:"}) {
    if (n.substr(0, prefix.size()) == prefix) return std::string(n.substr(prefix.size()));
  }
  return std::string(n);
}

io::PosixFile::Mode mode_of(int amode, bool create) {
  io::PosixFile::Mode m;
  m.access = (amode & MPI_MODE_RDONLY)   ? io::PosixFile::Access::read
             : (amode & MPI_MODE_WRONLY) ? io::PosixFile::Access::write
                                         : io::PosixFile::Access::read_write;
  m.create = create && (amode & MPI_MODE_CREATE);
  m.exclusive = create && (amode & MPI_MODE_EXCL);
  return m;
}

int info_check(const char* call, MPI_Info info) {
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_INFO, call, "info=0x%x is not a valid info object",
                      static_cast<unsigned>(info));
  return MPI_SUCCESS;
}

// The file's size in bytes, or an error through its handler.
int size_of(const char* call, MPI_File fh, const FileObject& f, std::uint64_t& bytes) {
  if (int err = f.file.size(bytes))
    return file_error(&f, fh, io_error_class(err), call, "fstat of %s: %s", f.path.c_str(), std::strerror(err));
  return MPI_SUCCESS;
}

// The end of a collective file call: rank 0 did the work (its error `err`, an errno value) and
// tells the others, so that every rank returns the same.
int agree(const char* call, MPI_File fh, const FileObject& f, int err, const char* what) {
  if (int e = PMPI_Bcast(&err, 1, MPI_INT, 0, f.comm)) return e;
  if (err) return file_error(&f, fh, io_error_class(err), call, "%s of %s: %s", what, f.path.c_str(), std::strerror(err));
  return MPI_SUCCESS;
}

bool my_rank_is_first(const FileObject& f) {
  int rank = 0;
  PMPI_Comm_rank(f.comm, &rank);
  return rank == 0;
}

// MPI_File_set_size and MPI_File_preallocate: checks, then rank 0 changes the file (`change`
// returns an errno value) and tells the others.
template <class Change>
int resize(const char* call, MPI_File fh, MPI_Offset size, Change&& change) {
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (size < 0) return file_error(f, fh, MPI_ERR_ARG, call, "size=%lld is negative", static_cast<long long>(size));
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return file_error(f, fh, MPI_ERR_UNSUPPORTED_OPERATION, call, "the file was opened with MPI_MODE_SEQUENTIAL");
  if (f->amode & MPI_MODE_RDONLY) return file_error(f, fh, MPI_ERR_READ_ONLY, call, "the file was opened MPI_MODE_RDONLY");
  const int err = my_rank_is_first(*f) ? change(f->file, static_cast<std::uint64_t>(size)) : 0;
  return agree(call, fh, *f, err, call);
}

void release_view_types(FileObject& f) {
  Instance& in = instance();
  for (MPI_Datatype t : {f.etype, f.filetype}) {
    if (type_info(t).derived) core::dtype::release(in.types, t);
  }
}

}  // namespace

extern "C" {

int PMPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  constexpr const char* call = "MPI_File_open";
  require_running(call);
  Instance& in = instance();
  core::Communicator* c = find_comm(comm);
  if (!c) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_COMM, call, "comm=0x%x is not a valid communicator", unsigned(comm));
  if (c->is_inter())
    return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_COMM, call, "comm=0x%x is an intercommunicator", unsigned(comm));
  if (!fh) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_ARG, call, "fh is NULL");
  if (!filename) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_BAD_FILE, call, "filename is NULL");
  if (const char* why = bad_amode(amode))
    return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_AMODE, call, "amode=0x%x: %s", unsigned(amode), why);
  if (int e = info_check(call, info)) return e;

  auto f = std::make_unique<FileObject>();
  f->path = path_of(filename);
  f->amode = amode;
  if (int e = PMPI_Comm_dup(comm, &f->comm)) return e;
  int rank = 0, size = 1;
  PMPI_Comm_rank(f->comm, &rank);
  PMPI_Comm_size(f->comm, &size);
  // Rank 0 creates the file (MPI_MODE_EXCL: only it may), then the others open what it made.
  // Every rank returns the first error any rank met, and all must have given the same amode.
  int err = rank == 0 ? f->file.open(f->path, mode_of(amode, true)) : 0;
  if (int e = PMPI_Bcast(&err, 1, MPI_INT, 0, f->comm)) return e;
  if (!err && rank != 0) err = f->file.open(f->path, mode_of(amode, false));
  int mine[3] = {err, amode, -amode}, all[3] = {0, 0, 0};
  if (int e = PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, f->comm)) return e;
  if (all[0] != 0 || all[1] != -all[2]) {
    f->file.close();
    PMPI_Comm_free(&f->comm);
    if (all[1] != -all[2])
      return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_NOT_SAME, call, "the ranks gave different amodes");
    const int e = all[0];
    return file_error(nullptr, MPI_FILE_NULL, io_error_class(e), call, "%s: %s%s", f->path.c_str(), std::strerror(e),
                      err ? "" : " (on another rank)");
  }
  if (info != MPI_INFO_NULL) PMPI_Info_dup(info, &f->info);
  // The shared file pointer lives at rank 0.
  MPI_Offset* shared = nullptr;
  if (int e = PMPI_Win_allocate(rank == 0 ? static_cast<MPI_Aint>(sizeof(MPI_Offset)) : 0, sizeof(MPI_Offset),
                                MPI_INFO_NULL, f->comm, &shared, &f->shared))
    return e;
  if (amode & MPI_MODE_APPEND) {  // both file pointers start at the end
    std::uint64_t bytes = 0;
    f->file.size(bytes);
    f->pointer = static_cast<MPI_Offset>(bytes);
    if (rank == 0) *shared = static_cast<MPI_Offset>(bytes);
  }
  f->shared_base = shared;
  if (int e = choose_collective_buffering(*f, info)) return e;  // also orders the shared pointer's start
  *fh = file_of_handle(in.files.add(std::move(f)));
  return MPI_SUCCESS;
}
#pragma weak MPI_File_open = PMPI_File_open

int PMPI_File_close(MPI_File* fh) {
  constexpr const char* call = "MPI_File_close";
  require_running(call);
  if (!fh) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_ARG, call, "fh is NULL");
  FileObject* f;
  if (int e = check_file(call, *fh, f)) return e;
  if (int e = PMPI_Win_free(&f->shared)) return e;  // collective: every rank is done with the file
  const int err = f->file.close();
  int unlinked = 0;
  if ((f->amode & MPI_MODE_DELETE_ON_CLOSE) && my_rank_is_first(*f)) unlinked = io::remove_file(f->path);
  if (f->amode & MPI_MODE_DELETE_ON_CLOSE) PMPI_Bcast(&unlinked, 1, MPI_INT, 0, f->comm);
  release_view_types(*f);
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  MPI_Comm comm = f->comm;
  const std::string path = f->path;
  const int handler = f->errhandler;
  const MPI_File closing = *fh;
  instance().files.release(handle_of_file(*fh));
  PMPI_Comm_free(&comm);
  *fh = MPI_FILE_NULL;
  if (err) return raise_file_error(handler, closing, io_error_class(err), call, "close of %s: %s", path.c_str(), std::strerror(err));
  if (unlinked)
    return raise_file_error(handler, closing, io_error_class(unlinked), call, "removing %s (MPI_MODE_DELETE_ON_CLOSE): %s",
                            path.c_str(), std::strerror(unlinked));
  return MPI_SUCCESS;
}
#pragma weak MPI_File_close = PMPI_File_close

int PMPI_File_delete(const char* filename, MPI_Info info) {
  constexpr const char* call = "MPI_File_delete";
  require_running(call);
  if (!filename) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_BAD_FILE, call, "filename is NULL");
  if (int e = info_check(call, info)) return e;
  const std::string path = path_of(filename);
  if (int err = io::remove_file(path))
    return file_error(nullptr, MPI_FILE_NULL, io_error_class(err), call, "%s: %s", path.c_str(), std::strerror(err));
  return MPI_SUCCESS;
}
#pragma weak MPI_File_delete = PMPI_File_delete

int PMPI_File_get_size(MPI_File fh, MPI_Offset* size) {
  constexpr const char* call = "MPI_File_get_size";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (!size) return file_error(f, fh, MPI_ERR_ARG, call, "size is NULL");
  std::uint64_t bytes = 0;
  if (int e = size_of(call, fh, *f, bytes)) return e;
  *size = static_cast<MPI_Offset>(bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_size = PMPI_File_get_size

int PMPI_File_set_size(MPI_File fh, MPI_Offset size) {
  return resize("MPI_File_set_size", fh, size, [](const io::PosixFile& file, std::uint64_t bytes) {
    return file.truncate(bytes);
  });
}
#pragma weak MPI_File_set_size = PMPI_File_set_size

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  return resize("MPI_File_preallocate", fh, size, [](const io::PosixFile& file, std::uint64_t bytes) {
    return file.preallocate(bytes);
  });
}
#pragma weak MPI_File_preallocate = PMPI_File_preallocate

int PMPI_File_sync(MPI_File fh) {
  constexpr const char* call = "MPI_File_sync";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  int err = f->file.sync(), any = 0;
  if (int e = PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, f->comm)) return e;
  if (any) return file_error(f, fh, io_error_class(any), call, "fsync of %s: %s", f->path.c_str(), std::strerror(any));
  return MPI_SUCCESS;
}
#pragma weak MPI_File_sync = PMPI_File_sync

int PMPI_File_get_amode(MPI_File fh, int* amode) {
  FileObject* f;
  if (int e = check_file("MPI_File_get_amode", fh, f)) return e;
  if (!amode) return file_error(f, fh, MPI_ERR_ARG, "MPI_File_get_amode", "amode is NULL");
  *amode = f->amode;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_amode = PMPI_File_get_amode

int PMPI_File_get_group(MPI_File fh, MPI_Group* group) {
  FileObject* f;
  if (int e = check_file("MPI_File_get_group", fh, f)) return e;
  if (!group) return file_error(f, fh, MPI_ERR_ARG, "MPI_File_get_group", "group is NULL");
  return PMPI_Comm_group(f->comm, group);
}
#pragma weak MPI_File_get_group = PMPI_File_get_group

int PMPI_File_get_info(MPI_File fh, MPI_Info* info_used) {
  FileObject* f;
  if (int e = check_file("MPI_File_get_info", fh, f)) return e;
  if (!info_used) return file_error(f, fh, MPI_ERR_ARG, "MPI_File_get_info", "info_used is NULL");
  if (f->info != MPI_INFO_NULL) return PMPI_Info_dup(f->info, info_used);
  return PMPI_Info_create(info_used);
}
#pragma weak MPI_File_get_info = PMPI_File_get_info

int PMPI_File_set_info(MPI_File fh, MPI_Info info) {
  constexpr const char* call = "MPI_File_set_info";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return file_error(f, fh, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", unsigned(info));
  if (int e = choose_collective_buffering(*f, info)) return e;  // collective, as MPI_File_set_info is
  if (info == MPI_INFO_NULL) return MPI_SUCCESS;
  if (f->info != MPI_INFO_NULL) PMPI_Info_free(&f->info);
  return PMPI_Info_dup(info, &f->info);
}
#pragma weak MPI_File_set_info = PMPI_File_set_info

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  constexpr const char* call = "MPI_File_set_errhandler";
  require_running(call);
  FileObject* f = file == MPI_FILE_NULL ? nullptr : instance().files.find(handle_of_file(file));
  if (file != MPI_FILE_NULL && !f)
    return file_error(nullptr, file, MPI_ERR_FILE, call, "file=%p is not an open file", static_cast<void*>(file));
  if (!valid_errhandler(errhandler))
    return file_error(f, file, MPI_ERR_ARG, call, "errhandler=0x%x is not a valid error handler", unsigned(errhandler));
  (f ? f->errhandler : instance().file_null_errhandler) = errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  constexpr const char* call = "MPI_File_get_errhandler";
  require_running(call);
  FileObject* f = file == MPI_FILE_NULL ? nullptr : instance().files.find(handle_of_file(file));
  if (file != MPI_FILE_NULL && !f)
    return file_error(nullptr, file, MPI_ERR_FILE, call, "file=%p is not an open file", static_cast<void*>(file));
  if (!errhandler) return file_error(f, file, MPI_ERR_ARG, call, "errhandler is NULL");
  *errhandler = f ? f->errhandler : instance().file_null_errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  constexpr const char* call = "MPI_File_call_errhandler";
  require_running(call);
  FileObject* f = fh == MPI_FILE_NULL ? nullptr : instance().files.find(handle_of_file(fh));
  if (fh != MPI_FILE_NULL && !f)
    return file_error(nullptr, fh, MPI_ERR_FILE, call, "fh=%p is not an open file", static_cast<void*>(fh));
  file_error(f, fh, errorcode, call, "called by the program with error code %d", errorcode);
  return MPI_SUCCESS;
}
#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler

MPI_Fint PMPI_File_c2f(MPI_File file) { return file == MPI_FILE_NULL ? 0 : handle_of_file(file); }
#pragma weak MPI_File_c2f = PMPI_File_c2f

MPI_File PMPI_File_f2c(MPI_Fint file) { return file == 0 ? MPI_FILE_NULL : file_of_handle(file); }
#pragma weak MPI_File_f2c = PMPI_File_f2c

int PMPI_File_set_atomicity(MPI_File fh, int flag) {
  constexpr const char* call = "MPI_File_set_atomicity";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  int mine[2] = {flag != 0, -(flag != 0)}, all[2] = {0, 0};
  if (int e = PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, f->comm)) return e;
  if (all[0] != -all[1]) return file_error(f, fh, MPI_ERR_NOT_SAME, call, "the ranks gave different flags");
  // In atomic mode each access holds a lock of the file system on its span (file_io.cpp).
  f->atomic = flag != 0;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity

int PMPI_File_get_atomicity(MPI_File fh, int* flag) {
  FileObject* f;
  if (int e = check_file("MPI_File_get_atomicity", fh, f)) return e;
  if (!flag) return file_error(f, fh, MPI_ERR_ARG, "MPI_File_get_atomicity", "flag is NULL");
  *flag = f->atomic;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint* extent) {
  constexpr const char* call = "MPI_File_get_type_extent";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  const core::TypeInfo t = type_info(datatype);
  if (!t.valid) return file_error(f, fh, MPI_ERR_TYPE, call, "datatype=0x%x is not a valid datatype", unsigned(datatype));
  if (!extent) return file_error(f, fh, MPI_ERR_ARG, call, "extent is NULL");
  MPI_Datatype in_file = datatype;
  if (int e = file_form(*f, datatype, in_file))
    return file_error(f, fh, e, call, "the file extents of datarep \"%s\"", f->datarep.c_str());
  *extent = type_info(in_file).extent;  // "native" and "internal": the memory extent
  if (in_file != datatype) PMPI_Type_free(&in_file);
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent

}  // extern "C"
