// Communicator construction and destruction: dup (+ with_info, idup: non-blocking, see
// api/context_agreement.hpp), split, split_type, create,
// create_group, free, compare, test_inter, remote_size, set_name. Context ids: core/context_ids.hpp.
#include <algorithm>
#include <climits>
#include <cstring>

#include "api/checks.hpp"
#include "api/comm_ops.hpp"
#include "api/context_agreement.hpp"

using namespace railmpi;
using namespace railmpi::api;


namespace {

// Context of a communicator whose agreement is still running (MPI_Comm_idup): no slot.
constexpr int kNoContext = -2;

int no_context(const char* call, MPI_Comm comm) {
  return raise_error(comm, MPI_ERR_OTHER, call, "no context id is free on every member (too many communicators)");
}

// The intercommunicator between `local` (ranks of c's local group) and `remote` (ranks of c's
// remote group), MPI_COMM_NULL unless this process is in `local` and both sides are non-empty
// (MPI-2.2 Comm_create/Comm_split on intercommunicators). Every process of both groups of c calls
// it: the context ids are agreed over both groups.
int make_inter(const char* call, core::Communicator* c, const std::vector<int>& local,
               const std::vector<int>& remote, MPI_Comm* newcomm) {
  const bool member = std::find(local.begin(), local.end(), c->rank) != local.end() && !remote.empty();
  int slots[2];
  const unsigned key = static_cast<unsigned>(c->coll_context()) * 31u + static_cast<unsigned>(kTagInterLeaders);
  const AndAll over_both = [c](std::uint64_t* words, std::size_t n) { and_over_inter(*c, words, n); };
  if (!agree_slots(over_both, 2, member, key, slots)) return no_context(call, c->handle);
  if (!member) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> job(local.size()), remote_job(remote.size());
  for (std::size_t i = 0; i < local.size(); ++i) job[i] = c->job_ranks[static_cast<std::size_t>(local[i])];
  for (std::size_t i = 0; i < remote.size(); ++i)
    remote_job[i] = c->remote_job_ranks[static_cast<std::size_t>(remote[i])];
  core::Communicator* n = new_comm(core::ContextIds::context_of(slots[0]), std::move(job), c->errhandler);
  n->local_context = core::ContextIds::context_of(slots[1]);
  n->remote_job_ranks = std::move(remote_job);
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

std::vector<int> all_ranks(int n) {
  std::vector<int> r(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) r[static_cast<std::size_t>(i)] = i;
  return r;
}

// Duplicates `c` (intra- or inter-): new context(s), same groups, same error handler, topology;
// attributes copied by their copy callbacks.
int dup_comm(const char* call, core::Communicator* c, MPI_Comm* newcomm) {
  Instance& in = instance();
  if (!c->is_inter()) {
    const int ctx = agree_context(local_wire(*c, kTagCommCreate), true);
    if (ctx < 0) return no_context(call, c->handle);
    *newcomm = new_comm(ctx, c->job_ranks, c->errhandler)->handle;
  } else if (int e = make_inter(call, c, all_ranks(c->size()), all_ranks(c->remote_size()), newcomm)) {
    return e;
  }
  core::Communicator* n = in.comms.find(*newcomm);
  n->topo = c->topo;
  if (int e = in.attributes.copy_all(c->handle, n->handle)) {
    destroy_comm(n);
    *newcomm = MPI_COMM_NULL;
    return raise_error(c->handle, e, call, "an attribute copy callback returned %d", e);
  }
  return MPI_SUCCESS;
}

int check_intra(const char* call, core::Communicator* c) {
  if (c->is_inter())
    return raise_error(c->handle, MPI_ERR_COMM, call, "comm=0x%x is an intercommunicator (not supported here)",
                       static_cast<unsigned>(c->handle));
  return MPI_SUCCESS;
}

struct ColorKey {
  int color, key;
};

// Ranks 0..n-1 of a group whose colour is `color`, ordered by key then rank.
std::vector<int> members_of(const std::vector<ColorKey>& all, int color) {
  std::vector<int> members;
  if (color == MPI_UNDEFINED) return members;
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].color == color) members.push_back(static_cast<int>(r));
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) {
    return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
  });
  return members;
}

