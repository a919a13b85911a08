// Command line of mpiexec: `mpiexec [options] program [args...]`.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/binding.hpp"
#include "glibc_rseq.hpp"
#include "hosts.hpp"
#include "launcher.hpp"

namespace railmpi::mpiexec {

struct Options {
  int nprocs = 1;                                           // -n / -np
  std::vector<HostSpec> hosts;                              // -hosts / -f; empty: this machine
  int ppn = 0;                                              // -ppn; 0 = slots or block-even
  LauncherKind launcher = LauncherKind::fork;               // --launcher
  std::string launcher_exec = "ssh";                        // --launcher-exec (ssh agent)
  std::string pmi_address;                                  // --pmi-address / RAILMPI_PMI_ADDRESS
  std::vector<std::pair<std::string, std::string>> env;   // -genv / -env, in order
  double timeout_seconds = 0;                               // --timeout / MPIEXEC_TIMEOUT; 0 = none
  bool prepend_rank = false;                                // -l / -prepend-rank
  bool verbose = false;                                     // -v / --verbose
  base::BindMode bind = base::BindMode::automatic;          // RAILMPI_BIND (-genv, else environment)
  std::string cpu_claims;                                   // RAILMPI_CPU_CLAIMS (mpiexec's environment)
  GlibcRseq glibc_rseq = GlibcRseq::automatic;              // RAILMPI_GLIBC_RSEQ (-genv, else environment)
  std::vector<std::string> command;                         // program and its arguments
};

// Outcome of parsing: either options to run, or an exit code (after --help, or an error,
// which has been printed to stderr already).
struct ParseResult {
  std::optional<Options> options;
  int exit_code = 0;
};

ParseResult parse_options(int argc, char** argv);
void print_usage(bool to_stderr);

}  // namespace railmpi::mpiexec
