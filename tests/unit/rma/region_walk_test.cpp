#include <gtest/gtest.h>

#include <cstddef>
#include <numeric>
#include <vector>

#include "rma/region_walk.hpp"

using namespace railmpi;

namespace {

std::vector<std::byte> counting(std::size_t n) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::byte(i + 1);
  return v;
}

}  // namespace

// Runs of 3 bytes every 5 on one side, of 4 every 7 on the other: the pieces are cut where either
// run ends and the bytes keep their order.
TEST(RegionWalk, ZipCutsWhereEitherRunEnds) {
  std::vector<std::byte> src = counting(64), dst(64, std::byte{0});
  const base::Strided a{0, 3, 8, 5}, b{1, 4, 6, 7};
  const base::Layout from = base::strided_layout(src.data(), a), to = base::strided_layout(dst.data(), b);
  std::vector<std::size_t> pieces;
  rma::zip(from, to, 24, [&](std::byte* in, std::byte* out, std::size_t n) {
    std::memcpy(out, in, n);
    pieces.push_back(n);
  });
  EXPECT_EQ(std::accumulate(pieces.begin(), pieces.end(), std::size_t{0}), 24u);
  for (std::size_t n : pieces) EXPECT_LE(n, 3u);
  std::vector<std::byte> expected;
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 3; ++k) expected.push_back(src[std::size_t(5 * r + k)]);
  std::vector<std::byte> got;
  for (int r = 0; r < 6; ++r)
    for (int k = 0; k < 4; ++k) got.push_back(dst[std::size_t(1 + 7 * r + k)]);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(dst[0], std::byte{0});  // before the first run
  EXPECT_EQ(dst[5], std::byte{0});  // between runs
}

// Fewer bytes than the layouts hold: the walk stops after `bytes`.
TEST(RegionWalk, ZipStopsAtTheByteCount) {
  std::vector<std::byte> src = counting(32), dst(32, std::byte{0});
  base::Strided a, b;
  const base::Layout from = base::contiguous_layout(src.data(), 32, a);
  const base::Layout to = base::contiguous_layout(dst.data(), 32, b);
  rma::zip(from, to, 10, [](std::byte* in, std::byte* out, std::size_t n) { std::memcpy(out, in, n); });
  for (std::size_t i = 0; i < 10; ++i) EXPECT_EQ(dst[i], src[i]);
  for (std::size_t i = 10; i < 32; ++i) EXPECT_EQ(dst[i], std::byte{0});
}

TEST(RegionWalk, ScatterAndGatherAreInverse) {
  std::vector<std::byte> packed = counting(40), window(128, std::byte{0}), back(40);
  const base::Strided b{4, 8, 5, 24};  // 5 runs of 8 bytes, 24 apart, from byte 4
  const base::Layout region = base::strided_layout(window.data(), b);
  rma::scatter(region, packed);
  EXPECT_EQ(window[4], packed[0]);
  EXPECT_EQ(window[28], packed[8]);
  EXPECT_EQ(window[12], std::byte{0});
  rma::gather(region, back.data(), back.size());
  EXPECT_EQ(back, packed);
}

TEST(RegionWalk, SingleRun) {
  base::Strided one{16, 64, 1, 0}, two{0, 8, 2, 16};
  std::byte window[128] = {};
  EXPECT_TRUE(rma::is_single_run(base::strided_layout(nullptr, one)));
  EXPECT_EQ(rma::single_run(window, base::strided_layout(nullptr, one)), window + 16);
  EXPECT_FALSE(rma::is_single_run(base::strided_layout(nullptr, two)));
  EXPECT_EQ(rma::single_run(window, base::strided_layout(nullptr, two)), nullptr);
}
