#include "options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "base/settings.hpp"

namespace railmpi::mpiexec {
namespace {

constexpr int kUsageError = 2;
constexpr int kMaxProcs = 4096;

bool parse_count(const char* text, int& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > kMaxProcs) return false;
  out = static_cast<int>(v);
  return true;
}

bool parse_seconds(const char* text, double& out) {
  if (text == nullptr || *text == '\0') return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0) return false;
  out = v;
  return true;
}

bool valid_env_name(std::string_view name) {
  if (name.empty() || name.find('=') != std::string_view::npos) return false;
  return true;
}

ParseResult usage_error(const char* fmt, const char* arg) {
  std::fputs("mpiexec: ", stderr);
  std::fprintf(stderr, fmt, arg);
  std::fputs("\nmpiexec: try 'mpiexec --help'\n", stderr);
  return {std::nullopt, kUsageError};
}

}  // namespace

void print_usage(bool to_stderr) {
  std::FILE* out = to_stderr ? stderr : stdout;
  std::fputs(
      "Usage: mpiexec [options] program [args...]\n"
      "Starts N copies of program on this node or on several hosts and serves PMI-1 to them.\n"
      "\n"
      "Options:\n"
      "  -n N, -np N             number of ranks (default 1)\n"
      "  -genv NAME VALUE        set NAME=VALUE in the environment of every rank\n"
      "  -env NAME VALUE         same as -genv (one executable per job)\n"
      "  --timeout S, -timeout S end the job after S seconds (exit code 124);\n"
      "                          also from the environment variable MPIEXEC_TIMEOUT\n"
      "  -l, -prepend-rank       prefix every output line with \"[rank] \"\n"
      "  -hosts a,b:2,...        hosts to start ranks on (host:n gives n slots)\n"
      "  -f FILE, -hostfile FILE hosts from a file: lines \"host\", \"host:n\" or \"host slots=n\"\n"
      "  -ppn N                  ranks per host (default: the slots, else as even as possible);\n"
      "                          hosts are filled in order and cycled\n"
      "  --launcher fork|netns|ssh\n"
      "                          fork: on this machine (default); netns: `ip netns exec HOST`\n"
      "                          (hosts are network namespaces); ssh: `AGENT HOST command`\n"
      "  --launcher-exec AGENT   the ssh-like agent for --launcher ssh (default ssh)\n"
      "  --pmi-address IP        address remote ranks reach the PMI server on (ssh launcher;\n"
      "                          default RAILMPI_PMI_ADDRESS, else the first non-loopback one)\n"
      "  -v, --verbose           print what mpiexec does (and which CPU each rank is bound to)\n"
      "  -h, --help              this text\n"
      "\n"
      "Binding (RAILMPI_BIND, from -genv or the environment): auto (default) binds the ranks\n"
      "started on this machine (fork, netns) to one CPU each, round robin over mpiexec's own\n"
      "affinity mask, when they are at most its CPUs (with more, each rank binds itself at\n"
      "MPI_Init, consecutive ranks on one CPU); core always; none never. CPUs that\n"
      "other running RailMPI jobs bound ranks to come last (RAILMPI_CPU_CLAIMS: their records'\n"
      "folder, default /dev/shm; none: ignore other jobs); auto binds none when too few are free.\n"
      "\n"
      "Exit code: 0 when every rank exited 0; the code given to MPI_Abort; 128+signal when a\n"
      "rank was killed by a signal or mpiexec received one; 124 on timeout; otherwise the\n"
      "first non-zero exit code of a rank (1 when a rank skipped MPI_Init/MPI_Finalize).\n",
      out);
}

