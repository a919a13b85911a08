#include "base/byte_room.hpp"

#include <gtest/gtest.h>

namespace railmpi::base {
namespace {

TEST(ByteRoom, GrowsOnlyForALargerRequest) {
  ByteRoom r;
  EXPECT_EQ(r.data(), nullptr);
  EXPECT_EQ(r.capacity(), 0u);
  std::byte* a = r.at_least(0);
  EXPECT_NE(a, nullptr);
  EXPECT_EQ(r.capacity(), 1u);
  std::byte* b = r.at_least(1000);
  EXPECT_EQ(r.capacity(), 1000u);
  b[999] = std::byte{1};  // the whole room is there (AddressSanitizer checks)
  EXPECT_EQ(r.at_least(10), b);   // smaller: the same block
  EXPECT_EQ(r.at_least(1000), b);
  r.at_least(1001);
  EXPECT_EQ(r.capacity(), 1001u);
}

TEST(ByteRoom, ReleaseGivesTheMemoryBack) {
  ByteRoom r;
  r.at_least(64);
  r.release();
  EXPECT_EQ(r.data(), nullptr);
  EXPECT_EQ(r.capacity(), 0u);
  EXPECT_NE(r.at_least(8), nullptr);
}

}  // namespace
}  // namespace railmpi::base
