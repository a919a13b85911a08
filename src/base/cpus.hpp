// The CPUs this process may run on, and how many CPUs the job's ranks on this machine share.
//
// A rank that mpiexec bound to one core sees a one-CPU affinity mask, so its own mask cannot say
// whether the machine is oversubscribed. mpiexec therefore passes the size of its own mask in
// RAILMPI_MACHINE_CPUS; `machine_cpus()` is the one answer every "more ranks than cores?"
// decision uses (progress engine, spin count, shm device).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace railmpi::base {

// The variable mpiexec sets for every rank it starts on its own machine.
inline constexpr const char* kMachineCpusVariable = "RAILMPI_MACHINE_CPUS";

// CPUs in this process's affinity mask, in increasing order (empty when it cannot be read).
std::vector<int> affinity_cpus();

// Sets the calling thread's affinity mask to `cpus`; false when the kernel refuses.
bool set_affinity_cpus(std::span<const int> cpus);
// The same for thread `tid` of this process.
bool set_thread_affinity_cpus(int tid, std::span<const int> cpus);

// "0-3,6": a CPU list as taskset and /proc/self/status write it ("none" when empty).
std::string cpu_list_text(const std::vector<int>& cpus);
// The CPUs of such a list, in increasing order without repeats; false (and `out` untouched) when
// `text` is not one, or names a CPU outside 0..CPU_SETSIZE-1.
bool parse_cpu_list(std::string_view text, std::vector<int>& out);

// Positive count in RAILMPI_MACHINE_CPUS; false when unset or not a positive count.
bool machine_cpus_from_environment(unsigned& out);

// CPUs the ranks on this machine share as this process alone can tell: RAILMPI_MACHINE_CPUS when
// it holds a positive count, else the size of this process's affinity mask (at least 1). Once the
// ranks exchanged their masks, mcm::MultiMethod::machine_cpus() knows better (a launcher other
// than mpiexec may have bound each rank to a CPU of its own).
unsigned machine_cpus();

// More ranks on this machine than CPUs they share.
inline bool oversubscribed(int machine_ranks, unsigned cpus) { return machine_ranks > 0 && unsigned(machine_ranks) > cpus; }

}  // namespace railmpi::base
