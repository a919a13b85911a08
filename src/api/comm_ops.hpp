// Communication that communicator-creating calls need, before the new communicator exists:
// small collectives over an explicit member list on a given context and tag (internal tags are
// negative, so they never match a user message nor a collective of src/coll), and the agreement
// on context ids (scheme: core/context_ids.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/instance.hpp"

namespace railmpi::api {

inline constexpr int kTagCommCreate = -100;      // dup/split/create on the parent's collective context
inline constexpr int kTagInterLeaders = -101;    // leader exchanges on an intercommunicator
inline constexpr int kTagInterLocal = -102;      // local-group steps of intercommunicator calls
inline constexpr int kTagTopology = -103;        // topology construction (dist graph edges)

// Members (job ranks), this process's index among them, the context and tag used.
struct Wire {
  const std::vector<int>& members;
  int me;
  int context;
  int tag;
};

// The local group of `c` on its collective context (an intercommunicator's local context).
inline Wire local_wire(const core::Communicator& c, int tag) {
  return {c.job_ranks, c.rank, c.is_inter() ? c.local_context + 1 : c.coll_context(), tag};
}

void wire_send(const Wire& w, const void* buf, std::size_t bytes, int to);
void wire_recv(const Wire& w, void* buf, std::size_t bytes, int from);
void wire_bcast(const Wire& w, void* buf, std::size_t bytes, int root);
void wire_allreduce_and(const Wire& w, std::uint64_t* words, std::size_t n);
// Every member's `bytes` bytes, in member order, into `all` (members.size() * bytes).
void wire_allgather(const Wire& w, const void* mine, void* all, std::size_t bytes);
// Variable-size allgather: returns the concatenation; sizes[i] = member i's byte count.
std::vector<std::byte> wire_allgatherv(const Wire& w, const void* mine, std::size_t bytes,
                                       std::vector<std::size_t>& sizes);

// Point-to-point between the two leaders of an exchange, on an arbitrary communicator `via`
// (for an intercommunicator `peer` is a remote rank).
void exchange_with(const core::Communicator& via, int context, int tag, int peer, const void* sbuf,
                   std::size_t sbytes, void* rbuf, std::size_t rbytes);

// Intracommunicator creation: agreement over the members of `w` (api/context_agreement.hpp);
// returns the agreed context (members with `take` hold it from now on) or -1 when no id is free
// everywhere.
int agree_context(const Wire& w, bool take);

// Leaders swap `mine` for the remote group's `theirs` over intercommunicator `c`; every process
// of the local group gets `theirs` (at most `theirs_bytes`).
void swap_with_remote_group(const core::Communicator& c, const void* mine, std::size_t mine_bytes, void* theirs,
                            std::size_t theirs_bytes);

// Registers a new communicator (handle assigned) and returns it.
core::Communicator* new_comm(int context, std::vector<int> job_ranks, int errhandler);

// Frees a communicator's resources: attributes (delete callbacks; their error is returned),
// context ids, the handle.
int destroy_comm(core::Communicator* c);

}  // namespace railmpi::api
