// base::short_copy and base::chunk_copy: every length up to a line and more, every source and
// destination alignment in a line.
#include "base/short_copy.hpp"

#include <gtest/gtest.h>

#include <array>

using railmpi::base::kShortCopyMax;
using railmpi::base::chunk_copy;
using railmpi::base::short_copy;

template <class Copy>
void expect_exact_copies(Copy copy, std::size_t max) {
  for (std::size_t n = 0; n <= max; ++n) {
    for (std::size_t from_at = 0; from_at < 16; ++from_at) {
      for (std::size_t to_at = 0; to_at < 16; ++to_at) {
        std::array<std::byte, 128> from{}, to{};
        for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<std::byte>(i * 7 + 1);
        to.fill(std::byte{0xee});
        copy(to.data() + to_at, from.data() + from_at, n);
        for (std::size_t i = 0; i < to.size(); ++i) {
          const bool inside = i >= to_at && i < to_at + n;
          const std::byte want = inside ? from[from_at + (i - to_at)] : std::byte{0xee};
          ASSERT_EQ(to[i], want) << "n=" << n << " from+" << from_at << " to+" << to_at << " byte " << i;
        }
      }
    }
  }
}

TEST(ShortCopy, EveryLengthAndAlignmentCopiesExactlyThoseBytes) { expect_exact_copies(short_copy, kShortCopyMax); }

TEST(ChunkCopy, EveryLengthAndAlignmentCopiesExactlyThoseBytes) { expect_exact_copies(chunk_copy, 96); }
