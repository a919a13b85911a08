// RAILMPI_BIND: whether mpiexec binds the ranks it starts on its machine to cores, and the words
// that tell a user what came of it.
//
// mpiexec binds rank i of those it starts on this machine to the i-th CPU of its own affinity
// mask, round robin. `auto` does so only when the ranks fit the CPUs: with more ranks than CPUs
// the scheduler must be free to move ranks away from busy programs, so each rank binds itself
// at MPI_Init and lets go when other programs crowd its core (self_binding.hpp).
#pragma once

#include <string>
#include <string_view>

namespace railmpi::base {

enum class BindMode {
  automatic,  // "auto": bind when the ranks on this machine are at most its CPUs
  core,       // "core": always bind, round robin
  none,       // "none": never bind
};

// "auto", "core", "none"; false for anything else.
bool parse_bind_mode(std::string_view text, BindMode& out);
const char* bind_mode_name(BindMode mode);

// Whether `ranks` ranks started on one machine whose mask has `cpus` CPUs are bound; when not,
// `why` says why.
bool binds_ranks(BindMode mode, int ranks, unsigned cpus, std::string& why);

// Whether a rank binds itself (self_binding.hpp): `auto` and more ranks on this machine than CPUs.
bool binds_itself(BindMode mode, int machine_ranks, unsigned machine_cpus);

// The position (0 .. cpus-1) of the CPU that rank `index` of `ranks` binds itself to, in blocks:
// consecutive ranks share a CPU, the first ranks % cpus CPUs taking one rank more (the counts of
// round robin). Ring neighbours then mostly share a CPU, and a wait for a rank on its own CPU
// sleeps at once (progress::Engine): 8 ranks on 2 cores, the ring of bench/oversub_loop, see
// bench/results/README.md. When every CPU gets the same even number of ranks, 4 or more, the
// blocks are pairs dealt round robin (8 ranks on 2 CPUs: 0,1,4,5 on the first, 2,3,6,7 on the
// second): half the ring's hops then cross to the other CPU, where the rank waiting for the token
// shares the CPU with one other poller instead of sleeping behind a futex wake, which costs more
// on a virtual machine than a yield (bench/limits/token_ring's same_cpu_futex and pairs_futex
// ways; 8 ranks on 2 cores, the ring of bench/oversub_loop, see bench/results/README.md).
int block_position(int index, int ranks, int cpus);
// Whether block_position() deals `ranks` over `cpus` in pairs.
bool in_pairs(int ranks, int cpus);

// One line on this process's binding, for a rank's verbose output: "bound to CPU 3", "bound to
// CPU 3 by itself (...)" when `self_bound`, or "not bound (may run on CPUs 0-7): <why>", then the
// oversubscription decision in force. `machine_ranks`: ranks on this machine; `machine_cpus`: the
// CPUs they share (base::machine_cpus()).
std::string binding_report(BindMode mode, int machine_ranks, unsigned machine_cpus, bool oversubscribed,
                           bool self_bound);

}  // namespace railmpi::base
