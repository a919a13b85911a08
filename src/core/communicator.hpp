// Communicators: a context id, this rank's place in a group, and an error handler.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace railmpi::core {

struct Communicator {
  int handle = 0;
  int context = 0;             // point-to-point context; collectives use context + 1
  int rank = 0;                // this process's rank in the communicator
  std::vector<int> job_ranks;  // rank in communicator -> job-wide rank (local group)
  std::vector<int> remote_job_ranks;  // intercommunicators: remote group's rank -> job rank
  int errhandler = 0;
  std::string name;
  // Collective calls made so far on this communicator: each one's tag on the collective context.
  mutable std::uint32_t coll_seq = 0;

  int size() const { return static_cast<int>(job_ranks.size()); }
  bool is_inter() const { return !remote_job_ranks.empty(); }
  int remote_size() const { return is_inter() ? static_cast<int>(remote_job_ranks.size()) : size(); }
  // Job rank of a destination/source rank (in the remote group for an intercommunicator).
  int job_rank(int rank_in_comm) const {
    return (is_inter() ? remote_job_ranks : job_ranks)[static_cast<std::size_t>(rank_in_comm)];
  }
  int coll_context() const { return context + 1; }
};

}  // namespace railmpi::core
