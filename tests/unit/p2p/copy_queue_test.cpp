// CopyQueue: the deferred single copies of one peer, read from the front (a flush takes the first
// few) and trimmed from the back (runs handed to the peer that asked for help).
#include "p2p/copy_queue.hpp"

#include <gtest/gtest.h>

namespace railmpi::p2p {
namespace {

using Queue = CopyQueue<int, 4>;

TEST(CopyQueue, FlushesBeforeAnotherPeerOrWhenFull) {
  Queue q;
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.must_flush_before(3));  // empty: any peer may queue
  q.push(3, 10);
  EXPECT_FALSE(q.must_flush_before(3));
  EXPECT_TRUE(q.must_flush_before(4));
  q.push(3, 11);
  q.push(3, 12);
  q.push(3, 13);
  EXPECT_TRUE(q.must_flush_before(3));  // full
  EXPECT_EQ(q.size(), 4u);
  EXPECT_EQ(q.peer(), 3);
}

TEST(CopyQueue, TakeFrontKeepsTheRestInOrder) {
  Queue q;
  for (int i = 0; i < 4; ++i) q.push(1, 20 + i);
  int out[4] = {};
  q.take_front(2, out);
  EXPECT_EQ(out[0], 20);
  EXPECT_EQ(out[1], 21);
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0], 22);
  EXPECT_EQ(q[1], 23);
  // The freed room takes new copies after the ones left.
  q.push(1, 24);
  EXPECT_EQ(q[2], 24);
  q.take_front(0, out);
  EXPECT_EQ(q.size(), 3u);
}

TEST(CopyQueue, BackIsTheLastQueuedAndPopBackDropsIt) {
  Queue q;
  q.push(2, 5);
  q.push(2, 6);
  EXPECT_EQ(q.back(), 6);
  q.back() = 7;  // a run handed over shortens the last copy in place
  EXPECT_EQ(q[1], 7);
  q.pop_back();
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.back(), 5);
  q.pop_back();
  EXPECT_TRUE(q.empty());
}

TEST(CopyQueue, TakeEmptiesAndNamesThePeer) {
  Queue q;
  q.push(6, 1);
  q.push(6, 2);
  int out[4] = {};
  int peer = -1;
  EXPECT_EQ(q.take(out, peer), 2u);
  EXPECT_EQ(peer, 6);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 2);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.take(out, peer), 0u);
}

}  // namespace
}  // namespace railmpi::p2p
