// RAILMPI_BIND: whether mpiexec binds the ranks it starts on its machine to cores, and the words
// that tell a user what came of it.
//
// mpiexec binds rank i of those it starts on this machine to the i-th CPU of its own affinity
// mask, round robin. `auto` does so only when the ranks fit the CPUs: with more ranks than CPUs
// the scheduler must stay free to move ranks (the oversubscribed waiting rules rely on it).
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

// One line on this process's binding, for a rank's verbose output: "bound to CPU 3" or "not bound
// (may run on CPUs 0-7): <why>", then the oversubscription decision in force. `machine_ranks`:
// ranks on this machine; `machine_cpus`: the CPUs they share (base::machine_cpus()).
std::string binding_report(BindMode mode, int machine_ranks, unsigned machine_cpus, bool oversubscribed);

}  // namespace railmpi::base
