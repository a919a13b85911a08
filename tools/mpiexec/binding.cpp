#include "binding.hpp"

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
BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus) {
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
  for (int r = 0; r < nprocs; ++r) plan.cpu_of_rank[std::size_t(r)] = cpus[std::size_t(r) % cpus.size()];
  plan.summary = std::string("RAILMPI_BIND=") + base::bind_mode_name(mode) + ": " + std::to_string(nprocs) +
                 " ranks bound round robin over CPUs " + base::cpu_list_text(cpus);
  return plan;
}

}  // namespace railmpi::mpiexec
