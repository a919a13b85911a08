#include <gtest/gtest.h>

#include "p2p/matching.hpp"

using namespace railmpi::p2p;

namespace {
Request recv(int ctx, int src, int tag) {
  Request r;
  r.kind = RequestKind::recv;
  r.context = ctx;
  r.source = src;
  r.tag = tag;
  return r;
}
}  // namespace

TEST(PostedQueue, FirstPostedMatchWins) {
  PostedQueue q;
  Request a = recv(0, kAnySource, 5), b = recv(0, 1, 5), c = recv(0, 1, kAnyTag);
  q.push(a);
  q.push(b);
  q.push(c);
  EXPECT_EQ(q.take(0, 1, 5), &a);  // wildcard posted first wins over the exact one
  EXPECT_EQ(q.take(0, 1, 5), &b);
  EXPECT_EQ(q.take(0, 1, 7), &c);
  EXPECT_TRUE(q.empty());
}

TEST(PostedQueue, ContextSeparatesCommunicators) {
  PostedQueue q;
  Request a = recv(2, kAnySource, kAnyTag);
  q.push(a);
  EXPECT_EQ(q.take(0, 0, 0), nullptr);
  EXPECT_EQ(q.take(2, 0, 0), &a);
}

TEST(PostedQueue, RemoveFromMiddleKeepsOrder) {
  PostedQueue q;
  Request a = recv(0, 0, 1), b = recv(0, 0, 1), c = recv(0, 0, 1);
  q.push(a);
  q.push(b);
  q.push(c);
  EXPECT_TRUE(q.contains(b));
  q.remove(b);
  EXPECT_FALSE(q.contains(b));
  EXPECT_EQ(q.take(0, 0, 1), &a);
  EXPECT_EQ(q.take(0, 0, 1), &c);
  EXPECT_EQ(q.take(0, 0, 1), nullptr);
}

TEST(UnexpectedQueue, ArrivalOrderAndWildcards) {
  UnexpectedQueue q;
  Unexpected* m1 = q.allocate();
  m1->context = 0; m1->source = 3; m1->tag = 9;
  Unexpected* m2 = q.allocate();
  m2->context = 0; m2->source = 1; m2->tag = 4;
  Unexpected* m3 = q.allocate();
  m3->context = 0; m3->source = 3; m3->tag = 4;
  q.push(*m1);
  q.push(*m2);
  q.push(*m3);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.find(0, kAnySource, kAnyTag), m1);
  EXPECT_EQ(q.find(0, kAnySource, 4), m2);
  EXPECT_EQ(q.find(0, 3, 4), m3);
  EXPECT_EQ(q.find(1, kAnySource, kAnyTag), nullptr);
  q.remove(*m2);
  EXPECT_EQ(q.find(0, kAnySource, 4), m3);
  q.release(m2);
  EXPECT_EQ(q.allocate(), m2);  // pooled: reused, not reallocated
}

TEST(UnexpectedQueue, TenThousandInOrder) {
  UnexpectedQueue q;
  std::vector<Unexpected*> all;
  for (int i = 0; i < 10000; ++i) {
    Unexpected* u = q.allocate();
    u->context = 0; u->source = i % 7; u->tag = i;
    q.push(*u);
    all.push_back(u);
  }
  for (int i = 0; i < 10000; ++i) {
    Unexpected* u = q.find(0, kAnySource, kAnyTag);
    ASSERT_EQ(u, all[std::size_t(i)]);
    q.remove(*u);
    q.release(u);
  }
  EXPECT_EQ(q.size(), 0u);
}

TEST(UnexpectedQueue, PayloadRoomInlineThenHeap) {
  UnexpectedQueue q;
  Unexpected* u = q.allocate();
  EXPECT_EQ(u->room_for(0), u->inline_data);
  EXPECT_EQ(u->room_for(sizeof u->inline_data), u->inline_data);
  std::byte* big = u->room_for(sizeof u->inline_data + 1);
  EXPECT_NE(big, u->inline_data);
  EXPECT_EQ(u->heap.capacity(), sizeof u->inline_data + 1);
  EXPECT_EQ(u->room_for(100), u->inline_data);  // small payloads stay inline
  EXPECT_EQ(u->room_for(sizeof u->inline_data + 1), big);  // the room is reused
  std::byte* bigger = u->room_for(4096);
  EXPECT_EQ(u->heap.capacity(), 4096u);
  bigger[4095] = std::byte{7};  // the whole room is there (AddressSanitizer checks)
}

