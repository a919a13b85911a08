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

// Where `nprocs` ranks started by `launcher` run, given mpiexec's own affinity mask `cpus` and the
// CPUs other jobs' ranks hold (`held`, base::CpuClaims): the ranks take the CPUs of the mask no
// other job holds, round robin; `auto` leaves them unbound when they do not fit those (they fit
// the mask: the scheduler may then spread them over CPUs that are idle), `core` goes on over the
// held ones.
BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus,
                         const std::vector<int>& held = {});

// The CPUs a plan binds ranks to, in increasing order without repeats (what mpiexec records).
std::vector<int> bound_cpus(const BindingPlan& plan);

}  // namespace railmpi::mpiexec
