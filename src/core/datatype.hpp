// Datatypes as the rest of the library sees them: a small value describing a type handle, and
// pack/unpack between a typed user buffer and contiguous bytes.
//
// Predefined types of the MPICH ABI are described inline (contiguous, size encoded in the handle
// or listed for the pair types); derived types (core/datatype/, flattened segment lists) are
// looked up in the datatype table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/layout.hpp"

namespace railmpi::core {

namespace dtype {
class TypeTable;  // core/datatype/type_table.hpp: the derived types, held by the runtime object
}

struct TypeInfo {
  bool valid = false;       // a committed, usable datatype
  bool contiguous = false;  // count elements occupy size*count contiguous bytes from buf + true_lb
  std::size_t size = 0;     // bytes of data in one element
  std::ptrdiff_t lb = 0;
  std::ptrdiff_t extent = 0;
  std::ptrdiff_t true_lb = 0;
  std::ptrdiff_t true_extent = 0;
  bool derived = false;     // a derived (user-constructed) type
};

// Size in bytes of a predefined datatype handle; sets `valid` (false for anything else).
inline std::size_t builtin_size(int handle, bool& valid) {
  const auto h = static_cast<std::uint32_t>(handle);
  valid = false;
  if ((h >> 26) != 0x13 && (h >> 26) != 0x23) return 0;  // kind builtin/direct, object datatype
  if ((h >> 30) == 0x1) {                                 // builtin: size encoded in bits 8..15
    if ((h & 0xff) > 0x7f) return 0;
    valid = true;
    return (h >> 8) & 0xff;
  }
  // Direct handles 0x8c00000N: the pair types for MINLOC/MAXLOC.
  switch (h) {
    case 0x8c000000u: valid = true; return 8;   // MPI_FLOAT_INT
    case 0x8c000001u: valid = true; return 16;  // MPI_DOUBLE_INT
    case 0x8c000002u: valid = true; return 16;  // MPI_LONG_INT
    case 0x8c000003u: valid = true; return 8;   // MPI_SHORT_INT
    case 0x8c000004u: valid = true; return 32;  // MPI_LONG_DOUBLE_INT
    default: return 0;
  }
}

// Description of a committed derived datatype handle (valid=false for anything else).
TypeInfo derived_type_info(const dtype::TypeTable& tb, int handle);

// Description of a predefined datatype handle (valid=false for anything else): decoded from the
// handle, no table involved.
// fill_predefined_type_info() writes it member by member into `t` (true when valid): the hot
// checks use it, because a returned TypeInfo assigned to an existing one went through a stack
// temporary that GCC read back with wider loads than it had written with (store forwarding
// failed: two stalls in every MPI_Send, 14 % of a 2-rank 8 B MPI_Bcast in perf).
inline bool fill_predefined_type_info(int handle, TypeInfo& t) {
  bool valid;
  const std::size_t size = builtin_size(handle, valid);
  // The pair types have padding: MPI_SHORT_INT is {short, int} (6 data bytes in 8), and so on.
  t.valid = valid;
  t.contiguous = valid;
  t.size = size;
  t.lb = 0;
  t.extent = static_cast<std::ptrdiff_t>(size);
  t.true_lb = 0;
  t.true_extent = static_cast<std::ptrdiff_t>(size);
  t.derived = false;
  return valid;
}

inline TypeInfo predefined_type_info(int handle) {
  TypeInfo t;
  fill_predefined_type_info(handle, t);
  return t;
}

// Description of any datatype handle: valid for predefined types and committed derived types.
inline TypeInfo type_info(const dtype::TypeTable& tb, int handle) {
  const TypeInfo t = predefined_type_info(handle);
  if (!t.valid) [[unlikely]]
    return derived_type_info(tb, handle);
  return t;
}

// The layout of `count` elements of a committed non-contiguous derived `type` at `buf` (valid while
// the type lives). False for contiguous and predefined types (their bytes are one run).
bool layout_of(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, base::Layout& out);

// Copies `count` elements of `type` from the typed buffer `buf` (MPI_BOTTOM allowed: offsets are
// then absolute addresses) into size*count contiguous bytes at `out`.
void pack(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, std::byte* out);

// The reverse of pack(), but unpacks at most `bytes` bytes (a partial receive fills a prefix).
void unpack(const dtype::TypeTable& tb, const std::byte* in, std::size_t bytes, std::size_t count, int type, void* buf);

inline constexpr std::size_t kNotWholeElements = static_cast<std::size_t>(-1);
// Basic elements in the first `bytes` bytes of a sequence of elements of `type`. For a derived
// type a trailing partial basic element is not counted (as MPICH does); for a predefined type a
// partial element gives kNotWholeElements (MPI_UNDEFINED for the caller, like MPI_Get_count).
std::size_t count_elements(const dtype::TypeTable& tb, int type, std::size_t bytes);
// The reverse: the bytes that the first `elements` basic elements of a sequence of `type` take,
// so that count_elements() of them gives `elements` back (MPI_Status_set_elements).
std::size_t bytes_of_elements(const dtype::TypeTable& tb, int type, std::size_t elements);

// The "external32" representation (big-endian, fixed sizes: MPI_LONG is 4 bytes).
std::size_t external32_size(const dtype::TypeTable& tb, std::size_t count, int type);
void pack_external32(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, std::byte* out);
void unpack_external32(const dtype::TypeTable& tb, const std::byte* in, std::size_t count, int type, void* buf);

}  // namespace railmpi::core