TEST(UnexpectedQueue, ReleasedEntriesKeepTheirRoomUpToTheLimit) {
  UnexpectedQueue q;
  Unexpected* a = q.allocate();
  std::byte* room = a->room_for(1024);
  q.release(a);
  EXPECT_EQ(q.kept_room(), 1024u);
  Unexpected* again = q.allocate();
  ASSERT_EQ(again, a);
  EXPECT_EQ(q.kept_room(), 0u);
  EXPECT_EQ(again->room_for(1000), room);  // a repeated message allocates nothing
  q.release(again);
}

TEST(UnexpectedQueue, RoomBeyondTheLimitGoesBack) {
  UnexpectedQueue q;
  std::vector<Unexpected*> big;
  const std::size_t each = UnexpectedQueue::kKeptRoomMax / 2;
  for (int i = 0; i < 4; ++i) {
    Unexpected* u = q.allocate();
    u->room_for(each);
    big.push_back(u);
  }
  for (Unexpected* u : big) q.release(u);
  EXPECT_EQ(q.kept_room(), UnexpectedQueue::kKeptRoomMax);  // two halves kept
  EXPECT_EQ(big[0]->heap.capacity(), each);
  EXPECT_EQ(big[1]->heap.capacity(), each);
  EXPECT_EQ(big[2]->heap.capacity(), 0u);
  EXPECT_EQ(big[2]->heap.data(), nullptr);
  EXPECT_EQ(big[3]->heap.capacity(), 0u);
  // Taken again, an entry's room no longer counts as kept.
  while (q.kept_room() > 0) q.allocate();
  EXPECT_EQ(q.kept_room(), 0u);
}

TEST(UnexpectedQueue, EntriesOfABurstBeyondThePoolGoBack) {
  UnexpectedQueue q;
  const std::size_t burst = 3 * UnexpectedQueue::kPooledMost;
  std::vector<Unexpected*> all;
  for (std::size_t i = 0; i < burst; ++i) {
    Unexpected* u = q.allocate();
    u->context = 1; u->source = 0; u->tag = int(i);
    q.push(*u);
    all.push_back(u);
  }
  EXPECT_EQ(q.entries(), burst);
  EXPECT_EQ(q.pooled(), 0u);
  // Received in order: every entry stays valid until its own release (the storage moves entries'
  // owners, never the entries).
  for (std::size_t i = 0; i < burst; ++i) {
    Unexpected* u = q.find(1, 0, kAnyTag);
    ASSERT_EQ(u, all[i]);
    EXPECT_EQ(u->tag, int(i));
    q.remove(*u);
    q.release(u);
  }
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.pooled(), UnexpectedQueue::kPooledMost);
  EXPECT_EQ(q.entries(), UnexpectedQueue::kPooledMost);
  // Released out of order too, with some still queued.
  all.clear();
  for (std::size_t i = 0; i < burst; ++i) {
    Unexpected* u = q.allocate();
    u->context = 2; u->source = int(i % 5); u->tag = int(i);
    q.push(*u);
    all.push_back(u);
  }
  for (int src = 4; src >= 1; --src) {
    while (Unexpected* u = q.find(2, src, kAnyTag)) {
      EXPECT_EQ(u->source, src);
      q.remove(*u);
      q.release(u);
    }
  }
  EXPECT_EQ(q.size(), (burst + 4) / 5);
  for (std::size_t i = 0; i < burst; i += 5) {  // source 0's messages, untouched and in order
    Unexpected* u = q.find(2, 0, kAnyTag);
    ASSERT_EQ(u, all[i]);
    EXPECT_EQ(u->tag, int(i));
    q.remove(*u);
    q.release(u);
  }
  EXPECT_EQ(q.entries(), UnexpectedQueue::kPooledMost);
  // The pool serves the next burst up to its size without allocating.
  Unexpected* again = q.allocate();
  EXPECT_EQ(q.pooled(), UnexpectedQueue::kPooledMost - 1);
  q.release(again);
}
