#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "io/file_domains.hpp"

using railmpi::io::covers;
using railmpi::io::FileDomains;
using railmpi::io::Extent;

TEST(FileDomains, CutTheSpanEvenly) {
  const FileDomains d(100, 200, 3);  // 34, 34, 32 bytes
  EXPECT_EQ(d.start(0), 100u);
  EXPECT_EQ(d.end(0), 134u);
  EXPECT_EQ(d.start(2), 168u);
  EXPECT_EQ(d.end(2), 200u);
  EXPECT_EQ(d.owner(133), 0);
  EXPECT_EQ(d.owner(134), 1);
  EXPECT_EQ(d.owner(199), 2);
}

TEST(FileDomains, MoreAggregatorsThanBytes) {
  const FileDomains d(0, 2, 4);  // domains of 1 byte; the last two empty
  EXPECT_EQ(d.owner(0), 0);
  EXPECT_EQ(d.owner(1), 1);
  EXPECT_EQ(d.start(3), 2u);
  EXPECT_EQ(d.end(3), 2u);
}

TEST(FileDomains, RunsAreCutAtBorders) {
  const FileDomains d(0, 100, 4);  // 25 bytes each
  const std::vector<Extent> runs{{10, 5}, {20, 40}, {90, 10}};
  std::vector<std::tuple<int, std::uint64_t, std::uint64_t>> pieces;
  d.split(runs, [&](int dom, std::uint64_t at, std::uint64_t n) { pieces.emplace_back(dom, at, n); });
  const std::vector<std::tuple<int, std::uint64_t, std::uint64_t>> want{
      {0, 10, 5}, {0, 20, 5}, {1, 25, 25}, {2, 50, 10}, {3, 90, 10}};
  EXPECT_EQ(pieces, want);
}

TEST(FileDomains, WindowsCutDomainsIntoRounds) {
  const FileDomains d(0, 100, 2, 20);  // domains of 50 bytes: windows [0,20) [20,40) [40,50), [50,70) ...
  EXPECT_EQ(d.rounds(), 3);
  EXPECT_EQ(d.round(0, 19), 0);
  EXPECT_EQ(d.round(0, 20), 1);
  EXPECT_EQ(d.round(1, 50), 0);
  EXPECT_EQ(d.round(1, 99), 2);
  const std::vector<Extent> runs{{10, 45}, {95, 5}};
  std::vector<std::tuple<int, std::uint64_t, std::uint64_t>> pieces;
  d.split(runs, [&](int dom, std::uint64_t at, std::uint64_t n) { pieces.emplace_back(dom, at, n); });
  const std::vector<std::tuple<int, std::uint64_t, std::uint64_t>> want{
      {0, 10, 10}, {0, 20, 20}, {0, 40, 10}, {1, 50, 5}, {1, 95, 5}};
  EXPECT_EQ(pieces, want);
}

TEST(FileDomains, WindowLargerThanDomainIsOneRound) {
  const FileDomains d(0, 10, 4, 1000);
  EXPECT_EQ(d.rounds(), 1);
  EXPECT_EQ(d.round(3, 9), 0);
}

TEST(FileDomains, CoverageFindsHoles) {
  std::vector<Extent> whole{{30, 10}, {0, 20}, {15, 15}};
  EXPECT_TRUE(covers(whole, 0, 40));
  EXPECT_EQ(whole.front().offset, 0u);  // sorted
  std::vector<Extent> hole{{0, 10}, {11, 9}};
  EXPECT_FALSE(covers(hole, 0, 20));
  std::vector<Extent> short_end{{0, 10}};
  EXPECT_FALSE(covers(short_end, 0, 11));
}
