#include "binding.hpp"

#include <algorithm>

#include "base/cpus.hpp"

namespace railmpi::mpiexec {

// fork and netns start every rank on this machine. The netns launcher's hosts (railmpi-testhosts,
// tests/hosts) are network namespaces of this one kernel: they share its CPUs, so ranks are
// counted over the whole job, not per host. Binding each host's local rank 0 to the first CPU
// would stack the first rank of every host on one core while others idle; counted job-wide, rank i
// takes the i-th CPU whatever its host, and `auto` binds only when the job fits the machine. The
// ssh launcher starts ranks on other machines (or, with a test agent, on this one through a chain
// mpiexec does not see): mpiexec knows neither their CPUs nor the other jobs there, so it binds
// none of them and leaves RAILMPI_MACHINE_CPUS unset (each rank then counts its own mask).
BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus,
                         const std::vector<int>& held) {
  BindingPlan plan;
  plan.cpu_of_rank.assign(static_cast<std::size_t>(nprocs), -1);
  if (launcher == LauncherKind::ssh) {
    plan.summary = "ranks not bound: the ssh launcher starts them where mpiexec does not know the CPUs";
    return plan;
  }
  plan.machine_cpus = static_cast<unsigned>(cpus.size());
  std::string why;
  if (!base::binds_ranks(mode, nprocs, plan.machine_cpus, why)) {
    plan.summary = "ranks not bound: " + why;
    return plan;
  }
  std::vector<int> order, taken;  // the mask's CPUs no other job holds, then those it does
  for (int c : cpus) (std::binary_search(held.begin(), held.end(), c) ? taken : order).push_back(c);
  const std::string held_text = "other RailMPI jobs' ranks hold CPUs " + base::cpu_list_text(taken);
  if (mode == base::BindMode::automatic && std::size_t(nprocs) > order.size()) {
    plan.summary = "ranks not bound: RAILMPI_BIND=auto and " + std::to_string(nprocs) + " ranks, but " + held_text +
                   " of the " + std::to_string(cpus.size()) + " (" + base::cpu_list_text(cpus) +
                   "): the scheduler may spread them over idle CPUs";
    return plan;
  }
  const std::string others = taken.empty() ? std::string() : " (" + held_text + ": they come last)";
  order.insert(order.end(), taken.begin(), taken.end());
  for (int r = 0; r < nprocs; ++r) plan.cpu_of_rank[std::size_t(r)] = order[std::size_t(r) % order.size()];
  plan.summary = std::string("RAILMPI_BIND=") + base::bind_mode_name(mode) + ": " + std::to_string(nprocs) +
                 " ranks bound round robin over CPUs " + base::cpu_list_text(cpus) + others;
  return plan;
}

std::vector<int> bound_cpus(const BindingPlan& plan) {
  std::vector<int> cpus;
  for (int c : plan.cpu_of_rank) {
    if (c >= 0) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

}  // namespace railmpi::mpiexec
