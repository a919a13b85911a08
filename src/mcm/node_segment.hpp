// Memory the ranks of one node share (MPI_Win_allocate_shared): a POSIX shared-memory object
// named for the job and a key, created by one rank and mapped by the others. Knows no MPI.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "device/shm/segment.hpp"

namespace railmpi::mcm {

class NodeSegment {
 public:
  // Creates the object for (`job`, `key`) with `bytes` bytes (zero-filled) and maps it; invalid
  // (and *error set) on failure.
  static NodeSegment create(std::string_view job, std::string_view key, std::size_t bytes, std::string* error);
  // Maps the object another rank of the node created.
  static NodeSegment open(std::string_view job, std::string_view key, std::size_t bytes, std::string* error);
  // Removes the name (the mappings stay until each rank drops its own).
  static void remove(std::string_view job, std::string_view key);

  bool valid() const { return mapping_.valid(); }
  std::byte* data() const { return mapping_.data(); }
  std::size_t size() const { return mapping_.size(); }

 private:
  static std::string name(std::string_view job, std::string_view key);
  device::shm::SharedMapping mapping_;
};

}  // namespace railmpi::mcm
