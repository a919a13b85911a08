// File views and the individual file pointer: MPI_File_set_view / _get_view, MPI_File_seek,
// MPI_File_get_position, MPI_File_get_byte_offset.
#include <cstring>
#include <string_view>

#include "api/file_checks.hpp"
#include "api/file_collective.hpp"
#include "api/file_datarep.hpp"
#include "api/file_shared_pointer.hpp"
#include "core/datatype/datatype.hpp"
#include "core/datatype/type_table.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// The file bytes a view over `filetype` from `disp` shows.
io::FileView view_of(MPI_Offset disp, MPI_Datatype filetype, const core::TypeInfo& t) {
  const auto d = static_cast<std::uint64_t>(disp);
  if (t.contiguous) return io::FileView(d + static_cast<std::uint64_t>(t.true_lb));
  base::Layout layout;
  if (!core::layout_of(instance().types, nullptr, 1, filetype, layout)) return io::FileView(d + static_cast<std::uint64_t>(t.true_lb));
  std::vector<base::Strided> tile;
  tile.reserve(layout.blocks.size() * layout.repeat);
  for (std::size_t k = 0; k < layout.repeat; ++k) {
    for (base::Strided b : layout.blocks) {
      b.offset += static_cast<std::ptrdiff_t>(k) * layout.extent;
      if (b.length > 0 && b.count > 0) tile.push_back(b);
    }
  }
  return io::FileView(d, std::move(tile), t.extent);
}

}  // namespace

