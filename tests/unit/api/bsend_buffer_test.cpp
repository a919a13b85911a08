// api::BsendBuffer: first-fit regions of the attached buffer, given back in any order.
#include <gtest/gtest.h>

#include <vector>

#include "api/bsend_buffer.hpp"

using railmpi::api::BsendBuffer;

TEST(BsendBuffer, FirstFitRoundedTo16) {
  std::vector<std::byte> mem(256);
  BsendBuffer b;
  EXPECT_FALSE(b.attached());
  b.attach(mem.data(), mem.size());
  std::size_t a = 99, c = 99, d = 99;
  ASSERT_TRUE(b.allocate(1, a));
  ASSERT_TRUE(b.allocate(17, c));
  ASSERT_TRUE(b.allocate(100, d));
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(c, 16u);   // 1 byte takes 16
  EXPECT_EQ(d, 48u);   // 17 bytes take 32
  EXPECT_EQ(b.at(d), mem.data() + 48);
  std::size_t e;
  EXPECT_FALSE(b.allocate(256 - 48 - 112 + 1, e));  // 96 bytes left after 48 + 112
  ASSERT_TRUE(b.allocate(96, e));
  EXPECT_EQ(e, 160u);
  EXPECT_EQ(b.regions(), 4u);
}

TEST(BsendBuffer, HolesAreReusedAndReleasesInAnyOrder) {
  std::vector<std::byte> mem(160);
  BsendBuffer b;
  b.attach(mem.data(), mem.size());
  std::size_t off[5];
  for (std::size_t& o : off) ASSERT_TRUE(b.allocate(32, o));
  std::size_t x;
  EXPECT_FALSE(b.allocate(1, x));  // full
  b.release(off[3]);
  b.release(off[1]);
  b.release(off[1]);  // not in use: nothing happens
  ASSERT_TRUE(b.allocate(16, x));
  EXPECT_EQ(x, off[1]);  // the first hole
  ASSERT_TRUE(b.allocate(32, x));
  EXPECT_EQ(x, off[3]);  // the first hole large enough
  EXPECT_FALSE(b.allocate(32, x));
  ASSERT_TRUE(b.allocate(16, x));
  EXPECT_EQ(x, off[1] + 16);  // the rest of the first hole
  for (std::size_t o : {off[0], off[4], off[2], off[1], off[1] + 16, off[3]}) b.release(o);
  EXPECT_TRUE(b.empty());
  ASSERT_TRUE(b.allocate(160, x));
  EXPECT_EQ(x, 0u);
  b.detach();
  EXPECT_FALSE(b.attached());
  EXPECT_TRUE(b.empty());
}
