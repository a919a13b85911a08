// The buffer attached with MPI_Buffer_attach, carved first-fit into regions that each hold one
// buffered message until its send completes. The regions in use are a vector sorted by offset,
// kept from message to message: a buffered send allocates nothing once as many were in flight.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace railmpi::api {

class BsendBuffer {
 public:
  void attach(void* base, std::size_t size) {
    base_ = static_cast<std::byte*>(base);
    size_ = size;
    used_.clear();
  }
  bool attached() const { return base_ != nullptr; }
  void* base() const { return base_; }
  std::size_t size() const { return size_; }
  void detach() {
    base_ = nullptr;
    size_ = 0;
    used_.clear();
  }
  bool empty() const { return used_.empty(); }
  // Regions in use.
  std::size_t regions() const { return used_.size(); }

  // Offset of a free region of `bytes` (rounded up to 16), the first that fits, or false when
  // none is large enough.
  bool allocate(std::size_t bytes, std::size_t& offset) {
    bytes = (bytes + 15) & ~std::size_t{15};
    std::size_t cursor = 0;
    auto next = used_.begin();
    for (; next != used_.end(); ++next) {
      if (next->offset - cursor >= bytes) break;
      cursor = next->offset + next->length;
    }
    if (cursor + bytes > size_) return false;
    used_.insert(next, Region{cursor, bytes});
    offset = cursor;
    return true;
  }
  void release(std::size_t offset) {
    const auto r = std::lower_bound(used_.begin(), used_.end(), offset,
                                    [](const Region& a, std::size_t o) { return a.offset < o; });
    if (r != used_.end() && r->offset == offset) used_.erase(r);
  }
  std::byte* at(std::size_t offset) const { return base_ + offset; }

 private:
  struct Region {
    std::size_t offset, length;
  };
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<Region> used_;  // sorted by offset
};

}  // namespace railmpi::api
