// Starting one rank (or its launcher agent): clone(CLONE_VM | CLONE_VFORK) and exec, with a PMI socketpair, stdout/stderr pipes, stdin from
// /dev/null, its own process group, and the job environment.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "unique_fd.hpp"

namespace railmpi::mpiexec {

// What a started rank leaves in mpiexec's hands: all ends are close-on-exec and non-blocking.
struct SpawnedRank {
  pid_t pid = -1;
  UniqueFd pmi;  // mpiexec's end of the PMI socketpair
  UniqueFd out;  // read end of the rank's stdout
  UniqueFd err;  // read end of the rank's stderr
};

// Environment shared by all ranks: mpiexec's own minus variables mpiexec sets per rank, with
// `overrides` (from -genv/-env) applied. Entries are "NAME=VALUE".
std::vector<std::string> base_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides);

// Full path of `program` as execvp would find it, or "" when not found / not executable.
std::string find_executable(const std::string& program, std::string& why);

// Starts one rank. `env` is the complete environment except PMI_FD, which is added here
// (its number is only known in the child) when `with_pmi_fd`; without it the rank connects to
// the PMI server itself and `pmi` stays empty. `cpu` >= 0: the child binds itself to that CPU
// before exec (a launcher agent passes the binding on to the rank). Returns pid -1 and fills
// `error` on failure.
SpawnedRank spawn_rank(const std::string& path, const std::vector<std::string>& argv,
                       const std::vector<std::string>& env, bool with_pmi_fd, int cpu, std::string& error);

}  // namespace railmpi::mpiexec
