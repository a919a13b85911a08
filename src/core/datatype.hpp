// Datatypes as the rest of the library sees them: a small value describing a type handle, and
// pack/unpack between a typed user buffer and contiguous bytes.
//
// This slice knows the predefined types of the MPICH ABI (contiguous, size encoded in the handle
// or listed for the pair types). Derived types (flattened segment lists) extend type_info(),
// pack() and unpack() without changing their signatures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace railmpi::core {

struct TypeInfo {
  bool valid = false;       // a committed, usable datatype
  bool contiguous = false;  // count elements occupy size*count contiguous bytes from buf + true_lb
  std::size_t size = 0;     // bytes of data in one element
  std::ptrdiff_t lb = 0;
  std::ptrdiff_t extent = 0;
  std::ptrdiff_t true_lb = 0;
  std::ptrdiff_t true_extent = 0;
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

// Description of any datatype handle (predefined now; derived types later).
inline TypeInfo type_info(int handle) {
  TypeInfo t;
  t.size = builtin_size(handle, t.valid);
  if (!t.valid) return t;
  // The pair types have padding: MPI_SHORT_INT is {short, int} (6 data bytes in 8), and so on.
  t.contiguous = true;
  t.extent = t.true_extent = static_cast<std::ptrdiff_t>(t.size);
  return t;
}

// Copies `count` elements of `type` from the typed buffer `buf` into contiguous bytes at `out`.
// (Predefined types only in this slice: a plain copy from buf + true_lb.)
inline void pack(const void* buf, std::size_t count, int type, void* out) {
  const TypeInfo t = type_info(type);
  if (count && t.size) std::memcpy(out, static_cast<const std::byte*>(buf) + t.true_lb, count * t.size);
}

// Copies up to `bytes` contiguous bytes at `in` into `count` elements of `type` at `buf`.
inline void unpack(const void* in, std::size_t bytes, std::size_t count, int type, void* buf) {
  const TypeInfo t = type_info(type);
  const std::size_t n = count * t.size < bytes ? count * t.size : bytes;
  if (n) std::memcpy(static_cast<std::byte*>(buf) + t.true_lb, in, n);
}

}  // namespace railmpi::core
