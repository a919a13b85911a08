#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "io/file_view.hpp"

using railmpi::base::Strided;
using railmpi::io::FileView;

namespace {

using Runs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

Runs runs_of(const FileView& v, std::uint64_t position, std::uint64_t length) {
  Runs out;
  v.for_each_run(position, length, [&out](std::uint64_t at, std::uint64_t n) {
    out.emplace_back(at, n);
    return true;
  });
  return out;
}

// Rank r of 4 sees 8-byte block r of every 32-byte stripe, from byte 100 (the classic
// interleaved view: a vector of one block resized to the stripe).
FileView interleaved(int r) { return FileView(100 + 8 * std::uint64_t(r), {Strided{0, 8, 1, 0}}, 32); }

}  // namespace

TEST(FileView, WholeFileByDefault) {
  const FileView v;
  EXPECT_TRUE(v.contiguous());
  EXPECT_EQ(runs_of(v, 5, 10), (Runs{{5, 10}}));
  EXPECT_EQ(v.file_offset(7), 7u);
  EXPECT_EQ(v.data_bytes_before(40), 40u);
}

TEST(FileView, ContiguousFromADisplacement) {
  const FileView v(64);
  EXPECT_EQ(runs_of(v, 0, 16), (Runs{{64, 16}}));
  EXPECT_EQ(v.data_bytes_before(10), 0u);
  EXPECT_EQ(v.data_bytes_before(80), 16u);
}

TEST(FileView, InterleavedBlocksTileTheFile) {
  const FileView v = interleaved(2);
  EXPECT_EQ(v.tile_bytes(), 8u);
  // Data bytes 0-23: block 2 of stripes 0, 1 and 2.
  EXPECT_EQ(runs_of(v, 0, 24), (Runs{{116, 8}, {148, 8}, {180, 8}}));
  // Starting inside a block and ending inside another.
  EXPECT_EQ(runs_of(v, 5, 6), (Runs{{121, 3}, {148, 3}}));
  EXPECT_EQ(v.file_offset(9), 149u);
}

TEST(FileView, AdjacentRunsMerge) {
  // Two blocks back to back in each tile, and tiles back to back: one run.
  const FileView v(0, {Strided{0, 4, 1, 0}, Strided{4, 4, 1, 0}}, 8);
  EXPECT_EQ(runs_of(v, 0, 40), (Runs{{0, 40}}));
}

TEST(FileView, StridedBlocksAndHoles) {
  // 3 runs of 2 bytes, 5 apart, in a 20-byte tile.
  const FileView v(10, {Strided{1, 2, 3, 5}}, 20);
  EXPECT_EQ(v.tile_bytes(), 6u);
  EXPECT_EQ(runs_of(v, 0, 8), (Runs{{11, 2}, {16, 2}, {21, 2}, {31, 2}}));
  // A file of 27 bytes holds the first tile's three runs (11-12, 16-17, 21-22); the second tile
  // starts at 30, its first run at 31.
  EXPECT_EQ(v.data_bytes_before(27), 6u);
  EXPECT_EQ(v.data_bytes_before(17), 3u);  // 11, 12 and 16
  EXPECT_EQ(v.data_bytes_before(32), 7u);
}

TEST(FileView, StopsWhenTheCallerSaysSo) {
  const FileView v = interleaved(0);
  int calls = 0;
  v.for_each_run(0, 64, [&calls](std::uint64_t, std::uint64_t) { return ++calls < 2; });
  EXPECT_EQ(calls, 2);
}

TEST(FileView, CopiesKeepTheirOwnTile) {
  FileView a = interleaved(1);
  const FileView b = a;
  a = FileView(0);
  EXPECT_EQ(runs_of(b, 8, 8), (Runs{{140, 8}}));
}

TEST(FileView, MeanRunAndGapOfATile) {
  EXPECT_EQ(interleaved(1).mean_run(), 8u);
  EXPECT_EQ(interleaved(1).mean_gap(), 24u);  // 24 bytes of the other ranks between two runs
  // Two runs of 4 and 12 bytes in a 64-byte tile: 48 bytes of holes over 2 runs.
  const FileView two(0, {Strided{0, 4, 1, 0}, Strided{20, 12, 1, 0}}, 64);
  EXPECT_EQ(two.mean_run(), 8u);
  EXPECT_EQ(two.mean_gap(), 24u);
  EXPECT_EQ(FileView(0).mean_gap(), 0u);  // contiguous: no holes
}
