// The buffer attached with MPI_Buffer_attach, carved first-fit into regions that each hold one
// buffered message until its send completes.
#pragma once

#include <cstddef>
#include <map>

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

  // Offset of a free region of `bytes`, or false when none is large enough.
  bool allocate(std::size_t bytes, std::size_t& offset) {
    bytes = (bytes + 15) & ~std::size_t{15};
    std::size_t cursor = 0;
    for (const auto& [start, len] : used_) {
      if (start - cursor >= bytes) break;
      cursor = start + len;
    }
    if (cursor + bytes > size_) return false;
    used_.emplace(cursor, bytes);
    offset = cursor;
    return true;
  }
  void release(std::size_t offset) { used_.erase(offset); }
  std::byte* at(std::size_t offset) const { return base_ + offset; }

 private:
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
  std::map<std::size_t, std::size_t> used_;  // offset -> length, sorted
};

}  // namespace railmpi::api
