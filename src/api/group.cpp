// Groups: MPI_Group_* and MPI_Comm_group / MPI_Comm_remote_group.
#include "api/checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_group(const char* call, MPI_Group group, const core::Ranks*& out, const char* what = "group") {
  out = find_group(group);
  if (!out)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_GROUP, call, "%s=0x%x is not a valid group", what,
                       static_cast<unsigned>(group));
  return MPI_SUCCESS;
}

int new_group(core::Ranks ranks, MPI_Group* out) {
  *out = ranks.empty() ? MPI_GROUP_EMPTY : instance().groups.add(std::move(ranks));
  return MPI_SUCCESS;
}

int rank_list_op(const char* call, MPI_Group group, int n, const int ranks[], MPI_Group* newgroup, bool incl) {
  require_running(call);
  const core::Ranks* g;
  if (int e = check_group(call, group, g)) return e;
  if (!newgroup) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newgroup is NULL");
  if (n < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "n=%d is negative", n);
  if (n > 0 && !ranks) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ranks is NULL with n=%d", n);
  const std::string bad = core::validate_rank_list(static_cast<int>(g->size()), ranks, n);
  if (!bad.empty()) return raise_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "%s", bad.c_str());
  return new_group(incl ? core::group_incl(*g, ranks, n) : core::group_excl(*g, ranks, n), newgroup);
}

int range_op(const char* call, MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup, bool incl) {
  require_running(call);
  const core::Ranks* g;
  if (int e = check_group(call, group, g)) return e;
  if (!newgroup) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newgroup is NULL");
  if (n < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "n=%d is negative", n);
  if (n > 0 && !ranges) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ranges is NULL with n=%d", n);
  const std::string bad = core::validate_ranges(static_cast<int>(g->size()), ranges, n);
  if (!bad.empty()) return raise_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "%s", bad.c_str());
  return new_group(incl ? core::group_range_incl(*g, ranges, n) : core::group_range_excl(*g, ranges, n), newgroup);
}

enum class SetOp { unite, intersect, subtract };

int set_op(const char* call, MPI_Group a, MPI_Group b, MPI_Group* out, SetOp op) {
  require_running(call);
  const core::Ranks *ga, *gb;
  if (int e = check_group(call, a, ga, "group1")) return e;
  if (int e = check_group(call, b, gb, "group2")) return e;
  if (!out) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "newgroup is NULL");
  switch (op) {
    case SetOp::unite: return new_group(core::group_union(*ga, *gb), out);
    case SetOp::intersect: return new_group(core::group_intersection(*ga, *gb), out);
    case SetOp::subtract: break;
  }
  return new_group(core::group_difference(*ga, *gb), out);
}

}  // namespace

extern "C" {

int PMPI_Group_size(MPI_Group group, int* size) {
  require_running("MPI_Group_size");
  const core::Ranks* g;
  if (int e = check_group("MPI_Group_size", group, g)) return e;
  if (!size) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_size", "size is NULL");
  *size = static_cast<int>(g->size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Group_size = PMPI_Group_size

int PMPI_Group_rank(MPI_Group group, int* rank) {
  require_running("MPI_Group_rank");
  const core::Ranks* g;
  if (int e = check_group("MPI_Group_rank", group, g)) return e;
  if (!rank) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_rank", "rank is NULL");
  *rank = core::group_rank_of(*g, instance().rank());
  return MPI_SUCCESS;
}
#pragma weak MPI_Group_rank = PMPI_Group_rank

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return rank_list_op("MPI_Group_incl", group, n, ranks, newgroup, true);
}
#pragma weak MPI_Group_incl = PMPI_Group_incl

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return rank_list_op("MPI_Group_excl", group, n, ranks, newgroup, false);
}
#pragma weak MPI_Group_excl = PMPI_Group_excl

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return range_op("MPI_Group_range_incl", group, n, ranges, newgroup, true);
}
#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return range_op("MPI_Group_range_excl", group, n, ranges, newgroup, false);
}
#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op("MPI_Group_union", group1, group2, newgroup, SetOp::unite);
}
#pragma weak MPI_Group_union = PMPI_Group_union

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op("MPI_Group_intersection", group1, group2, newgroup, SetOp::intersect);
}
#pragma weak MPI_Group_intersection = PMPI_Group_intersection

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return set_op("MPI_Group_difference", group1, group2, newgroup, SetOp::subtract);
}
#pragma weak MPI_Group_difference = PMPI_Group_difference

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  const char* call = "MPI_Group_translate_ranks";
  require_running(call);
  const core::Ranks *g1, *g2;
  if (int e = check_group(call, group1, g1, "group1")) return e;
  if (int e = check_group(call, group2, g2, "group2")) return e;
  if (n < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "n=%d is negative", n);
  if (n > 0 && (!ranks1 || !ranks2))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ranks1 or ranks2 is NULL with n=%d", n);
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    if (r == MPI_PROC_NULL) continue;
    if (r < 0 || r >= static_cast<int>(g1->size()))
      return raise_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "ranks1[%d]=%d is not a rank of group1 (size %zu)", i,
                         r, g1->size());
  }
  for (int i = 0; i < n; ++i) {
    const int r = ranks1[i];
    ranks2[i] = r == MPI_PROC_NULL ? MPI_PROC_NULL : core::group_rank_of(*g2, (*g1)[static_cast<std::size_t>(r)]);
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const char* call = "MPI_Group_compare";
  require_running(call);
  const core::Ranks *g1, *g2;
  if (int e = check_group(call, group1, g1, "group1")) return e;
  if (int e = check_group(call, group2, g2, "group2")) return e;
  if (!result) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "result is NULL");
  *result = core::group_compare(*g1, *g2);
  return MPI_SUCCESS;
}
#pragma weak MPI_Group_compare = PMPI_Group_compare

int PMPI_Group_free(MPI_Group* group) {
  const char* call = "MPI_Group_free";
  require_running(call);
  if (!group) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "group is NULL");
  const core::Ranks* g;
  if (int e = check_group(call, *group, g)) return e;
  // MPI_GROUP_EMPTY returned by a group call may be freed (it stays valid: builtin).
  instance().groups.release(*group);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Group_free = PMPI_Group_free

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  require_running("MPI_Comm_group");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_group", comm, c)) return e;
  if (!group) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_group", "group is NULL");
  return new_group(c->job_ranks, group);
}
#pragma weak MPI_Comm_group = PMPI_Comm_group

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  require_running("MPI_Comm_remote_group");
  core::Communicator* c;
  if (int e = check_comm("MPI_Comm_remote_group", comm, c)) return e;
  if (!c->is_inter())
    return raise_error(comm, MPI_ERR_COMM, "MPI_Comm_remote_group", "comm=0x%x is not an intercommunicator",
                       static_cast<unsigned>(comm));
  if (!group) return raise_error(comm, MPI_ERR_ARG, "MPI_Comm_remote_group", "group is NULL");
  return new_group(c->remote_job_ranks, group);
}
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group

}  // extern "C"
