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
namespace {

// The CPUs of `cpus` ordered by how many of `held`'s ranks (sorted) each runs, fewest first, in
// mask order among equals; `free` gets how many run none.
std::vector<int> by_other_jobs_ranks(const std::vector<int>& cpus, const std::vector<int>& held,
                                     std::size_t& free) {
  std::vector<std::pair<std::ptrdiff_t, int>> load;  // (other jobs' ranks, CPU)
  for (int c : cpus) {
    const auto [first, last] = std::equal_range(held.begin(), held.end(), c);
    load.emplace_back(last - first, c);
  }
  std::stable_sort(load.begin(), load.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> order;
  free = 0;
  for (const auto& [ranks, c] : load) {
    order.push_back(c);
    free += ranks == 0;
  }
  return order;
}

}  // namespace

BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus,
                         std::vector<int> held) {
  BindingPlan plan;
  plan.cpu_of_rank.assign(static_cast<std::size_t>(nprocs), -1);
  plan.self_bind_cpu_of_rank.assign(static_cast<std::size_t>(nprocs), -1);
  if (launcher == LauncherKind::ssh) {
    plan.summary = "ranks not bound: the ssh launcher starts them where mpiexec does not know the CPUs";
    return plan;
  }
  plan.machine_cpus = static_cast<unsigned>(cpus.size());
  std::sort(held.begin(), held.end());
  std::size_t free = 0;
  const std::vector<int> order = by_other_jobs_ranks(cpus, held, free);
  std::vector<int> taken(order.begin() + static_cast<std::ptrdiff_t>(free), order.end());
  std::sort(taken.begin(), taken.end());
  const std::string held_text = "other RailMPI jobs' ranks hold CPUs " + base::cpu_list_text(taken);
  std::string why;
  if (!base::binds_ranks(mode, nprocs, plan.machine_cpus, why)) {
    plan.summary = "ranks not bound: " + why;
    if (order.size() < 2 || !base::binds_itself(mode, nprocs, plan.machine_cpus)) return plan;
    // In blocks: ring neighbours share a CPU, and a wait for a rank on its own CPU sleeps at once
    // (base::block_position()); the CPUs first in `order` take the extra ranks, as round robin.
    for (int r = 0; r < nprocs; ++r) {
      plan.self_bind_cpu_of_rank[std::size_t(r)] =
          order[std::size_t(base::block_position(r, nprocs, static_cast<int>(order.size())))];
    }
    std::string in_order;
    for (int c : order) in_order += (in_order.empty() ? "" : ",") + std::to_string(c);
    plan.summary += std::string("; each binds itself at MPI_Init, ") +
                    (base::in_pairs(nprocs, static_cast<int>(order.size())) ? "in pairs" : "in blocks") + " over CPUs " +
                    (taken.empty() ? base::cpu_list_text(cpus)
                                   : in_order + " (" + held_text + ": those with the fewest of their ranks first)");
    return plan;
  }
  if (mode == base::BindMode::automatic && std::size_t(nprocs) > free) {
    plan.summary = "ranks not bound: RAILMPI_BIND=auto and " + std::to_string(nprocs) + " ranks, but " + held_text +
                   " of the " + std::to_string(cpus.size()) + " (" + base::cpu_list_text(cpus) +
                   "): the scheduler may spread them over idle CPUs";
    return plan;
  }
  const std::string others = taken.empty() ? std::string() : " (" + held_text + ": they come last)";
  for (int r = 0; r < nprocs; ++r) plan.cpu_of_rank[std::size_t(r)] = order[std::size_t(r) % order.size()];
  plan.summary = std::string("RAILMPI_BIND=") + base::bind_mode_name(mode) + ": " + std::to_string(nprocs) +
                 " ranks bound round robin over CPUs " + base::cpu_list_text(cpus) + others;
  return plan;
}

std::vector<int> claimed_cpus(const BindingPlan& plan) {
  std::vector<int> cpus;
  for (std::size_t r = 0; r < plan.cpu_of_rank.size(); ++r) {
    const int c = plan.cpu_of_rank[r] >= 0 ? plan.cpu_of_rank[r] : plan.self_bind_cpu_of_rank[r];
    if (c >= 0) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

}  // namespace railmpi::mpiexec
