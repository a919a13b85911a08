// The node region: layout, slot claims and releases, attach counting, futex wait/wake.
#include "device/shm/node_region.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "device/shm/segment.hpp"

using railmpi::device::shm::NodeRegion;
using railmpi::device::shm::SharedMapping;
using Clock = std::chrono::steady_clock;

namespace {

std::string unique_name(const char* what) {
  static int counter = 0;
  return "/railmpi-ut" + std::to_string(::getpid()) + "-" + what + "-" + std::to_string(++counter);
}

bool name_exists(const std::string& name) {
  std::string error;
  return SharedMapping::open(name, 0, 4096, &error).valid();
}

}  // namespace

TEST(NodeRegion, RejectsBadLayout) {
  std::string error;
  EXPECT_FALSE(NodeRegion::create(unique_name("bad"), 0, 4, 64, &error).valid());
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(NodeRegion::create(unique_name("bad"), 2, NodeRegion::kMaxSlots + 1, 64, &error).valid());
  EXPECT_FALSE(NodeRegion::create(unique_name("bad"), 2, 4, 0, &error).valid());
}

TEST(NodeRegion, ClaimsDistinctSlotsUntilFull) {
  std::string error;
  NodeRegion r = NodeRegion::create(unique_name("full"), 1, 4, 100, &error);
  ASSERT_TRUE(r.valid()) << error;
  EXPECT_EQ(r.slots(), 4);
  EXPECT_EQ(r.slot_bytes(), 128u);  // rounded up to 64
  std::vector<int> got;
  for (int i = 0; i < 4; ++i) got.push_back(r.claim(3, 64));
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.claim(1, 64), -1);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.references(i), 3);
  // Slots do not overlap.
  for (int i = 0; i + 1 < 4; ++i) EXPECT_EQ(r.slot(i).data() + r.slot_bytes(), r.slot(i + 1).data());
}

TEST(NodeRegion, SlotIsFreeAfterLastReleaseAndComesBackWithItsPrefixZeroed) {
  std::string error;
  NodeRegion r = NodeRegion::create(unique_name("reuse"), 1, 2, 256, &error);
  ASSERT_TRUE(r.valid()) << error;
  const int a = r.claim(2, 64);
  const int b = r.claim(1, 64);
  ASSERT_EQ(a, 0);
  ASSERT_EQ(b, 1);
  std::memset(r.slot(a).data(), 0xab, r.slot_bytes());
  r.release(a);
  EXPECT_EQ(r.references(a), 1);
  EXPECT_EQ(r.claim(1, 64), -1);  // one user still holds slot a
  r.release(a);
  EXPECT_EQ(r.references(a), 0);
  EXPECT_EQ(r.claim(4, 100), a);
  EXPECT_EQ(r.references(a), 4);
  // The first 100 bytes are zeroed; the rest is left as it was (touched only when used).
  for (std::size_t i = 0; i < r.slot_bytes(); ++i)
    ASSERT_EQ(r.slot(a)[i], i < 100 ? std::byte{0} : std::byte{0xab}) << i;
}

TEST(NodeRegion, OpenSharesMemoryAndLastAttachRemovesTheName) {
  const std::string name = unique_name("attach");
  std::string error;
  NodeRegion leader = NodeRegion::create(name, 3, 8, 512, &error);
  ASSERT_TRUE(leader.valid()) << error;
  EXPECT_FALSE(leader.complete());
  EXPECT_TRUE(name_exists(name));
  NodeRegion second = NodeRegion::open(name, &error);
  ASSERT_TRUE(second.valid()) << error;
  EXPECT_TRUE(name_exists(name));
  NodeRegion third = NodeRegion::open(name, &error);
  ASSERT_TRUE(third.valid()) << error;
  EXPECT_FALSE(name_exists(name));
  EXPECT_TRUE(leader.complete());
  EXPECT_EQ(third.members(), 3);
  EXPECT_EQ(third.slots(), 8);
  EXPECT_EQ(third.slot_bytes(), 512u);
  // A claim through one mapping is seen through the others.
  const int s = second.claim(3, 64);
  ASSERT_GE(s, 0);
  std::memcpy(second.slot(s).data(), "node", 4);
  EXPECT_EQ(std::memcmp(third.slot(s).data(), "node", 4), 0);
  EXPECT_EQ(leader.references(s), 3);
  EXPECT_EQ(third.claim(1, 64), s == 0 ? 1 : 0);
}

TEST(NodeRegion, OpenOfSomethingElseFails) {
  const std::string name = unique_name("other");
  std::string error;
  SharedMapping m = SharedMapping::create(name, 8192, &error);
  ASSERT_TRUE(m.valid()) << error;
  EXPECT_FALSE(NodeRegion::open(name, &error).valid());
  EXPECT_NE(error.find("not a RailMPI node region"), std::string::npos) << error;
  railmpi::device::shm::unlink_shared(name, nullptr);
}

// Threads claim and release concurrently: a slot is never handed to two holders at once.
TEST(NodeRegion, ConcurrentClaimsNeverShareASlot) {
  std::string error;
  NodeRegion r = NodeRegion::create(unique_name("race"), 1, 3, 64, &error);
  ASSERT_TRUE(r.valid()) << error;
  std::atomic<int> failures{0};
  std::atomic<int> claims{0};
  std::vector<std::thread> threads;
  for (int t = 1; t <= 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        const int s = r.claim(1, 64);
        if (s < 0) continue;
        ++claims;
        auto* owner = reinterpret_cast<std::uint32_t*>(r.slot(s).data());
        std::uint32_t none = 0;
        if (!std::atomic_ref<std::uint32_t>(*owner).compare_exchange_strong(none, std::uint32_t(t))) ++failures;
        std::this_thread::yield();
        std::uint32_t me = std::uint32_t(t);
        if (!std::atomic_ref<std::uint32_t>(*owner).compare_exchange_strong(me, 0)) ++failures;
        r.release(s);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(claims.load(), 0);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(r.references(i), 0);
}

TEST(NodeRegion, WakeEndsAWaitAndTimeoutEndsItOtherwise) {
  std::string error;
  NodeRegion r = NodeRegion::create(unique_name("futex"), 1, 1, 64, &error);
  ASSERT_TRUE(r.valid()) << error;
  auto* word = reinterpret_cast<std::uint32_t*>(r.slot(r.claim(1, 64)).data());

  auto t0 = Clock::now();
  NodeRegion::wait(word, 0, std::chrono::milliseconds(30));
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(25));

  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    while (std::atomic_ref<std::uint32_t>(*word).load() == 0) NodeRegion::wait(word, 0, std::chrono::seconds(20));
    woke = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  t0 = Clock::now();
  std::atomic_ref<std::uint32_t>(*word).store(1);
  NodeRegion::wake(word);
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
}
