#include "base/layout.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using railmpi::base::gather;
using railmpi::base::Layout;
using railmpi::base::LayoutCursor;
using railmpi::base::scatter;
using railmpi::base::Strided;

namespace {

// The byte offsets (from base) of a layout's bytes, in order, by plain expansion.
std::vector<std::ptrdiff_t> expand(const Layout& l) {
  std::vector<std::ptrdiff_t> out;
  for (std::size_t k = 0; k < l.repeat; ++k)
    for (const Strided& b : l.blocks)
      for (std::size_t r = 0; r < b.count; ++r)
        for (std::size_t i = 0; i < b.length; ++i)
          out.push_back(static_cast<std::ptrdiff_t>(k) * l.extent + b.offset + static_cast<std::ptrdiff_t>(r) * b.stride +
                        static_cast<std::ptrdiff_t>(i));
  return out;
}

Layout make(std::byte* base, const std::vector<Strided>& blocks, std::size_t repeat, std::ptrdiff_t extent) {
  Layout l;
  l.base = base;
  l.blocks = blocks;
  l.repeat = repeat;
  l.extent = extent;
  for (const Strided& b : blocks) l.bytes_per_copy += b.length * b.count;
  return l;
}

std::byte pattern(std::size_t i) { return std::byte(static_cast<unsigned char>(i * 7 + 3)); }

void check_every_window(const Layout& l, std::vector<std::byte>& mem, std::ptrdiff_t base_offset) {
  const auto where = expand(l);
  ASSERT_EQ(where.size(), l.bytes());
  for (std::size_t at = 0; at <= where.size(); ++at) {
    for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{5}, where.size()}) {
      std::fill(mem.begin(), mem.end(), std::byte{0});
      std::vector<std::byte> src(len);
      for (std::size_t i = 0; i < len; ++i) src[i] = pattern(at + i);
      const std::size_t want = std::min(len, where.size() - at);
      ASSERT_EQ(scatter(l, at, src), want) << "at " << at << " len " << len;
      std::vector<bool> touched(mem.size());
      for (std::size_t i = 0; i < want; ++i) {
        const auto pos = static_cast<std::size_t>(base_offset + where[at + i]);
        ASSERT_EQ(mem[pos], pattern(at + i)) << "byte " << at + i;
        touched[pos] = true;
      }
      for (std::size_t p = 0; p < mem.size(); ++p) {
        if (!touched[p]) {
          ASSERT_EQ(mem[p], std::byte{0}) << "stray write at " << p;
        }
      }
      std::vector<std::byte> back(len, std::byte{0xee});
      ASSERT_EQ(gather(l, at, back), want);
      for (std::size_t i = 0; i < want; ++i) ASSERT_EQ(back[i], pattern(at + i));
    }
  }
}

}  // namespace

TEST(Layout, StridedBlocksRepeatedWithExtent) {
  std::vector<std::byte> mem(512);
  const std::vector<Strided> blocks{{0, 4, 3, 10}, {50, 2, 1, 0}, {60, 1, 2, -20}};
  check_every_window(make(mem.data(), blocks, 3, 100), mem, 0);
}

TEST(Layout, EmptyBlocksAreSkipped) {
  std::vector<std::byte> mem(256);
  const std::vector<Strided> blocks{{0, 0, 5, 8}, {8, 3, 2, 16}, {40, 4, 0, 4}, {48, 2, 1, 0}};
  check_every_window(make(mem.data(), blocks, 2, 64), mem, 0);
}

TEST(Layout, NegativeOffsetsAndAbsoluteAddresses) {
  std::vector<std::byte> mem(256);
  // base null, offsets absolute (MPI_BOTTOM): the block addresses are inside mem.
  const auto origin = static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(mem.data() + 128));
  const std::vector<Strided> blocks{{origin - 64, 8, 2, 32}, {origin + 8, 4, 1, 0}};
  const Layout l = make(nullptr, blocks, 2, -16);
  // expand() gives offsets relative to base (0): translate them into mem positions.
  check_every_window(l, mem, -static_cast<std::ptrdiff_t>(reinterpret_cast<std::uintptr_t>(mem.data())));
}

TEST(Layout, CursorRunsAreMaximalAndBounded) {
  std::vector<std::byte> mem(1 << 16);
  const std::vector<Strided> blocks{{0, 1000, 10, 4096}};
  const Layout l = make(mem.data(), blocks, 1, 0);
  LayoutCursor c(l, 1500);  // inside the second run
  auto r = c.next(10000);
  EXPECT_EQ(r.data(), mem.data() + 4096 + 500);
  EXPECT_EQ(r.size(), 500u);
  r = c.next(300);
  EXPECT_EQ(r.data(), mem.data() + 2 * 4096);
  EXPECT_EQ(r.size(), 300u);
  std::size_t rest = 0;
  while (!(r = c.next(1 << 20)).empty()) rest += r.size();
  EXPECT_EQ(rest, 10000u - 1500u - 500u - 300u);
  EXPECT_TRUE(c.done());
}

TEST(Layout, OneStridedBlockAndContiguous) {
  std::vector<std::byte> mem(256);
  const Strided block{8, 5, 4, 20};
  const Layout l = railmpi::base::strided_layout(mem.data(), block);
  EXPECT_EQ(l.bytes(), 20u);
  EXPECT_EQ(l.extent, 8 + 3 * 20 + 5 - 8);
  check_every_window(l, mem, 0);
  Strided one;
  const Layout c = railmpi::base::contiguous_layout(mem.data() + 3, 50, one);
  EXPECT_EQ(c.bytes(), 50u);
  EXPECT_EQ(c.extent, 50);
  check_every_window(c, mem, 3);
}

TEST(Layout, EmptyLayout) {
  const Layout l{};
  LayoutCursor c(l, 0);
  EXPECT_TRUE(c.next(100).empty());
  std::byte b{};
  EXPECT_EQ(scatter(l, 0, {&b, 1}), 0u);
}
