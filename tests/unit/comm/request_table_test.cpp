// The request table: handles, reuse of slots, and that a reused slot starts from its defaults.
#include <gtest/gtest.h>

#include <cstring>

#include "core/request_table.hpp"

using namespace railmpi;
using namespace railmpi::core;

TEST(RequestTable, HandlesFindLiveSlotsOnly) {
  RequestTable t;
  RequestSlot* a = t.allocate();
  RequestSlot* b = t.allocate();
  EXPECT_NE(a->handle, b->handle);
  EXPECT_EQ(t.find(a->handle), a);
  EXPECT_EQ(t.find(b->handle), b);
  EXPECT_EQ(t.live(), 2u);
  const int old = a->handle;
  t.release(a);
  EXPECT_EQ(t.find(old), nullptr);
  EXPECT_EQ(t.find(0), nullptr);
  EXPECT_EQ(t.find(int(RequestTable::kPrefix | 5000000u)), nullptr);
  EXPECT_EQ(t.live(), 1u);
}

TEST(RequestTable, AReusedSlotStartsFromItsDefaults) {
  RequestTable t;
  RequestSlot* s = t.allocate();
  const int handle = s->handle;
  // Everything a request may leave behind: every byte of the slot garbage.
  std::memset(static_cast<void*>(s), 0xa5, sizeof(RequestSlot));
  s->handle = handle;
  // The garbage must really be in memory when the slot is rebuilt (the compiler may otherwise
  // drop stores to an object whose lifetime the rebuild starts anew).
  asm volatile("" : : "r"(s) : "memory");
  t.release(s);
  RequestSlot* r = t.allocate();
  ASSERT_EQ(r, s);  // the free list hands the slot back
  EXPECT_TRUE(r->in_use);
  EXPECT_EQ(r->handle, handle);
  EXPECT_EQ(r->p2p.owner, r);
  EXPECT_EQ(r->op, RequestOp::none);
  EXPECT_FALSE(r->persistent);
  EXPECT_FALSE(r->active);
  EXPECT_FALSE(r->user_freed);
  EXPECT_EQ(r->error, 0);
  EXPECT_EQ(r->buf, nullptr);
  EXPECT_FALSE(r->buffered);
  EXPECT_EQ(r->layout.base, nullptr);
  EXPECT_EQ(r->layout.repeat, 0u);
  EXPECT_FALSE(r->scattered);
  EXPECT_FALSE(r->holds_type);
  const p2p::Request& q = r->p2p;
  EXPECT_FALSE(q.complete);
  EXPECT_FALSE(q.cancelled);
  EXPECT_FALSE(q.truncated);
  EXPECT_EQ(q.peer, -1);
  EXPECT_EQ(q.buf, nullptr);
  EXPECT_EQ(q.layout, nullptr);
  EXPECT_EQ(q.packed, nullptr);
  EXPECT_EQ(q.waiting, 0);
  EXPECT_FALSE(q.op_busy);
  EXPECT_FALSE(q.cts_arrived);
  EXPECT_FALSE(q.sending_data);
  EXPECT_EQ(q.offset, 0u);
  EXPECT_EQ(q.message, nullptr);
  EXPECT_EQ(q.next, nullptr);
  EXPECT_EQ(q.prev, nullptr);
  EXPECT_EQ(q.on_complete, nullptr);
  EXPECT_EQ(q.owner_engine, nullptr);
  EXPECT_EQ(q.op.header_len, 0u);
  EXPECT_EQ(q.op.payload, nullptr);
  EXPECT_EQ(q.op.layout, nullptr);
  EXPECT_EQ(q.op.on_done, nullptr);
  EXPECT_FALSE(q.op.placeable);
  EXPECT_EQ(q.op.parts_pending, 0u);
  EXPECT_EQ(q.op.next, nullptr);
  EXPECT_EQ(q.op.progress, 0u);
}
