// Matching: the posted-receive queue and the unexpected-message queue, with MPI's rules.
//
// Both queues keep arrival/posting order; the first entry that matches wins, which gives MPI's
// non-overtaking guarantee because frames from one peer arrive in order. Wildcards: a receive
// may name kAnySource and/or kAnyTag; messages never carry wildcards.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/byte_room.hpp"
#include "p2p/request.hpp"
#include "p2p/wire_header.hpp"

namespace railmpi::p2p {

// A message that arrived before its receive was posted.
struct Unexpected {
  int context = 0, source = 0, tag = 0;
  int peer = -1;
  FrameKind kind = FrameKind::eager;  // eager (data held here) or rts (data still at the sender)
  bool sync = false;
  std::uint8_t rts_flags = 0;  // rts: its kFlagReadNow and kFlagWindow
  std::size_t size = 0;
  std::uint64_t sender_req = 0;
  std::uint64_t sender_addr = 0;
  std::byte* data = nullptr;  // eager payload, or an rts's sender layout: inline_data or heap
  std::size_t data_len = 0;   // rts: bytes of the sender layout at data (0: contiguous sender)
  // Room for a payload that inline_data cannot hold, kept when the entry goes back to the pool
  // (UnexpectedQueue::release()): a repeated unexpected message allocates nothing.
  base::ByteRoom heap;
  alignas(16) std::byte inline_data[256];

  // Where this entry holds `n` bytes: inline_data, or the heap room, grown when too small (not
  // cleared).
  std::byte* room_for(std::size_t n) { return n <= sizeof inline_data ? inline_data : heap.at_least(n); }
  Unexpected* next = nullptr;
  Unexpected* prev = nullptr;
  std::size_t slot = 0;  // its index in the UnexpectedQueue's storage
};

inline bool envelope_matches(int want_ctx, int want_src, int want_tag, int ctx, int src, int tag) {
  return want_ctx == ctx && (want_src == kAnySource || want_src == src) && (want_tag == kAnyTag || want_tag == tag);
}

// Receives of at least this capacity waiting in a PostedQueue tell a sender that it streams both
// ways (Engine::isend). Which sends then go by single copy is the device's figure
// (Figures::single_copy_both_ways_min, 6 KiB for shm): the same size, measured there.
inline constexpr std::size_t kLargeReceive = 6 * 1024;

class PostedQueue {
 public:
  void push(Request& r) {
    r.next = nullptr;
    r.prev = tail_;
    if (tail_) tail_->next = &r; else head_ = &r;
    tail_ = &r;
    if (r.bytes >= kLargeReceive) ++large_;
  }
  void remove(Request& r) {
    (r.prev ? r.prev->next : head_) = r.next;
    (r.next ? r.next->prev : tail_) = r.prev;
    r.next = r.prev = nullptr;
    if (r.bytes >= kLargeReceive) --large_;
  }
  // Receives of kLargeReceive bytes or more in the queue.
  std::size_t large() const { return large_; }
  // First posted receive that accepts this envelope, removed from the queue; nullptr if none.
  Request* take(int ctx, int src, int tag) {
    for (Request* r = head_; r; r = r->next)
      if (envelope_matches(r->context, r->source, r->tag, ctx, src, tag)) {
        remove(*r);
        return r;
      }
    return nullptr;
  }
  bool contains(const Request& r) const {
    for (const Request* p = head_; p; p = p->next)
      if (p == &r) return true;
    return false;
  }
  bool empty() const { return head_ == nullptr; }

 private:
  Request* head_ = nullptr;
  Request* tail_ = nullptr;
  std::size_t large_ = 0;
};

class UnexpectedQueue {
 public:
  // Entries pooled from the start: a few messages unexpected at once take none from the heap.
  static constexpr std::size_t kPooledAtStart = 16;
  // Free entries the pool keeps at most (about 0.4 MB): entries a larger burst of unexpected
  // messages took (senders may run ahead of their receivers as far as memory allows) go back to
  // the allocator as they are released, so a burst does not hold its memory until MPI_Finalize.
  static constexpr std::size_t kPooledMost = 1024;

  UnexpectedQueue() {
    storage_.reserve(kPooledAtStart);
    free_.reserve(kPooledAtStart);
    for (std::size_t i = 0; i < kPooledAtStart; ++i) free_.push_back(make_entry());
  }
  UnexpectedQueue(const UnexpectedQueue&) = delete;
  UnexpectedQueue& operator=(const UnexpectedQueue&) = delete;

  // Heap room the pooled entries keep at most, in all: what a burst of large unexpected messages
  // grew beyond it goes back to the allocator.
  static constexpr std::size_t kKeptRoomMax = std::size_t{1} << 20;

  // A fresh entry from the pool (allocates only when the pool is empty).
  Unexpected* allocate() {
    if (free_.empty()) {
      Unexpected* u = make_entry();
      free_.reserve(std::min(storage_.capacity(), kPooledMost));  // release() then never allocates
      return u;
    }
    Unexpected* u = free_.back();
    free_.pop_back();
    kept_room_ -= u->heap.capacity();
    return u;
  }
  void release(Unexpected* u) {
    if (free_.size() >= kPooledMost) {
      drop_entry(u);
      return;
    }
    if (kept_room_ + u->heap.capacity() > kKeptRoomMax) u->heap.release();
    kept_room_ += u->heap.capacity();
    u->data = nullptr;
    free_.push_back(u);
  }
  // Heap room the pooled entries keep now.
  std::size_t kept_room() const { return kept_room_; }
  // Entries that exist now: queued, taken and pooled.
  std::size_t entries() const { return storage_.size(); }
  // Entries pooled now.
  std::size_t pooled() const { return free_.size(); }

  void push(Unexpected& u) {
    u.next = nullptr;
    u.prev = tail_;
    if (tail_) tail_->next = &u; else head_ = &u;
    tail_ = &u;
    ++count_;
  }
  void remove(Unexpected& u) {
    (u.prev ? u.prev->next : head_) = u.next;
    (u.next ? u.next->prev : tail_) = u.prev;
    u.next = u.prev = nullptr;
    --count_;
  }
  // First message that the receive (ctx, src, tag) accepts; stays queued.
  Unexpected* find(int ctx, int src, int tag) const {
    for (Unexpected* u = head_; u; u = u->next)
      if (envelope_matches(ctx, src, tag, u->context, u->source, u->tag)) return u;
    return nullptr;
  }
  std::size_t size() const { return count_; }

 private:
  Unexpected* make_entry() {
    storage_.push_back(std::make_unique<Unexpected>());
    storage_.back()->slot = storage_.size() - 1;
    return storage_.back().get();
  }
  // Frees `u`: the last entry of the storage takes its slot.
  void drop_entry(Unexpected* u) {
    const std::size_t slot = u->slot;
    std::swap(storage_[slot], storage_.back());
    storage_[slot]->slot = slot;
    storage_.pop_back();
    // The pointers' block too, once a burst has gone (a million entries' pointers are 8 MB).
    if (storage_.capacity() > 4 * kPooledMost && storage_.size() < storage_.capacity() / 4) storage_.shrink_to_fit();
  }

  Unexpected* head_ = nullptr;
  Unexpected* tail_ = nullptr;
  std::size_t count_ = 0;
  std::vector<std::unique_ptr<Unexpected>> storage_;
  std::vector<Unexpected*> free_;
  std::size_t kept_room_ = 0;
};

}  // namespace railmpi::p2p
