// A block of bytes that only grows: room for at least n bytes, kept for the next use, so a buffer
// reused for messages or schedule scratch of similar sizes allocates only when a larger one comes.
// The bytes are not cleared.
#pragma once

#include <cstddef>
#include <memory>

namespace railmpi::base {

class ByteRoom {
 public:
  // At least `n` bytes (1 for 0), reallocated only when the room is smaller.
  std::byte* at_least(std::size_t n) {
    if (n == 0) n = 1;
    if (n > capacity_) {
      bytes_.reset();  // before the new block: the old one is not needed
      bytes_.reset(new std::byte[n]);
      capacity_ = n;
    }
    return bytes_.get();
  }
  // Gives the memory back.
  void release() {
    bytes_.reset();
    capacity_ = 0;
  }
  std::byte* data() const { return bytes_.get(); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<std::byte[]> bytes_;
  std::size_t capacity_ = 0;
};

}  // namespace railmpi::base
