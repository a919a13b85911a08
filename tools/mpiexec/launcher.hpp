// How a rank is started on its host: the launcher agents (fork, netns, ssh) as command lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railmpi::mpiexec {

enum class LauncherKind {
  fork,   // a child of mpiexec on this machine
  netns,  // `ip netns exec HOST program...`: hosts are network namespaces of this machine
  ssh,    // `AGENT HOST 'cd DIR && exec env VAR=... program...'`, like Hydra's ssh launcher
};

// "fork" / "netns" / "ssh"; false for anything else.
bool parse_launcher(std::string_view text, LauncherKind& out);
const char* launcher_name(LauncherKind kind);

// True when the rank inherits mpiexec's PMI socket (PMI_FD); with ssh it connects to PMI_PORT.
inline bool inherits_pmi_fd(LauncherKind kind) { return kind != LauncherKind::ssh; }

struct LaunchCommand {
  std::string path;               // what mpiexec executes
  std::vector<std::string> argv;  // its arguments, argv[0] included
};

// The command that runs `program` (an absolute path) with `command` (argv[0] and arguments) on
// `host`. `agent` is the absolute path of `ip` (netns) or of the ssh-like agent (ssh). For ssh,
// `rank_env` ("NAME=VALUE" entries) travels inside the remote command line and `workdir` is
// entered first; the other launchers pass the environment to exec.
LaunchCommand launch_command(LauncherKind kind, const std::string& agent, const std::string& host,
                             const std::string& program, const std::vector<std::string>& command,
                             const std::vector<std::string>& rank_env, const std::string& workdir);

// `text` as one word for a POSIX shell.
std::string shell_quote(std::string_view text);

}  // namespace railmpi::mpiexec
