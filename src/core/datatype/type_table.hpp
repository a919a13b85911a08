// TypeTable: the derived datatypes of one process behind their handles (direct kind, object type
// datatype: kHandlePrefix | index, index >= kFirstIndex because indices 0..4 are the predefined
// pair types). Held by the runtime object; predefined types are never in it (they are decoded from
// the handle). A HandleTable whose handles are shifted by kFirstIndex.
#pragma once

#include <cstdint>
#include <memory>

#include "core/datatype/datatype.hpp"
#include "core/handle_table.hpp"

namespace railmpi::core::dtype {

class TypeTable {
 public:
  // The live (or, with allow_freed, user-freed but still referenced) type behind `handle`.
  Datatype* find(int handle, bool allow_freed = false) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & ~Table::kIndexMask) != kHandlePrefix || (h & Table::kIndexMask) < kFirstIndex) return nullptr;
    Datatype* t = table_.find(static_cast<int>(h - kFirstIndex));
    if (!t || (t->user_freed && !allow_freed)) return nullptr;
    return t;
  }

  // Stores `t` and gives it its handle (t->handle); returns the object.
  Datatype* add(std::unique_ptr<Datatype> t) {
    Datatype* raw = t.get();
    raw->handle = static_cast<int>(static_cast<std::uint32_t>(table_.add(std::move(t))) + kFirstIndex);
    return raw;
  }

  // Destroys the object behind a handle of this table.
  void remove(int handle) { table_.release(static_cast<int>(static_cast<std::uint32_t>(handle) - kFirstIndex)); }

  std::size_t live() const { return table_.live(); }

 private:
  using Table = HandleTable<Datatype, kHandlePrefix>;
  Table table_;
};

}  // namespace railmpi::core::dtype