extern "C" {

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* datarep,
                       MPI_Info info) {
  constexpr const char* call = "MPI_File_set_view";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  const core::TypeInfo et = type_info(etype), ft = type_info(filetype);
  if (!et.valid) return file_error(f, fh, MPI_ERR_TYPE, call, "etype=0x%x is not a committed datatype", unsigned(etype));
  if (!ft.valid)
    return file_error(f, fh, MPI_ERR_TYPE, call, "filetype=0x%x is not a committed datatype", unsigned(filetype));
  if (!datarep) return file_error(f, fh, MPI_ERR_ARG, call, "datarep is NULL");
  Representation rep;
  int user_rep;
  if (!find_datarep(datarep, rep, user_rep))
    return file_error(f, fh, MPI_ERR_UNSUPPORTED_DATAREP, call,
                      "datarep=\"%s\" is not \"native\", \"internal\", \"external32\" or one MPI_Register_datarep defined",
                      datarep);
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return file_error(f, fh, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", unsigned(info));
  if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
    return file_error(f, fh, MPI_ERR_ARG, call, "disp=%lld is negative", static_cast<long long>(disp));
  if (disp == MPI_DISPLACEMENT_CURRENT && !(f->amode & MPI_MODE_SEQUENTIAL))
    return file_error(f, fh, MPI_ERR_ARG, call, "MPI_DISPLACEMENT_CURRENT needs a file opened MPI_MODE_SEQUENTIAL");
  // The etype and filetype as the representation lays them out in the file.
  const Representation old_rep = f->rep;
  const int old_user_rep = f->user_rep;
  f->rep = rep;
  f->user_rep = user_rep;
  MPI_Datatype file_etype = etype, file_filetype = filetype;
  int e = file_form(*f, etype, file_etype);
  if (!e) e = file_form(*f, filetype, file_filetype);
  const core::TypeInfo fet = type_info(file_etype), fft = type_info(file_filetype);
  // Frees the forms made for this call (the view keeps its runs, not the type).
  struct FreeForms {
    MPI_Datatype etype, filetype, *file_etype, *file_filetype;
    ~FreeForms() {
      if (*file_etype != etype) PMPI_Type_free(file_etype);
      if (*file_filetype != filetype) PMPI_Type_free(file_filetype);
    }
  } free_forms{etype, filetype, &file_etype, &file_filetype};
  if (e || fet.size == 0 || fft.size % fet.size != 0) {
    f->rep = old_rep;
    f->user_rep = old_user_rep;
    if (e) return file_error(f, fh, e, call, "the file extents of datarep \"%s\"", datarep);
    if (fet.size == 0) return file_error(f, fh, MPI_ERR_TYPE, call, "etype=0x%x has no data", unsigned(etype));
    return file_error(f, fh, MPI_ERR_TYPE, call, "filetype size %zu is not a multiple of the etype size %zu (in the file)",
                      fft.size, fet.size);
  }
  int rank = 0;
  PMPI_Comm_rank(f->comm, &rank);
  if (disp == MPI_DISPLACEMENT_CURRENT) {
    MPI_Offset now = 0;
    if (int e = shared_pointer_add(*f, 0, now)) return e;
    disp = static_cast<MPI_Offset>(f->view.file_offset(static_cast<std::uint64_t>(now) * f->etype_size));
  }
  // Every rank's accesses through the old view are over before the shared pointer restarts.
  if (int e = PMPI_Barrier(f->comm)) return e;
  Instance& in = instance();
  if (et.derived) core::dtype::retain(in.types, etype);
  if (ft.derived) core::dtype::retain(in.types, filetype);
  for (MPI_Datatype old : {f->etype, f->filetype}) {
    if (type_info(old).derived) core::dtype::release(in.types, old);
  }
  f->disp = disp;
  f->etype = etype;
  f->filetype = filetype;
  f->etype_size = fet.size;
  f->datarep = datarep;
  f->view = view_of(disp, file_filetype, fft);
  f->pointer = 0;
  if (rank == 0) {
    if (int e = shared_pointer_set(*f, 0)) return e;
  }
  if (int e = choose_collective_buffering(*f, info)) return e;
  return PMPI_Barrier(f->comm);
}
#pragma weak MPI_File_set_view = PMPI_File_set_view

int PMPI_File_get_view(MPI_File fh, MPI_Offset* disp, MPI_Datatype* etype, MPI_Datatype* filetype, char* datarep) {
  constexpr const char* call = "MPI_File_get_view";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (!disp || !etype || !filetype || !datarep)
    return file_error(f, fh, MPI_ERR_ARG, call, "disp, etype, filetype or datarep is NULL");
  *disp = f->disp;
  // Derived types come back as new handles the program frees (as MPICH does).
  if (type_info(f->etype).derived) {
    if (int e = PMPI_Type_dup(f->etype, etype)) return e;
  } else {
    *etype = f->etype;
  }
  if (type_info(f->filetype).derived) {
    if (int e = PMPI_Type_dup(f->filetype, filetype)) return e;
  } else {
    *filetype = f->filetype;
  }
  std::strncpy(datarep, f->datarep.c_str(), MPI_MAX_DATAREP_STRING - 1);
  datarep[MPI_MAX_DATAREP_STRING - 1] = '\0';
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_view = PMPI_File_get_view

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence) {
  constexpr const char* call = "MPI_File_seek";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (f->amode & MPI_MODE_SEQUENTIAL)
    return file_error(f, fh, MPI_ERR_UNSUPPORTED_OPERATION, call, "the file was opened with MPI_MODE_SEQUENTIAL");
  MPI_Offset to = 0;
  switch (whence) {
    case MPI_SEEK_SET: to = offset; break;
    case MPI_SEEK_CUR: to = f->pointer + offset; break;
    case MPI_SEEK_END: {
      MPI_Offset end = 0;
      if (int e = view_end(*f, end)) return e;
      to = end + offset;
      break;
    }
    default:
      return file_error(f, fh, MPI_ERR_ARG, call, "whence=%d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
  }
  if (to < 0) return file_error(f, fh, MPI_ERR_ARG, call, "the pointer would move to %lld, before the view's start",
                                static_cast<long long>(to));
  f->pointer = to;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_seek = PMPI_File_seek

int PMPI_File_get_position(MPI_File fh, MPI_Offset* offset) {
  FileObject* f;
  if (int e = check_file("MPI_File_get_position", fh, f)) return e;
  if (!offset) return file_error(f, fh, MPI_ERR_ARG, "MPI_File_get_position", "offset is NULL");
  *offset = f->pointer;
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_position = PMPI_File_get_position

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset* disp) {
  constexpr const char* call = "MPI_File_get_byte_offset";
  FileObject* f;
  if (int e = check_file(call, fh, f)) return e;
  if (offset < 0) return file_error(f, fh, MPI_ERR_ARG, call, "offset=%lld is negative", static_cast<long long>(offset));
  if (!disp) return file_error(f, fh, MPI_ERR_ARG, call, "disp is NULL");
  *disp = static_cast<MPI_Offset>(f->view.file_offset(static_cast<std::uint64_t>(offset) * f->etype_size));
  return MPI_SUCCESS;
}
#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset

}  // extern "C"
