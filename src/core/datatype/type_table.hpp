// TypeTable: the derived datatypes of one process behind their handles (direct kind, object type
// datatype: kHandlePrefix | index, index >= kFirstIndex). Held by the runtime object; predefined
// types are never in it (they are decoded from the handle). Objects never move; freed indices are
// reused.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/datatype/datatype.hpp"

namespace railmpi::core::dtype {

class TypeTable {
 public:
  // The live (or, with allow_freed, user-freed but still referenced) type behind `handle`.
  Datatype* find(int handle, bool allow_freed = false) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & 0xfc000000u) != kHandlePrefix) return nullptr;
    const std::uint32_t index = h & 0x03ffffffu;
    if (index < kFirstIndex || index - kFirstIndex >= slots_.size()) return nullptr;
    Datatype* t = slots_[index - kFirstIndex].get();
    if (!t || (t->user_freed && !allow_freed)) return nullptr;
    return t;
  }

  // Stores `t` and gives it its handle (t->handle); returns the object.
  Datatype* add(std::unique_ptr<Datatype> t) {
    std::uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    t->handle = static_cast<int>(kHandlePrefix | (slot + kFirstIndex));
    slots_[slot] = std::move(t);
    ++live_;
    return slots_[slot].get();
  }

  // Destroys the object behind a handle of this table.
  void remove(int handle) {
    const std::uint32_t slot = (static_cast<std::uint32_t>(handle) & 0x03ffffffu) - kFirstIndex;
    slots_[slot].reset();
    free_.push_back(slot);
    --live_;
  }

  std::size_t live() const { return live_; }

 private:
  std::vector<std::unique_ptr<Datatype>> slots_;  // index - kFirstIndex -> object (nullptr: free)
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace railmpi::core::dtype
