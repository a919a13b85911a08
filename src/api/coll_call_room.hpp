// The memory a collective call is set up in (block layouts, per-peer datatypes, staged outputs,
// neighbor lists), held by the runtime object and kept from call to call so that a repeated
// collective allocates nothing. One MPI call runs at a time (MPI_THREAD_SERIALIZED at most), and
// the schedules copy what they need of it: it is free again when the call returns.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "mpi.h"

#include "base/byte_room.hpp"
#include "core/datatype.hpp"

namespace railmpi::api {

// One side (send or receive) of a neighborhood collective: per neighbor a byte count and a typed
// byte offset, with one datatype for all blocks or one per block (alltoallw).
struct NeighborSide {
  const void* buf = nullptr;
  std::vector<std::size_t> bytes, offsets;
  std::vector<MPI_Datatype> types;
  std::vector<core::TypeInfo> infos;
  bool per_block = false;
};

struct CollCallRoom {
  // Block sizes and offsets (api::collective::layout()).
  std::array<std::vector<std::size_t>, 4> layouts;
  // MPI_Alltoallw's datatypes per peer, receive side [0] and send side [1].
  std::array<std::vector<MPI_Datatype>, 2> peer_types;
  std::array<std::vector<core::TypeInfo>, 2> peer_type_infos;
  // Outputs staged through scratch memory, unpacked by the schedule's last steps
  // (api::collective::Staging).
  struct StagedOutput {
    std::byte* typed;
    const std::byte* flat;
    std::size_t bytes, count;
    MPI_Datatype type;
  };
  std::vector<StagedOutput> staged_outputs;
  // A non-contiguous bcast's packed bytes on the node's shared region (at most its limit).
  base::ByteRoom node_packed;
  // A neighborhood collective's neighbors, in MPI's order, and its two sides.
  std::vector<int> sources, destinations;
  NeighborSide send, recv;
};

}  // namespace railmpi::api
