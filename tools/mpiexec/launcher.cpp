#include "launcher.hpp"

namespace railmpi::mpiexec {
namespace {

// Variables that describe mpiexec's own machine or session, not the job: a remote shell sets
// its own.
constexpr std::string_view kLocalOnlyVariables[] = {
    "HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "SSH_CLIENT", "SSH_CONNECTION", "SSH_TTY",
    "SSH_AUTH_SOCK", "DISPLAY", "XAUTHORITY",
};

bool local_only(std::string_view entry) {
  std::string_view name = entry.substr(0, entry.find('='));
  for (std::string_view v : kLocalOnlyVariables)
    if (v == name) return true;
  return false;
}

}  // namespace

bool parse_launcher(std::string_view text, LauncherKind& out) {
  for (LauncherKind k : {LauncherKind::fork, LauncherKind::netns, LauncherKind::ssh}) {
    if (text == launcher_name(k)) {
      out = k;
      return true;
    }
  }
  return false;
}

const char* launcher_name(LauncherKind kind) {
  switch (kind) {
    case LauncherKind::fork: return "fork";
    case LauncherKind::netns: return "netns";
    case LauncherKind::ssh: return "ssh";
  }
  return "?";
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

LaunchCommand launch_command(LauncherKind kind, const std::string& agent, const std::string& host,
                             const std::string& program, const std::vector<std::string>& command,
                             const std::vector<std::string>& rank_env, const std::string& workdir) {
  switch (kind) {
    case LauncherKind::fork:
      return {program, command};
    case LauncherKind::netns: {
      LaunchCommand c{agent, {"ip", "netns", "exec", host, program}};
      c.argv.insert(c.argv.end(), command.begin() + 1, command.end());
      return c;
    }
    case LauncherKind::ssh: {
      // One shell command line, as ssh hands it to the remote shell; `exec` keeps the rank the
      // process the agent's session waits for, so ending the agent ends the rank.
      std::string line = "cd " + shell_quote(workdir) + " && exec env";
      for (const std::string& e : rank_env)
        if (!local_only(e)) line += " " + shell_quote(e);
      line += " " + shell_quote(program);
      for (std::size_t i = 1; i < command.size(); ++i) line += " " + shell_quote(command[i]);
      return {agent, {agent, host, line}};
    }
  }
  return {program, command};
}

}  // namespace railmpi::mpiexec