// Split of `c` by colour and key (colour MPI_UNDEFINED: MPI_COMM_NULL). On an intercommunicator
// the result joins the processes of my colour in both groups (MPI_COMM_NULL when either side has
// none).
int split_comm(const char* call, core::Communicator* c, int color, int key, MPI_Comm* newcomm) {
  const Wire w = local_wire(*c, c->is_inter() ? kTagInterLocal : kTagCommCreate);
  std::vector<ColorKey> all(static_cast<std::size_t>(c->size()));
  const ColorKey mine{color, key};
  wire_allgather(w, &mine, all.data(), sizeof mine);
  if (c->is_inter()) {
    std::vector<ColorKey> remote(static_cast<std::size_t>(c->remote_size()));
    swap_with_remote_group(*c, all.data(), all.size() * sizeof(ColorKey), remote.data(),
                           remote.size() * sizeof(ColorKey));
    return make_inter(call, c, members_of(all, color), members_of(remote, color), newcomm);
  }
  const int ctx = agree_context(w, color != MPI_UNDEFINED);
  if (ctx < 0) return no_context(call, c->handle);
  if (color == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  const std::vector<int> members = members_of(all, color);  // parent ranks with my colour
  std::vector<int> job(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) job[i] = c->job_ranks[static_cast<std::size_t>(members[i])];
  *newcomm = new_comm(ctx, std::move(job), c->errhandler)->handle;
  return MPI_SUCCESS;
}

// MPI_Comm_create on an intercommunicator: `group` is a subset of the local group (the same in
// all its processes); the result joins it with the remote group's choice.
int create_inter(const char* call, core::Communicator* c, const core::Ranks& group, MPI_Comm* newcomm) {
  std::vector<int> local(group.size());
  for (std::size_t i = 0; i < group.size(); ++i) local[i] = core::group_rank_of(c->job_ranks, group[i]);
  // Leaders swap {count, ranks...}.
  std::vector<int> mine{static_cast<int>(local.size())}, theirs(static_cast<std::size_t>(c->remote_size()) + 1);
  mine.insert(mine.end(), local.begin(), local.end());
  swap_with_remote_group(*c, mine.data(), mine.size() * sizeof(int), theirs.data(), theirs.size() * sizeof(int));
  const std::vector<int> remote(theirs.begin() + 1, theirs.begin() + 1 + theirs[0]);
  return make_inter(call, c, local, remote, newcomm);
}

}  // namespace

extern "C" {

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  require_running("MPI_Comm_dup");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_dup", comm, c)) return e;
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_dup", "newcomm is NULL");
  return dup_comm("MPI_Comm_dup", c, newcomm);
}
#pragma weak MPI_Comm_dup = PMPI_Comm_dup

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  require_running("MPI_Comm_dup_with_info");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_dup_with_info", comm, c)) return e;
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return raise_error(comm, MPI_ERR_INFO, "MPI_Comm_dup_with_info", "info=0x%x is not a valid info object",
                       static_cast<unsigned>(info));
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_dup_with_info", "newcomm is NULL");
  return dup_comm("MPI_Comm_dup_with_info", c, newcomm);
}
#pragma weak MPI_Comm_dup_with_info = PMPI_Comm_dup_with_info

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  const char* call = "MPI_Comm_idup";
  require_running(call);
  Instance& in = instance();
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (!newcomm || !request) return raise_error(comm, MPI_ERR_ARG, call, "newcomm or request is NULL");
  // The new communicator exists at once (handle, groups, topology, attributes); it gets its
  // context(s) when the agreement completes the request, and is not to be used before.
  core::Communicator* n = new_comm(kNoContext, c->job_ranks, c->errhandler);
  n->remote_job_ranks = c->remote_job_ranks;
  n->topo = c->topo;
  if (int e = in.attributes.copy_all(c->handle, n->handle)) {
    destroy_comm(n);
    return raise_error(comm, e, call, "an attribute copy callback returned %d", e);
  }
  core::RequestSlot* s = in.requests.allocate();
  s->op = core::RequestOp::coll;
  s->comm = comm;
  s->p2p.kind = p2p::RequestKind::other;
  *newcomm = n->handle;
  *request = s->handle;
  start_idup(*c, *n, s);
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_idup = PMPI_Comm_idup

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (color < 0 && color != MPI_UNDEFINED)
    return raise_error(comm, MPI_ERR_ARG, call, "color=%d is negative and not MPI_UNDEFINED", color);
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
  return split_comm(call, c, color, key, newcomm);
}
#pragma weak MPI_Comm_split = PMPI_Comm_split

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split_type";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_HW_GUIDED &&
      split_type != MPI_COMM_TYPE_HW_UNGUIDED)
    return raise_error(comm, MPI_ERR_ARG, call, "split_type=%d is not a known split type", split_type);
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return raise_error(comm, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", static_cast<unsigned>(info));
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
  // Shared memory (and the hardware level we know: the node): colour = lowest job rank on the
  // node. HW_GUIDED without a resource type in info gives MPI_COMM_NULL (MPI 4.0).
  int color = MPI_UNDEFINED;
  if (split_type == MPI_COMM_TYPE_SHARED || split_type == MPI_COMM_TYPE_HW_UNGUIDED)
    color = instance().mcm->node_ranks().front();
  return split_comm(call, c, color, key, newcomm);
}
#pragma weak MPI_Comm_split_type = PMPI_Comm_split_type

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  const core::Ranks* g = find_group(group);
  if (!g) return raise_error(comm, MPI_ERR_GROUP, call, "group=0x%x is not a valid group", static_cast<unsigned>(group));
  for (int job : *g)
    if (core::group_rank_of(c->job_ranks, job) == core::kUndefinedRank)
      return raise_error(comm, MPI_ERR_GROUP, call, "group has a process (job rank %d) that is not in %s", job,
                         c->is_inter() ? "the local group of comm" : "comm");
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
  if (c->is_inter()) return create_inter(call, c, core::Ranks(*g), newcomm);
  const bool member = core::group_rank_of(*g, instance().rank()) != core::kUndefinedRank;
  core::Ranks ranks = *g;  // the group may be freed by a callback; keep a copy
  const int ctx = agree_context(local_wire(*c, kTagCommCreate), member);
  if (ctx < 0) return no_context(call, comm);
  *newcomm = member ? new_comm(ctx, std::move(ranks), c->errhandler)->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create = PMPI_Comm_create

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_group";
  require_running(call);
  core::Communicator* c;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_intra(call, c)) return e;
  const core::Ranks* g = find_group(group);
  if (!g) return raise_error(comm, MPI_ERR_GROUP, call, "group=0x%x is not a valid group", static_cast<unsigned>(group));
  if (int e = check_send_tag(call, comm, tag)) return e;
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
  for (int job : *g)
    if (core::group_rank_of(c->job_ranks, job) == core::kUndefinedRank)
      return raise_error(comm, MPI_ERR_GROUP, call, "group has a process (job rank %d) that is not in comm", job);
  const int me = core::group_rank_of(*g, instance().rank());
  if (me == core::kUndefinedRank)
    return raise_error(comm, MPI_ERR_GROUP, call, "the calling process is not in group");
  core::Ranks ranks = *g;
  // Only the group's members take part: they talk on the parent's collective context with an
  // internal tag derived from the user's (negative, far from the other internal tags).
  const int wire_tag = INT_MIN + (tag % 0x7ffffff0);
  const Wire w{ranks, me, c->coll_context(), wire_tag};
  const int ctx = agree_context(w, true);
  if (ctx < 0) return no_context(call, comm);
  *newcomm = new_comm(ctx, std::move(ranks), c->errhandler)->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_create_group = PMPI_Comm_create_group

