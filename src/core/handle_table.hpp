// HandleTable: dynamic MPI objects of one kind behind integer handles of the MPICH ABI form
// (kind bits, object-type bits, index). Objects never move (callers keep pointers); freed indices
// are reused. Predefined handles (MPI_COMM_WORLD, MPI_GROUP_EMPTY, MPI_INFO_ENV, ...) are not in
// the table: their owners check for them before asking it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace railmpi::core {

template <class T, std::uint32_t Prefix>
class HandleTable {
 public:
  static constexpr std::uint32_t kPrefix = Prefix;
  static constexpr std::uint32_t kIndexMask = 0x03ffffffu;

  // Stores `object`; returns its handle.
  int add(std::unique_ptr<T> object) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[index] = std::move(object);
    return static_cast<int>(kPrefix | index);
  }

  // The object behind `handle`; nullptr when it is not a live handle of this table.
  T* find(int handle) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & ~kIndexMask) != kPrefix) return nullptr;
    const std::uint32_t index = h & kIndexMask;
    return index < slots_.size() ? slots_[index].get() : nullptr;
  }

  // Destroys the object; false when `handle` is not a live handle of this table.
  bool release(int handle) {
    if (!find(handle)) return false;
    const std::uint32_t index = static_cast<std::uint32_t>(handle) & kIndexMask;
    slots_[index].reset();
    free_.push_back(index);
    return true;
  }

  std::size_t live() const { return slots_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<T>> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace railmpi::core
