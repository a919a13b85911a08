// Windows as the MPI entry points see them: the handle's object (its rma::Window, memory,
// predefined attributes, error handler, name) and the epochs this rank has open on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "mpi.h"

#include "core/handle_table.hpp"
#include "mcm/node_segment.hpp"
#include "rma/window.hpp"

namespace railmpi::api {

// MPI_Win_allocate's memory comes in cache lines (aligned, zeroed).
struct alignas(64) CacheLine {
  std::byte bytes[64];
};

struct WinObject {
  std::unique_ptr<rma::Window> window;
  MPI_Comm comm = MPI_COMM_NULL;  // the window's own communicator (a duplicate of the creator's)
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;
  std::unique_ptr<CacheLine[]> memory;  // MPI_Win_allocate's
  // MPI_Win_allocate_shared: the node's segment, and where each rank's part of it starts.
  std::unique_ptr<mcm::NodeSegment> segment;
  std::vector<MPI_Aint> shared_offsets, shared_sizes;
  std::vector<int> shared_disp_units;
  // MPI_Win_create_dynamic: the regions attached (base, size).
  std::vector<std::pair<const void*, MPI_Aint>> attached;
  int errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;

  // Epochs open at this rank. Access: after a fence that did not assert MPI_MODE_NOSUCCEED,
  // per-target locks, a lock_all, a start group; exposure: a post group.
  enum class Lock : std::uint8_t { none, shared, exclusive, nocheck };
  bool fence_open = false;
  bool locked_all = false;
  bool locked_all_nocheck = false;
  std::vector<Lock> locks;         // per target
  int locks_held = 0;
  std::vector<int> access_group;   // targets of MPI_Win_start, until MPI_Win_complete
  std::vector<std::uint8_t> in_access_group;
  bool started = false;
  bool posted = false;

  bool may_access(int target) const {
    const auto t = static_cast<std::size_t>(target);
    return fence_open || locked_all || locks[t] != Lock::none || (started && in_access_group[t]);
  }
};

inline constexpr std::uint32_t kWinPrefix = 0xa0000000u;  // direct kind, object type window
using WinTable = core::HandleTable<WinObject, kWinPrefix>;

}  // namespace railmpi::api
