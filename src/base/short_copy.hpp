// Copies of a few bytes without a call into memcpy: the short-message paths move 0-64 bytes
// (a cell's header and payload, a received short payload), where the library call and its size
// dispatch cost more than the copy.
#pragma once

#include <cstddef>
#include <cstring>

namespace railmpi::base {

inline constexpr std::size_t kShortCopyMax = 64;

// Copies n <= kShortCopyMax bytes with a few fixed-size moves: two overlapping moves cover any
// length between two sizes.
inline void short_copy(std::byte* to, const std::byte* from, std::size_t n) {
  if (n >= 16) {
    if (n > 32) {
      std::memcpy(to + 16, from + 16, 16);
      if (n > 48) std::memcpy(to + 32, from + 32, 16);
    }
    std::memcpy(to, from, 16);
    std::memcpy(to + n - 16, from + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(to, from, 8);
    std::memcpy(to + n - 8, from + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(to, from, 4);
    std::memcpy(to + n - 4, from + n - 4, 4);
  } else if (n > 0) {
    to[0] = from[0];
    to[n / 2] = from[n / 2];
    to[n - 1] = from[n - 1];
  }
}

}  // namespace railmpi::base
