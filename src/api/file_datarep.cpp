// Data representations: MPI_Register_datarep, the file form of a datatype, and the conversion of
// an access's data between memory and the file (file_datarep.hpp).
#include "api/file_datarep.hpp"

#include <cstring>
#include <vector>

#include "api/file_checks.hpp"
#include "core/datatype/datatype.hpp"
#include "core/datatype/type_table.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// The extent in the file of the predefined type `basic`.
int basic_file_extent(const FileObject& f, MPI_Datatype basic, MPI_Aint& extent) {
  bool valid = false;
  extent = static_cast<MPI_Aint>(core::builtin_size(basic, valid));
  switch (f.rep) {
    case Representation::native:
      return MPI_SUCCESS;
    case Representation::external32:
      extent = static_cast<MPI_Aint>(core::dtype::external32_size(basic));
      return MPI_SUCCESS;
    case Representation::user: {
      const UserDatarep& rep = instance().datareps[static_cast<std::size_t>(f.user_rep)];
      if (int e = rep.extent(basic, &extent, rep.extra_state)) return e;
      return extent < 0 ? MPI_ERR_CONVERSION : MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS;
}

// `type` rebuilt by its constructor over `olds` (the file forms of its constituent types).
int rebuild(const core::dtype::Datatype& d, const std::vector<MPI_Datatype>& olds, MPI_Datatype& out) {
  const std::vector<int>& i = d.integers;
  const std::vector<std::ptrdiff_t>& a = d.addresses;
  const auto* addrs = reinterpret_cast<const MPI_Aint*>(a.data());
  switch (d.combiner) {
    case MPI_COMBINER_CONTIGUOUS:
      return PMPI_Type_contiguous(i[0], olds[0], &out);
    case MPI_COMBINER_VECTOR:
      return PMPI_Type_vector(i[0], i[1], i[2], olds[0], &out);
    case MPI_COMBINER_HVECTOR:
      return PMPI_Type_create_hvector(i[0], i[1], addrs[0], olds[0], &out);
    case MPI_COMBINER_INDEXED:
      return PMPI_Type_indexed(i[0], &i[1], &i[1 + static_cast<std::size_t>(i[0])], olds[0], &out);
    case MPI_COMBINER_HINDEXED:
      return PMPI_Type_create_hindexed(i[0], &i[1], addrs, olds[0], &out);
    case MPI_COMBINER_INDEXED_BLOCK:
      return PMPI_Type_create_indexed_block(i[0], i[1], &i[2], olds[0], &out);
    case MPI_COMBINER_HINDEXED_BLOCK:
      return PMPI_Type_create_hindexed_block(i[0], i[1], addrs, olds[0], &out);
    case MPI_COMBINER_STRUCT:
      return PMPI_Type_create_struct(i[0], &i[1], addrs, olds.data(), &out);
    case MPI_COMBINER_SUBARRAY: {
      const std::size_t n = static_cast<std::size_t>(i[0]);
      return PMPI_Type_create_subarray(i[0], &i[1], &i[1 + n], &i[1 + 2 * n], i[1 + 3 * n], olds[0], &out);
    }
    case MPI_COMBINER_DARRAY: {
      const std::size_t n = static_cast<std::size_t>(i[2]);
      return PMPI_Type_create_darray(i[0], i[1], i[2], &i[3], &i[3 + n], &i[3 + 2 * n], &i[3 + 3 * n], i[3 + 4 * n],
                                     olds[0], &out);
    }
    case MPI_COMBINER_RESIZED:
      return PMPI_Type_create_resized(olds[0], addrs[0], addrs[1], &out);
    default:  // the MPI-1 *_INTEGER combiners: no constructor of this library makes them
      return MPI_ERR_TYPE;
  }
}

// file_form() without the commit: new handles are uncommitted (intermediate ones are freed).
int form(const FileObject& f, MPI_Datatype type, MPI_Datatype& out) {
  out = type;
  const core::dtype::Datatype* d = instance().types.find(type);
  if (!d) {  // predefined
    MPI_Aint extent = 0;
    if (int e = basic_file_extent(f, type, extent)) return e;
    bool valid = false;
    if (static_cast<std::size_t>(extent) == core::builtin_size(type, valid)) return MPI_SUCCESS;
    return PMPI_Type_contiguous(static_cast<int>(extent), MPI_BYTE, &out);
  }
  if (d->combiner == MPI_COMBINER_F90_REAL || d->combiner == MPI_COMBINER_F90_COMPLEX ||
      d->combiner == MPI_COMBINER_F90_INTEGER)
    return MPI_SUCCESS;  // parameterized predefined types: as in memory
  std::vector<MPI_Datatype> olds(d->types.size());
  bool changed = false;
  int err = MPI_SUCCESS;
  for (std::size_t k = 0; k < olds.size() && !err; ++k) {
    err = form(f, d->types[k], olds[k]);
    changed |= olds[k] != d->types[k];
  }
  if (!err && changed) {
    if (d->combiner == MPI_COMBINER_DUP) {
      out = olds[0];
      olds[0] = d->types[0];  // handed on, not freed below
    } else {
      err = rebuild(*d, olds, out);
    }
  }
  for (std::size_t k = 0; k < olds.size(); ++k)
    if (olds[k] != d->types[k] && olds[k] != MPI_DATATYPE_NULL) PMPI_Type_free(&olds[k]);
  return err;
}

}  // namespace

namespace railmpi::api {

bool find_datarep(std::string_view name, Representation& rep, int& user) {
  user = -1;
  if (name == "native" || name == "internal") {
    rep = Representation::native;
    return true;
  }
  if (name == "external32") {
    rep = Representation::external32;
    return true;
  }
  const std::vector<UserDatarep>& all = instance().datareps;
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (all[k].name == name) {
      rep = Representation::user;
      user = static_cast<int>(k);
      return true;
    }
  }
  return false;
}

int file_form(const FileObject& f, MPI_Datatype type, MPI_Datatype& out) {
  out = type;
  if (f.rep == Representation::native) return MPI_SUCCESS;
  if (int e = form(f, type, out)) return e;
  return out == type ? MPI_SUCCESS : PMPI_Type_commit(&out);
}

int file_bytes(const FileObject& f, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t& bytes) {
  const auto n = static_cast<std::size_t>(count);
  switch (f.rep) {
    case Representation::native:
      bytes = t.size * n;
      return MPI_SUCCESS;
    case Representation::external32:
      bytes = core::external32_size(instance().types, n, type);
      return MPI_SUCCESS;
    case Representation::user: {
      MPI_Datatype in_file = type;
      if (int e = file_form(f, type, in_file)) return e;
      bytes = type_info(in_file).size * n;
      if (in_file != type) PMPI_Type_free(&in_file);
      return MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS;
}

int access_file_bytes(const char* call, MPI_File fh, const FileObject& f, int count, MPI_Datatype type,
                      const core::TypeInfo& t, std::size_t& bytes) {
  if (int e = file_bytes(f, count, type, t, bytes))
    return file_error(&f, fh, e, call, "the extent in the file of datatype 0x%x (datarep \"%s\")", unsigned(type),
                      f.datarep.c_str());
  return MPI_SUCCESS;
}

std::size_t memory_bytes(const FileObject& f, std::size_t file_done, int count, std::size_t bytes,
                         const core::TypeInfo& t) {
  if (f.rep == Representation::native || t.size == 0) return file_done;
  if (count <= 0 || bytes == 0) return 0;
  const std::size_t per_element = bytes / static_cast<std::size_t>(count);  // sizes add up element by element
  const std::size_t whole = std::min(file_done / per_element, static_cast<std::size_t>(count));
  return whole * t.size;
}

int file_data_of(const char* call, MPI_File fh, const FileObject& f, const void* buf, int count, MPI_Datatype type,
                 const core::TypeInfo& t, std::size_t bytes, PackedView& out) {
  if (f.rep == Representation::native) {
    out = packed_view(buf, count, type, t);
    return MPI_SUCCESS;
  }
  out.bytes = bytes;
  out.staging.reset(new std::byte[std::max<std::size_t>(bytes, 1)]);
  out.ptr = out.staging.get();
  if (f.rep == Representation::external32) {
    core::pack_external32(instance().types, buf, static_cast<std::size_t>(count), type, out.staging.get());
    return MPI_SUCCESS;
  }
  const UserDatarep& rep = instance().datareps[static_cast<std::size_t>(f.user_rep)];
  if (!rep.write) {  // MPI_CONVERSION_FN_NULL: the memory's bytes
    if (bytes != t.size * static_cast<std::size_t>(count))
      return file_error(&f, fh, MPI_ERR_CONVERSION, call,
                        "datarep \"%s\" has no write conversion but its file extents differ from memory's",
                        rep.name.c_str());
    core::pack(instance().types, buf, static_cast<std::size_t>(count), type, out.staging.get());
    return MPI_SUCCESS;
  }
  if (int e = rep.write(const_cast<void*>(buf), type, count, out.staging.get(), 0, rep.extra_state))
    return file_error(&f, fh, MPI_ERR_CONVERSION, call, "the write conversion of datarep \"%s\" returned %d",
                      rep.name.c_str(), e);
  return MPI_SUCCESS;
}

int memory_data_of(const char* call, MPI_File fh, const FileObject& f, const std::byte* in, std::size_t elements,
                   MPI_Datatype type, void* buf) {
  if (elements == 0) return MPI_SUCCESS;
  if (f.rep == Representation::external32) {
    core::unpack_external32(instance().types, in, elements, type, buf);
    return MPI_SUCCESS;
  }
  const UserDatarep& rep = instance().datareps[static_cast<std::size_t>(f.user_rep)];
  if (!rep.read) {
    const core::TypeInfo t = type_info(type);
    core::unpack(instance().types, in, t.size * elements, elements, type, buf);
    return MPI_SUCCESS;
  }
  if (int e = rep.read(buf, type, static_cast<int>(elements), const_cast<std::byte*>(in), 0, rep.extra_state))
    return file_error(&f, fh, MPI_ERR_CONVERSION, call, "the read conversion of datarep \"%s\" returned %d",
                      rep.name.c_str(), e);
  return MPI_SUCCESS;
}

}  // namespace railmpi::api

extern "C" {

int PMPI_Register_datarep(const char* datarep, MPI_Datarep_conversion_function* read_conversion_fn,
                          MPI_Datarep_conversion_function* write_conversion_fn,
                          MPI_Datarep_extent_function* dtype_file_extent_fn, void* extra_state) {
  constexpr const char* call = "MPI_Register_datarep";
  require_running(call);
  if (!datarep) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_ARG, call, "datarep is NULL");
  if (datarep[0] == '\0' || std::strlen(datarep) >= MPI_MAX_DATAREP_STRING)
    return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_ARG, call,
                      "datarep=\"%.40s\" is empty or longer than MPI_MAX_DATAREP_STRING-1 (%d)", datarep,
                      MPI_MAX_DATAREP_STRING - 1);
  if (!dtype_file_extent_fn) return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_ARG, call, "dtype_file_extent_fn is NULL");
  Representation rep;
  int user;
  if (find_datarep(datarep, rep, user))
    return file_error(nullptr, MPI_FILE_NULL, MPI_ERR_DUP_DATAREP, call, "datarep=\"%s\" is already defined", datarep);
  instance().datareps.push_back({datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state});
  return MPI_SUCCESS;
}
#pragma weak MPI_Register_datarep = PMPI_Register_datarep

}  // extern "C"
