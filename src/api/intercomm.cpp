// Intercommunicators: MPI_Intercomm_create and MPI_Intercomm_merge. Context ids: both groups'
// free masks are ANDed (each group reduces to its leader, the leaders exchange); see
// core/context_ids.hpp.
#include <cstring>

#include "api/checks.hpp"
#include "api/comm_ops.hpp"
#include "api/context_agreement.hpp"

using namespace railmpi;
using namespace railmpi::api;


extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  require_running(call);
  core::Communicator* lc;
  if (int e = check_comm(call, local_comm, lc)) return e;
  if (lc->is_inter())
    return raise_error(local_comm, MPI_ERR_COMM, call, "local_comm=0x%x is an intercommunicator",
                       static_cast<unsigned>(local_comm));
  if (local_leader < 0 || local_leader >= lc->size())
    return raise_error(local_comm, MPI_ERR_RANK, call, "local_leader=%d is not a rank of local_comm (size %d)",
                       local_leader, lc->size());
  if (int e = check_send_tag(call, local_comm, tag)) return e;
  if (!newintercomm) return raise_error(local_comm, MPI_ERR_ARG, call, "newintercomm is NULL");
  core::Communicator* pc = nullptr;
  if (lc->rank == local_leader) {
    if (int e = check_comm(call, peer_comm, pc)) return e;
    if (remote_leader < 0 || remote_leader >= pc->remote_size())
      return raise_error(peer_comm, MPI_ERR_RANK, call, "remote_leader=%d is not a rank of peer_comm (size %d)",
                         remote_leader, pc->remote_size());
    if (!pc->is_inter() && remote_leader == pc->rank)
      return raise_error(peer_comm, MPI_ERR_RANK, call, "remote_leader=%d is the local leader itself",
                         remote_leader);
  }

  const Wire lw = local_wire(*lc, kTagInterLocal);
  // Leaders swap group sizes and job ranks over peer_comm with the user's tag, then tell their
  // group.
  int remote_n = 0;
  std::vector<int> remote;
  if (lc->rank == local_leader) {
    const int n = lc->size();
    exchange_with(*pc, pc->context, tag, remote_leader, &n, sizeof n, &remote_n, sizeof remote_n);
    remote.resize(static_cast<std::size_t>(remote_n));
    exchange_with(*pc, pc->context, tag, remote_leader, lc->job_ranks.data(), lc->job_ranks.size() * sizeof(int),
                  remote.data(), remote.size() * sizeof(int));
  }
  wire_bcast(lw, &remote_n, sizeof remote_n, local_leader);
  remote.resize(static_cast<std::size_t>(remote_n));
  wire_bcast(lw, remote.data(), remote.size() * sizeof(int), local_leader);

  // Context ids: AND in the local group, the leaders AND theirs over peer_comm, broadcast.
  const AndAll over_both = [&](std::uint64_t* words, std::size_t n) {
    wire_allreduce_and(lw, words, n);
    if (lc->rank == local_leader) {
      std::vector<std::uint64_t> theirs(n);
      exchange_with(*pc, pc->context, tag, remote_leader, words, n * sizeof(std::uint64_t), theirs.data(),
                    n * sizeof(std::uint64_t));
      for (std::size_t i = 0; i < n; ++i) words[i] &= theirs[i];
    }
    wire_bcast(lw, words, n * sizeof(std::uint64_t), local_leader);
  };
  int slots[2];
  const unsigned key = static_cast<unsigned>(lw.context) * 31u + static_cast<unsigned>(tag);
  if (!agree_slots(over_both, 2, true, key, slots))
    return raise_error(local_comm, MPI_ERR_OTHER, call, "no context id is free on every member");
  const int a = slots[0], b = slots[1];
  core::Communicator* n = new_comm(core::ContextIds::context_of(a), lc->job_ranks, lc->errhandler);
  n->local_context = core::ContextIds::context_of(b);
  n->remote_job_ranks = std::move(remote);
  *newintercomm = n->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, intercomm, c)) return e;
  if (!c->is_inter())
    return raise_error(intercomm, MPI_ERR_COMM, call, "intercomm=0x%x is not an intercommunicator",
                       static_cast<unsigned>(intercomm));
  if (!newintracomm) return raise_error(intercomm, MPI_ERR_ARG, call, "newintracomm is NULL");
  // The leaders' flags decide (MPI requires one value per group).
  int leader_high = high ? 1 : 0, remote_high = 0;
  wire_bcast(local_wire(*c, kTagInterLocal), &leader_high, sizeof leader_high, 0);
  swap_with_remote_group(*c, &leader_high, sizeof leader_high, &remote_high, sizeof remote_high);
  int slot = -1;
  const unsigned key = static_cast<unsigned>(c->coll_context()) * 31u + static_cast<unsigned>(kTagInterLeaders);
  const AndAll over_both = [c](std::uint64_t* words, std::size_t n) { and_over_inter(*c, words, n); };
  if (!agree_slots(over_both, 1, true, key, &slot))
    return raise_error(intercomm, MPI_ERR_OTHER, call, "no context id is free on every member");
  // Low group first; equal flags: the group whose first member has the lower job rank.
  bool local_first = leader_high != remote_high ? !leader_high : c->job_ranks[0] < c->remote_job_ranks[0];
  std::vector<int> ranks = local_first ? c->job_ranks : c->remote_job_ranks;
  const std::vector<int>& second = local_first ? c->remote_job_ranks : c->job_ranks;
  ranks.insert(ranks.end(), second.begin(), second.end());
  *newintracomm = new_comm(core::ContextIds::context_of(slot), std::move(ranks), c->errhandler)->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge

}  // extern "C"
