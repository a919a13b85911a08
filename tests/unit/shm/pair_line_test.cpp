// PairLineEnd: the two ends of one pair line in one process (the device test runs it between
// processes, mixed with the cell rings).
#include "device/shm/pair_line.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace railmpi::device::shm {
namespace {

std::vector<std::byte> bytes(const std::string& s) {
  std::vector<std::byte> v(s.size());
  std::memcpy(v.data(), s.data(), s.size());
  return v;
}

std::string text(std::span<const std::byte> s) { return std::string(reinterpret_cast<const char*>(s.data()), s.size()); }

// `to` has a message waiting: exactly (hd, pl). Delivers it.
void expect_delivery(PairLineEnd& to, const std::string& hd, const std::string& pl) {
  ASSERT_TRUE(to.pending());
  to.deliver([&](std::span<const std::byte> h, std::span<const std::byte> p) {
    EXPECT_EQ(text(h), hd);
    EXPECT_EQ(text(p), pl);
  });
  EXPECT_FALSE(to.pending());
}

// The two ends of one line: the lower rank's and the higher rank's.
class PairLineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    low.attach(&line, 0);
    high.attach(&line, 1);
  }
  PairLine line{};
  PairLineEnd low, high;
};

TEST_F(PairLineTest, TheTurnPassesWithEachMessage) {
  EXPECT_TRUE(low.free());    // the lower rank holds the turn first
  EXPECT_FALSE(high.free());
  EXPECT_FALSE(low.pending());
  EXPECT_FALSE(high.pending());
  low.post(bytes("HDR1"), bytes("payload-123"), 7, std::memory_order_release);
  EXPECT_FALSE(low.free());     // posting passes the turn on ...
  EXPECT_FALSE(high.free());    // ... which the other side gets by delivering
  EXPECT_FALSE(low.pending());  // its own message is not news to the poster
  ASSERT_TRUE(high.pending());
  std::string h, p;
  high.deliver([&](std::span<const std::byte> hd, std::span<const std::byte> pl) {
    EXPECT_FALSE(high.free());  // not inside the delivery: a send from there takes the ring
    h = text(hd);
    p = text(pl);
  });
  EXPECT_EQ(h, "HDR1");
  EXPECT_EQ(p, "payload-123");
  EXPECT_FALSE(high.pending());
  EXPECT_TRUE(high.free());
  EXPECT_FALSE(low.free());
  high.post(bytes("R"), {}, 0, std::memory_order_release);
  EXPECT_FALSE(high.pending());
  expect_delivery(low, "R", "");
  EXPECT_TRUE(low.free());
}

TEST_F(PairLineTest, UpTo116BytesInOneOrTwoLinesAndEmptyMessages) {
  PairLineEnd& a = low;
  PairLineEnd& b = high;
  EXPECT_TRUE(PairLineEnd::fits(4, 112));
  EXPECT_TRUE(PairLineEnd::fits(40, 76));  // a full header and 64 bytes, and more
  EXPECT_FALSE(PairLineEnd::fits(4, 113));
  EXPECT_FALSE(PairLineEnd::fits(40, 77));
  EXPECT_FALSE(PairLineEnd::fits(65, 0));  // a header is at most 64 bytes
  auto* second = reinterpret_cast<unsigned char*>(&line) + 64;
  for (int round = 0; round < 1200; ++round) {  // the sides take turns
    const std::string hd = "h" + std::to_string(round % 10);
    std::string pl(std::size_t(round % 115), ' ');  // 0-114: both lines' bytes, and the boundary
    for (std::size_t i = 0; i < pl.size(); ++i) pl[i] = char('a' + (round + int(i)) % 26);
    PairLineEnd& from = round % 2 == 0 ? a : b;
    PairLineEnd& to = round % 2 == 0 ? b : a;
    ASSERT_TRUE(from.free());
    ASSERT_FALSE(to.free());
    // A message that fits the first line leaves the second one alone (not written, not moved).
    std::memset(second, 0xA5, 64);
    from.post(bytes(hd), bytes(pl), 0, std::memory_order_release);
    const bool one_line = hd.size() + pl.size() <= kFirstLineBytes;
    EXPECT_EQ(second[0] == 0xA5 && second[63] == 0xA5, one_line) << "round " << round;
    EXPECT_EQ(line.seq, std::uint32_t(round + 1));  // one count for both sides' messages
    EXPECT_EQ(line.header_len, hd.size());
    EXPECT_EQ(line.payload_len, pl.size());
    ASSERT_FALSE(from.pending());
    expect_delivery(to, hd, pl);
  }
  // A 64-byte header (the largest) with the rest of the two lines.
  const std::string big_header(64, 'H'), rest(kPairLineBytes - 64, 'r');
  ASSERT_TRUE(a.free());
  a.post(bytes(big_header), bytes(rest), 0, std::memory_order_release);
  expect_delivery(b, big_header, rest);
  b.post({}, {}, 0, std::memory_order_release);
  expect_delivery(a, "", "");
}

TEST_F(PairLineTest, DueOnlyOnceTheRingReachedItsOrderAcrossWrap) {
  PairLineEnd& a = low;
  PairLineEnd& b = high;
  a.post(bytes("x"), {}, 100, std::memory_order_release);
  ASSERT_TRUE(b.pending());
  EXPECT_FALSE(b.due(99));  // a ring frame at 99 was written before: it comes first
  EXPECT_TRUE(b.due(100));  // the ring frame at 100 was written after
  EXPECT_TRUE(b.due(164));  // a skip may have moved the next frame further
  b.deliver([](auto, auto) {});
  b.post({}, {}, 0, std::memory_order_release);  // the turn back to a
  a.deliver([](auto, auto) {});
  // Positions are 64-bit; the line keeps the low 32 bits and compares modulo 2^32.
  const std::uint64_t near_wrap = (std::uint64_t(5) << 32) - 2;
  a.post(bytes("y"), {}, near_wrap + 3, std::memory_order_release);
  ASSERT_TRUE(b.pending());
  EXPECT_FALSE(b.due(near_wrap));
  EXPECT_FALSE(b.due(near_wrap + 2));
  EXPECT_TRUE(b.due(near_wrap + 3));
  EXPECT_TRUE(b.due(near_wrap + 10));
}

}  // namespace
}  // namespace railmpi::device::shm
