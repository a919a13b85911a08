// Which CPU each rank mpiexec starts is bound to (RAILMPI_BIND).
#pragma once

#include <string>
#include <vector>

#include "base/binding.hpp"
#include "launcher.hpp"

namespace railmpi::mpiexec {

struct BindingPlan {
  std::vector<int> cpu_of_rank;  // per rank: the CPU it is bound to, -1 when not bound
  // Per rank: the CPU it binds itself to at MPI_Init (more ranks than CPUs, `auto`: passed as
  // RAILMPI_SELF_BIND_CPU), -1 when none.
  std::vector<int> self_bind_cpu_of_rank;
  unsigned machine_cpus = 0;     // CPUs of mpiexec's mask, passed as RAILMPI_MACHINE_CPUS; 0: ranks not on this machine
  std::string summary;           // one line for -v
};

// Where `nprocs` ranks started by `launcher` run, given mpiexec's own affinity mask `cpus` and the
// CPUs other jobs run ranks on (`held`, one entry per rank, any order: base::CpuClaims). The CPUs
// of the mask are taken round robin (ranks that fit) or in blocks with round robin's counts (ranks
// that bind themselves), those with the fewest of the other jobs' ranks first (in mask order
// among equals). When the ranks fit the mask, `auto` binds them only if they fit the
// CPUs no other job holds (else they stay unbound: the scheduler may spread them over CPUs that
// are idle) and `core` binds them over all; with more ranks than CPUs, `auto` leaves each rank to
// bind itself at MPI_Init to the CPU planned for it.
BindingPlan plan_binding(base::BindMode mode, LauncherKind launcher, int nprocs, const std::vector<int>& cpus,
                         std::vector<int> held = {});

// The CPU of every rank a plan binds or lets bind itself, one entry per rank (what mpiexec records).
std::vector<int> claimed_cpus(const BindingPlan& plan);

}  // namespace railmpi::mpiexec
