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

// Copies n bytes (a header) in chunks that do not overlap: 16 bytes at a time from the
// start, then 8, 4, 2 and 1. For headers that were just written by the same chunks (see
// p2p::store_wire_header): each load then matches one earlier store and takes its bytes from the
// store buffer. A load that spans several stores (short_copy's overlapping moves, memcpy) instead
// waits until they reach the cache, and with them every older store, such as the previous frame's
// stores to a cell the peer is reading.
inline void chunk_copy(std::byte* to, const std::byte* from, std::size_t n) {
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) std::memcpy(to + i, from + i, 16);
  if (n - i >= 8) {
    std::memcpy(to + i, from + i, 8);
    i += 8;
  }
  if (n - i >= 4) {
    std::memcpy(to + i, from + i, 4);
    i += 4;
  }
  if (n - i >= 2) {
    std::memcpy(to + i, from + i, 2);
    i += 2;
  }
  if (n > i) to[i] = from[i];
}

}  // namespace railmpi::base
