// Communicator handle table: dynamic communicators (MPI_COMM_WORLD and MPI_COMM_SELF are builtin
// handles held by the instance). Handles are kPrefix | index; slots never move.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/communicator.hpp"

namespace railmpi::core {

class CommTable {
 public:
  static constexpr std::uint32_t kPrefix = 0x84000000u;  // direct kind, object type communicator
  static constexpr std::uint32_t kIndexMask = 0x03ffffffu;

  // A new communicator with its handle filled in.
  Communicator* add() {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[index] = std::make_unique<Communicator>();
    slots_[index]->handle = static_cast<int>(kPrefix | index);
    return slots_[index].get();
  }

  Communicator* find(int handle) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & ~kIndexMask) != kPrefix) return nullptr;
    const std::uint32_t index = h & kIndexMask;
    return index < slots_.size() ? slots_[index].get() : nullptr;
  }

  void release(int handle) {
    const std::uint32_t index = static_cast<std::uint32_t>(handle) & kIndexMask;
    if (index < slots_.size() && slots_[index]) {
      slots_[index].reset();
      free_.push_back(index);
    }
  }

  std::size_t live() const { return slots_.size() - free_.size(); }

 private:
  std::vector<std::unique_ptr<Communicator>> slots_;
  std::vector<std::uint32_t> free_;
};

}  // namespace railmpi::core
