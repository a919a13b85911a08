// Intercommunicators: MPI_Intercomm_create and MPI_Intercomm_merge. Context ids: both groups'
// free masks are ANDed (each group reduces to its leader, the leaders exchange); see
// core/context_ids.hpp.
#include <cstring>

#include "api/checks.hpp"
#include "api/comm_ops.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace railmpi::api {
void agree_over_inter(const core::Communicator& c, std::uint64_t* mask, int mine, int& remote);
}

namespace {
constexpr std::size_t kMaskBytes = sizeof(std::uint64_t) * core::ContextIds::kWords;
}

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  require_running(call);
  Instance& in = instance();
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
  std::uint64_t mask[core::ContextIds::kWords];
  std::memcpy(mask, in.context_ids.mask(), kMaskBytes);
  wire_allreduce_and(lw, mask, core::ContextIds::kWords);

  // Leader: exchange (mask, group size) then the group's job ranks with the remote leader over
  // peer_comm with the user's tag; then tell the local group.
  int remote_n = 0;
  std::vector<int> remote;
  if (lc->rank == local_leader) {
    std::vector<std::byte> out(kMaskBytes + sizeof(int)), back(kMaskBytes + sizeof(int));
    const int n = lc->size();
    std::memcpy(out.data(), mask, kMaskBytes);
    std::memcpy(out.data() + kMaskBytes, &n, sizeof n);
    exchange_with(*pc, pc->context, tag, remote_leader, out.data(), out.size(), back.data(), back.size());
    std::uint64_t theirs[core::ContextIds::kWords];
    std::memcpy(theirs, back.data(), kMaskBytes);
    std::memcpy(&remote_n, back.data() + kMaskBytes, sizeof remote_n);
    for (int i = 0; i < core::ContextIds::kWords; ++i) mask[i] &= theirs[i];
    remote.resize(static_cast<std::size_t>(remote_n));
    exchange_with(*pc, pc->context, tag, remote_leader, lc->job_ranks.data(), lc->job_ranks.size() * sizeof(int),
                  remote.data(), remote.size() * sizeof(int));
  }
  std::vector<std::byte> info(kMaskBytes + sizeof(int));
  std::memcpy(info.data(), mask, kMaskBytes);
  std::memcpy(info.data() + kMaskBytes, &remote_n, sizeof remote_n);
  wire_bcast(lw, info.data(), info.size(), local_leader);
  std::memcpy(mask, info.data(), kMaskBytes);
  std::memcpy(&remote_n, info.data() + kMaskBytes, sizeof remote_n);
  remote.resize(static_cast<std::size_t>(remote_n));
  wire_bcast(lw, remote.data(), remote.size() * sizeof(int), local_leader);

  const int a = core::ContextIds::lowest(mask), b = core::ContextIds::lowest(mask, 1);
  if (a < 0 || b < 0) return raise_error(local_comm, MPI_ERR_OTHER, call, "no context id is free on every member");
  in.context_ids.take(a);
  in.context_ids.take(b);
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
  std::uint64_t mask[core::ContextIds::kWords];
  const int mine = high ? 1 : 0;
  int remote_high = 0;
  // The leaders' flags decide (MPI requires one value per group).
  int leader_high = mine;
  wire_bcast(local_wire(*c, kTagInterLocal), &leader_high, sizeof leader_high, 0);
  agree_over_inter(*c, mask, leader_high, remote_high);
  const int slot = core::ContextIds::lowest(mask);
  if (slot < 0) return raise_error(intercomm, MPI_ERR_OTHER, call, "no context id is free on every member");
  instance().context_ids.take(slot);
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
