// Communicator handle table: dynamic communicators (MPI_COMM_WORLD and MPI_COMM_SELF are builtin
// handles held by the instance). Handles are kPrefix | index; slots never move.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/communicator.hpp"
#include "core/handle_table.hpp"

namespace railmpi::core {

class CommTable {
 public:
  static constexpr std::uint32_t kPrefix = 0x84000000u;  // direct kind, object type communicator

  // A new communicator with its handle filled in.
  Communicator* add() {
    auto object = std::make_unique<Communicator>();
    Communicator* c = object.get();
    c->handle = table_.add(std::move(object));
    return c;
  }
  Communicator* find(int handle) const { return table_.find(handle); }
  void release(int handle) { table_.release(handle); }
  std::size_t live() const { return table_.live(); }

 private:
  HandleTable<Communicator, kPrefix> table_;
};

}  // namespace railmpi::core
