// base::descending_copy: exact bytes for every length up to a few lines and for packet sizes,
// every alignment in a line, and the order (from the end down) made visible.
#include "base/descending_copy.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

using railmpi::base::descending_copy;

namespace {

void expect_exact_copy(std::size_t n, std::size_t from_at, std::size_t to_at) {
  std::vector<std::byte> from(n + 64), to(n + 64, std::byte{0xee});
  for (std::size_t i = 0; i < from.size(); ++i) from[i] = static_cast<std::byte>(i * 7 + i / 251 + 1);
  descending_copy(to.data() + to_at, from.data() + from_at, n);
  for (std::size_t i = 0; i < to.size(); ++i) {
    const bool inside = i >= to_at && i < to_at + n;
    const std::byte want = inside ? from[from_at + (i - to_at)] : std::byte{0xee};
    ASSERT_EQ(to[i], want) << "n=" << n << " from+" << from_at << " to+" << to_at << " byte " << i;
  }
}

}  // namespace

TEST(DescendingCopy, EveryShortLengthAndAlignmentCopiesExactlyThoseBytes) {
  for (std::size_t n = 0; n <= 300; ++n)
    for (std::size_t from_at = 0; from_at < 16; from_at += 3)
      for (std::size_t to_at = 0; to_at < 16; to_at += 5) expect_exact_copy(n, from_at, to_at);
}

TEST(DescendingCopy, PacketSizesCopyExactlyThoseBytes) {
  for (std::size_t n : {1023u, 1024u, 1025u, 2047u, 4096u, 4097u, 6000u, 8191u, 16384u, 16385u})
    for (std::size_t at : {0u, 1u, 16u, 63u}) expect_exact_copy(n, at, (at * 5) % 64);
}

// The order shows when the destination is the source moved up by one block: copied from the end
// down, every block is read before it is overwritten (as memmove would do it); copied forward,
// the first block would be repeated all the way up.
TEST(DescendingCopy, CopiesFromTheEndDown) {
  constexpr std::size_t kBlocks = 32, kBlock = 64;
  std::vector<std::byte> buf((kBlocks + 1) * kBlock);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::byte>(i / kBlock + 1);
  descending_copy(buf.data() + kBlock, buf.data(), kBlocks * kBlock);
  for (std::size_t i = kBlock; i < buf.size(); ++i)
    ASSERT_EQ(buf[i], static_cast<std::byte>(i / kBlock)) << "byte " << i;
}
