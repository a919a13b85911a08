// Single copies with one peer that wait for the end of a device pass, to go in one system call
// (p2p::Engine::flush_copies).
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
  // Moves the queued copies into `out` and empties the queue (what their completion queues next
  // waits for the next flush); returns how many, and their peer in `peer`.
  std::size_t take(Item (&out)[N], int& peer) {
    const std::size_t n = count_;
    std::copy_n(items_, n, out);
    count_ = 0;
    peer = peer_;
    return n;
  }

 private:
  Item items_[N];
  std::size_t count_ = 0;
  int peer_ = -1;
};

}  // namespace railmpi::p2p
