// Datatypes. This slice knows the predefined (builtin) types of the MPICH ABI; derived types
// (flattened segment lists) come with the datatype work.
#pragma once

#include <cstddef>
#include <cstdint>

namespace railmpi::core {

// Size in bytes of a predefined datatype handle; 0 when the handle is not a valid datatype
// (including MPI_DATATYPE_NULL, MPI_LB/MPI_UB markers of size 0 count as valid but empty).
// Sets `valid` accordingly.
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

}  // namespace railmpi::core
