// Data representations of MPI-IO (the datarep of MPI_File_set_view): "native" and "internal" keep
// the memory's bytes; "external32" is big-endian with fixed sizes (MPI_LONG takes 4 bytes);
// MPI_Register_datarep adds representations whose conversion and file extents are the
// program's functions. Under a representation other than native the view's etype and filetype
// are laid out with each predefined type's extent in the file: counts and strides in elements
// scale with it, displacements in bytes are taken as they are (MPI-3.1 section 13.5.1).
#pragma once

#include <cstddef>
#include <string_view>

#include "api/files.hpp"
#include "api/typed_buffer.hpp"
#include "core/datatype.hpp"

namespace railmpi::api {

// The representation called `name` (a user one's index in Instance::datareps in `user`); false
// when there is none of that name.
bool find_datarep(std::string_view name, Representation& rep, int& user);

// `type` as f's representation lays it out in the file: the same constructors over predefined
// types of their file extents. `out` is `type` itself when nothing changes (always under native);
// otherwise a new committed type the caller frees. An error is an MPI error class.
int file_form(const FileObject& f, MPI_Datatype type, MPI_Datatype& out);

// The bytes `count` elements of `type` take in the file (`t`: the type's memory description).
int file_bytes(const FileObject& f, int count, MPI_Datatype type, const core::TypeInfo& t, std::size_t& bytes);

// As file_bytes(), an error (of a user representation's extent function) raised through the
// file's handler on behalf of `call`.
int access_file_bytes(const char* call, MPI_File fh, const FileObject& f, int count, MPI_Datatype type,
                      const core::TypeInfo& t, std::size_t& bytes);

// The memory bytes of the whole elements of an access of `count` elements (`t`: their type's
// memory description) that take `bytes` in the file (access_file_bytes()) and whose first
// `file_done` bytes in the file were moved (what the status reports).
std::size_t memory_bytes(const FileObject& f, std::size_t file_done, int count, std::size_t bytes,
                         const core::TypeInfo& t);

// The `bytes` (access_file_bytes()) a write puts in the file for `count` elements of `type` at
// `buf` (converted when the representation is not native); `out.bytes` is their size. Errors go
// through the file's handler.
int file_data_of(const char* call, MPI_File fh, const FileObject& f, const void* buf, int count, MPI_Datatype type,
                 const core::TypeInfo& t, std::size_t bytes, PackedView& out);

// Converts the file bytes of `elements` whole elements of `type` at `in` into the program's
// buffer `buf` (a representation other than native). Errors go through the file's handler.
int memory_data_of(const char* call, MPI_File fh, const FileObject& f, const std::byte* in, std::size_t elements,
                   MPI_Datatype type, void* buf);

}  // namespace railmpi::api