ParseResult parse_options(int argc, char** argv) {
  Options opts;
  const base::Settings settings = base::Settings::from_environment();
  opts.pmi_address = settings.pmi_address;
  opts.cpu_claims = settings.cpu_claims;
  bool timeout_given = false;
  bool nprocs_given = false;
  std::string error;
  int i = 1;
  auto need = [&](int count) { return i + count < argc; };
  for (; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-') break;  // the program
    if (arg == "-h" || arg == "--help" || arg == "-help") {
      print_usage(false);
      return {std::nullopt, 0};
    }
    if (arg == "-n" || arg == "-np" || arg == "--n" || arg == "--np") {
      if (!need(1)) return usage_error("option '%s' needs a number", argv[i]);
      if (!parse_count(argv[i + 1], opts.nprocs))
        return usage_error("invalid number of ranks '%s'", argv[i + 1]);
      nprocs_given = true;
      ++i;
    } else if (arg == "-genv" || arg == "-env" || arg == "--genv" || arg == "--env") {
      if (!need(2)) return usage_error("option '%s' needs NAME and VALUE", argv[i]);
      if (!valid_env_name(argv[i + 1]))
        return usage_error("invalid environment variable name '%s'", argv[i + 1]);
      opts.env.emplace_back(argv[i + 1], argv[i + 2]);
      i += 2;
    } else if (arg == "--timeout" || arg == "-timeout") {
      if (!need(1)) return usage_error("option '%s' needs seconds", argv[i]);
      if (!parse_seconds(argv[i + 1], opts.timeout_seconds))
        return usage_error("invalid timeout '%s'", argv[i + 1]);
      timeout_given = true;
      ++i;
    } else if (arg.starts_with("--timeout=")) {
      if (!parse_seconds(argv[i] + std::strlen("--timeout="), opts.timeout_seconds))
        return usage_error("invalid timeout in '%s'", argv[i]);
      timeout_given = true;
    } else if (arg == "-l" || arg == "-prepend-rank" || arg == "--prepend-rank") {
      opts.prepend_rank = true;
    } else if (arg == "-hosts" || arg == "--hosts" || arg == "-host" || arg == "--host") {
      if (!need(1)) return usage_error("option '%s' needs a host list", argv[i]);
      if (!parse_host_list(argv[i + 1], opts.hosts, error)) return usage_error("%s", error.c_str());
      ++i;
    } else if (arg == "-f" || arg == "-hostfile" || arg == "--hostfile" || arg == "-machinefile") {
      if (!need(1)) return usage_error("option '%s' needs a file", argv[i]);
      if (!read_hostfile(argv[i + 1], opts.hosts, error)) return usage_error("%s", error.c_str());
      ++i;
    } else if (arg == "-ppn" || arg == "--ppn") {
      if (!need(1)) return usage_error("option '%s' needs a number", argv[i]);
      if (!parse_count(argv[i + 1], opts.ppn))
        return usage_error("invalid number of ranks per host '%s'", argv[i + 1]);
      ++i;
    } else if (arg == "--launcher" || arg == "-launcher") {
      if (!need(1)) return usage_error("option '%s' needs fork, netns or ssh", argv[i]);
      if (!parse_launcher(argv[i + 1], opts.launcher))
        return usage_error("unknown launcher '%s' (fork, netns or ssh)", argv[i + 1]);
      ++i;
    } else if (arg == "--launcher-exec" || arg == "-launcher-exec") {
      if (!need(1) || *argv[i + 1] == '\0') return usage_error("option '%s' needs a program", argv[i]);
      opts.launcher_exec = argv[i + 1];
      ++i;
    } else if (arg == "--pmi-address" || arg == "-pmi-address") {
      if (!need(1)) return usage_error("option '%s' needs an IPv4 address", argv[i]);
      opts.pmi_address = argv[i + 1];
      ++i;
    } else if (arg == "-v" || arg == "--verbose" || arg == "-verbose") {
      opts.verbose = true;
    } else {
      return usage_error("unknown option '%s'", argv[i]);
    }
  }
  if (i >= argc) return usage_error("%s", "no program given");
  for (; i < argc; ++i) opts.command.emplace_back(argv[i]);

  if (opts.launcher != LauncherKind::fork && opts.hosts.empty())
    return usage_error("--launcher %s needs hosts (-hosts or -f)", launcher_name(opts.launcher));
  if (!nprocs_given && !opts.hosts.empty()) opts.nprocs = default_rank_count(opts.hosts, opts.ppn);
  if (opts.nprocs > kMaxProcs) return usage_error("%s", "more than 4096 ranks");

  // RAILMPI_BIND as the ranks will see it: the last -genv of it, else mpiexec's environment.
  const char* bind = std::getenv("RAILMPI_BIND");
  for (const auto& [name, value] : opts.env)
    if (name == "RAILMPI_BIND") bind = value.c_str();
  if (bind != nullptr && !base::parse_bind_mode(bind, opts.bind))
    return usage_error("RAILMPI_BIND=%s is not a binding mode (auto, core or none)", bind);
  const char* rseq = std::getenv("RAILMPI_GLIBC_RSEQ");
  for (const auto& [name, value] : opts.env)
    if (name == "RAILMPI_GLIBC_RSEQ") rseq = value.c_str();
  if (rseq != nullptr && !parse_glibc_rseq(rseq, opts.glibc_rseq))
    return usage_error("RAILMPI_GLIBC_RSEQ=%s is not empty, 0 or 1", rseq);

  if (!timeout_given) {
    const char* env_timeout = std::getenv("MPIEXEC_TIMEOUT");
    if (env_timeout != nullptr && *env_timeout != '\0' &&
        !parse_seconds(env_timeout, opts.timeout_seconds))
      return usage_error("invalid MPIEXEC_TIMEOUT '%s'", env_timeout);
  }
  return {std::move(opts), 0};
}

}  // namespace railmpi::mpiexec
