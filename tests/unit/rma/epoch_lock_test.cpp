#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "rma/epoch_lock.hpp"

using railmpi::rma::EpochLock;
using railmpi::rma::OperationLock;

TEST(EpochLock, SharedHoldersExcludeAnExclusiveOne) {
  std::uint32_t word = 0;
  EXPECT_TRUE(EpochLock::try_lock(word, false));
  EXPECT_TRUE(EpochLock::try_lock(word, false));
  EXPECT_EQ(word, 2u);
  EXPECT_FALSE(EpochLock::try_lock(word, true));
  EpochLock::unlock(word);
  EXPECT_FALSE(EpochLock::try_lock(word, true));
  EpochLock::unlock(word);
  EXPECT_EQ(word, 0u);
  EXPECT_TRUE(EpochLock::try_lock(word, true));
}

TEST(EpochLock, AnExclusiveHolderExcludesEveryone) {
  std::uint32_t word = 0;
  ASSERT_TRUE(EpochLock::try_lock(word, true));
  EXPECT_FALSE(EpochLock::try_lock(word, true));
  EXPECT_FALSE(EpochLock::try_lock(word, false));
  EpochLock::unlock(word);
  EXPECT_EQ(word, 0u);
  EXPECT_TRUE(EpochLock::try_lock(word, false));
}

// Threads stand in for the node's processes: an exclusive epoch's read-modify-write is never
// interleaved with another's, and shared holders never overlap an exclusive one.
TEST(EpochLock, ExclusiveEpochsDoNotInterleave) {
  std::uint32_t word = 0;
  long counter = 0;
  std::atomic<int> inside_exclusive{0};
  std::atomic<bool> overlap{false};
  auto work = [&](int id) {
    for (int i = 0; i < 20000; ++i) {
      const bool exclusive = (i + id) % 3 != 0;
      while (!EpochLock::try_lock(word, exclusive)) std::this_thread::yield();
      if (exclusive) {
        if (inside_exclusive.fetch_add(1) != 0) overlap = true;
        counter = counter + 1;
        inside_exclusive.fetch_sub(1);
      } else if (inside_exclusive.load() != 0) {
        overlap = true;
      }
      EpochLock::unlock(word);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work, t);
  for (auto& t : threads) t.join();
  EXPECT_FALSE(overlap.load());
  long exclusive_epochs = 0;
  for (int t = 0; t < 4; ++t)
    for (int i = 0; i < 20000; ++i) exclusive_epochs += (i + t) % 3 != 0;
  EXPECT_EQ(counter, exclusive_epochs);
  EXPECT_EQ(word, 0u);
}

TEST(OperationLock, MakesReadModifyWriteAtomic) {
  std::uint32_t word = 0;
  long counter = 0;
  auto work = [&] {
    for (int i = 0; i < 50000; ++i) {
      OperationLock::lock(word);
      counter = counter + 1;
      OperationLock::unlock(word);
    }
  };
  std::thread a(work), b(work), c(work);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(counter, 150000);
}
