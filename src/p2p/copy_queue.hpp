// Single copies with one peer that wait for the end of a device pass, to go in one system call
// (p2p::Engine::flush_copies). A flush may take only the first few (a read of a few MiB at a
// time) and the receiver may hand the last ones to the sender (Engine::handle_help), so the
// queue is read at both ends.
#pragma once

#include <algorithm>
#include <cstddef>

namespace railmpi::p2p {

template <class Item, std::size_t N>
class CopyQueue {
 public:
  // The queued copies must go before one with `peer` is queued: they are another peer's, or N.
  bool must_flush_before(int peer) const { return count_ > 0 && (peer_ != peer || count_ == N); }
  void push(int peer, const Item& item) {
    peer_ = peer;
    items_[count_++] = item;
  }
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  // The queued copies' peer (meaningful while not empty).
  int peer() const { return peer_; }
  Item& operator[](std::size_t i) { return items_[i]; }
  Item& back() { return items_[count_ - 1]; }
  void pop_back() { --count_; }
  // Moves the first n queued copies into `out` (what their completion queues next goes after the
  // ones left).
  void take_front(std::size_t n, Item (&out)[N]) {
    std::copy_n(items_, n, out);
    std::copy(items_ + n, items_ + count_, items_);
    count_ -= n;
  }
  // Moves every queued copy into `out` and empties the queue; returns how many, and their peer in
  // `peer`.
  std::size_t take(Item (&out)[N], int& peer) {
    const std::size_t n = count_;
    peer = peer_;
    take_front(n, out);
    return n;
  }

 private:
  Item items_[N];
  std::size_t count_ = 0;
  int peer_ = -1;
};

}  // namespace railmpi::p2p
