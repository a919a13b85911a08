// What mpiexec puts in its ranks' GLIBC_TUNABLES for RAILMPI_GLIBC_RSEQ.
#include <gtest/gtest.h>

#include "glibc_rseq.hpp"

namespace railmpi::mpiexec {
namespace {

TEST(GlibcRseq, ParsesEmptyZeroAndOneOnly) {
  GlibcRseq c = GlibcRseq::on;
  EXPECT_TRUE(parse_glibc_rseq("", c));
  EXPECT_EQ(c, GlibcRseq::automatic);
  EXPECT_TRUE(parse_glibc_rseq("0", c));
  EXPECT_EQ(c, GlibcRseq::off);
  EXPECT_TRUE(parse_glibc_rseq("1", c));
  EXPECT_EQ(c, GlibcRseq::on);
  for (const char* bad : {"2", "yes", "off", " 0", "01"}) {
    c = GlibcRseq::automatic;
    EXPECT_FALSE(parse_glibc_rseq(bad, c)) << bad;
    EXPECT_EQ(c, GlibcRseq::automatic) << bad;  // left as it was
  }
}

TEST(GlibcRseq, AutomaticKeepsGlibcsChoice) {
  EXPECT_EQ(glibc_tunables_for_rank(std::nullopt, GlibcRseq::automatic), std::nullopt);
  EXPECT_EQ(glibc_tunables_for_rank("glibc.malloc.arena_max=2", GlibcRseq::automatic), std::nullopt);
}

TEST(GlibcRseq, OffAlwaysAndOnNever) {
  EXPECT_EQ(glibc_tunables_for_rank(std::nullopt, GlibcRseq::off), "glibc.pthread.rseq=0");
  EXPECT_EQ(glibc_tunables_for_rank(std::nullopt, GlibcRseq::on), std::nullopt);
}

TEST(GlibcRseq, KeepsTheUsersOtherTunables) {
  EXPECT_EQ(glibc_tunables_for_rank("glibc.malloc.arena_max=2", GlibcRseq::off),
            "glibc.malloc.arena_max=2:glibc.pthread.rseq=0");
  EXPECT_EQ(glibc_tunables_for_rank("", GlibcRseq::off), "glibc.pthread.rseq=0");
}

TEST(GlibcRseq, LeavesAnRseqTheUserSetAlone) {
  EXPECT_EQ(glibc_tunables_for_rank("glibc.pthread.rseq=1", GlibcRseq::off), std::nullopt);
  EXPECT_EQ(glibc_tunables_for_rank("glibc.malloc.arena_max=2:glibc.pthread.rseq=1", GlibcRseq::off),
            std::nullopt);
  // A longer name that begins alike is another tunable.
  EXPECT_EQ(glibc_tunables_for_rank("glibc.pthread.rseq_x=1", GlibcRseq::off),
            "glibc.pthread.rseq_x=1:glibc.pthread.rseq=0");
}

}  // namespace
}  // namespace railmpi::mpiexec
