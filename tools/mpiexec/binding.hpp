// Which CPU each rank mpiexec starts is bound to (RAILMPI_BIND).
#pragma once

#include <string>
#include <vector>

#include "base/binding.hpp"
#include "launcher.hpp"

namespace railmpi::mpiexec {

struct BindingPlan {
  std::vector<int> cpu_of_rank;  // per rank: the CPU it is bound to, -1 when not bound
  unsigned machine_cpus = 0;     // CPUs of mpiexec's mask, passed as RAILMPI_MACHINE_CPUS; 0: ranks not on this machine
  std::string summary;           // one line for -v
};

// Where `nprocs` ranks started by `launcher` run, given mpiexec's own affinity mask `cpus`.
BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus);

}  // namespace railmpi::mpiexec