int PMPI_Comm_free(MPI_Comm* comm) {
  const char* call = "MPI_Comm_free";
  require_running(call);
  if (!comm) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "comm is NULL");
  core::Communicator* c;
  if (int e = check_comm(call, *comm, c)) return e;
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return raise_error(*comm, MPI_ERR_COMM, call, "comm=%s is predefined and cannot be freed",
                       *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  const int handle = *comm;
  if (int e = destroy_comm(c)) return raise_error(MPI_COMM_WORLD, e, call, "an attribute delete callback returned %d", e);
  (void)handle;
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_free = PMPI_Comm_free

int PMPI_Comm_disconnect(MPI_Comm* comm) { return PMPI_Comm_free(comm); }
#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const char* call = "MPI_Comm_compare";
  require_running(call);
  core::Communicator *a, *b;
  if (int e = check_comm(call, comm1, a)) return e;
  if (int e = check_comm(call, comm2, b)) return e;
  if (!result) return raise_error(comm1, MPI_ERR_ARG, call, "result is NULL");
  if (a == b) {
    *result = MPI_IDENT;
    return MPI_SUCCESS;
  }
  if (a->is_inter() != b->is_inter()) {
    *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
  }
  int local = core::group_compare(a->job_ranks, b->job_ranks);
  if (a->is_inter()) local = std::max(local, core::group_compare(a->remote_job_ranks, b->remote_job_ranks));
  *result = local == 0 ? MPI_CONGRUENT : local == 2 ? MPI_SIMILAR : MPI_UNEQUAL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_compare = PMPI_Comm_compare

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  require_running("MPI_Comm_test_inter");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_test_inter", comm, c)) return e;
  if (!flag) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_test_inter", "flag is NULL");
  *flag = c->is_inter();
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_test_inter = PMPI_Comm_test_inter

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  require_running("MPI_Comm_remote_size");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_remote_size", comm, c)) return e;
  if (!c->is_inter())
    return raise_error(comm, MPI_ERR_COMM, "MPI_Comm_remote_size", "comm=0x%x is not an intercommunicator",
                       static_cast<unsigned>(comm));
  if (!size) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_remote_size", "size is NULL");
  *size = c->remote_size();
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size

int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  require_running("MPI_Comm_set_name");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_set_name", comm, c)) return e;
  if (!name) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_set_name", "name is NULL");
  c->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
#pragma weak MPI_Comm_set_name = PMPI_Comm_set_name

}  // extern "C"
