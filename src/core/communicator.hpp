// Communicators: a context id, this rank's place in a group, an error handler and an optional
// process topology.
#pragma once

#include <memory>
#include <cstdint>
#include <string>
#include <vector>

namespace railmpi::core {

inline constexpr int kProcNull = -1;  // MPI_PROC_NULL

enum class TopoKind : unsigned char { none, graph, cart, dist_graph };

// A process topology attached to a communicator (MPI_Cart_create, MPI_Graph_create,
// MPI_Dist_graph_create*).
struct Topology {
  TopoKind kind = TopoKind::none;
  // cart: extent and periodicity per dimension (row-major rank order).
  std::vector<int> dims;
  std::vector<int> periods;
  // graph: MPI's index/edges arrays for all nodes.
  std::vector<int> index;
  std::vector<int> edges;
  // dist_graph: this process's in- and out-neighbours (ranks) with weights.
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

struct Communicator {
  int handle = 0;
  int context = 0;             // point-to-point context; collectives use context + 1
  int rank = 0;                // this process's rank in the communicator
  std::vector<int> job_ranks;  // rank in communicator -> job-wide rank (local group)
  std::vector<int> remote_job_ranks;  // intercommunicators: remote group's rank -> job rank
  int local_context = -1;      // intercommunicators: context of the local group's own traffic
  int errhandler = 0;
  std::string name;
  std::shared_ptr<const Topology> topo;  // null: no topology
  // Collective calls made so far on this communicator: each one's tag on the collective context.
  mutable std::uint32_t coll_seq = 0;
  // Node-level collectives (coll/node_collectives.hpp): this communicator's slot in the node's
  // shared region (kNodeSlotUndecided until its first eligible call, -1 when it has none).
  static constexpr int kNodeSlotUndecided = -2;
  mutable int node_slot = kNodeSlotUndecided;

  int size() const { return static_cast<int>(job_ranks.size()); }
  bool is_inter() const { return !remote_job_ranks.empty(); }
  int remote_size() const { return is_inter() ? static_cast<int>(remote_job_ranks.size()) : size(); }
  // Job rank of a destination/source rank (in the remote group for an intercommunicator).
  int job_rank(int rank_in_comm) const {
    return (is_inter() ? remote_job_ranks : job_ranks)[static_cast<std::size_t>(rank_in_comm)];
  }
  int coll_context() const { return context + 1; }
};

// Cartesian helpers (row-major). cart_rank returns kProcNull when a non-periodic coordinate is
// out of range.
void cart_coords(const Topology& t, int rank, int* coords);
int cart_rank(const Topology& t, const int* coords);
// MPI_Cart_shift: the ranks `disp` steps back (source) and forth (dest) along `dim`.
void cart_shift(const Topology& t, int rank, int dim, int disp, int& source, int& dest);

// The neighbours of this process in the communicator's topology, in the order MPI defines for
// neighbourhood collectives: cart: for each dimension the -1 then the +1 neighbour (kProcNull at
// a non-periodic border), the same list for sources and destinations; graph: the node's
// adjacency list for both; dist_graph: the in-neighbours (sources) and out-neighbours
// (destinations) as given at creation. False (lists emptied) when there is no topology.
bool neighbors(const Communicator& c, std::vector<int>& sources, std::vector<int>& destinations);

}  // namespace railmpi::core
