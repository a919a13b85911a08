#include "spawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern char** environ;

namespace railmpi::mpiexec {
namespace {

// Variables mpiexec sets itself; inherited values (e.g. mpiexec run under another launcher)
// must not leak into the ranks.
constexpr std::string_view kOwnedVariables[] = {
    "PMI_FD",        "PMI_PORT",         "PMI_ID",
    "PMI_RANK",      "PMI_SIZE",         "PMI_SPAWNED",
    "PMI_DEBUG",     "RAILMPI_JOBID",    "RAILMPI_LOCAL_RANK",
    "RAILMPI_LOCAL_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
    "RAILMPI_NODE",  "RAILMPI_MACHINE_CPUS", "RAILMPI_SELF_BIND_CPU",
};

std::string_view name_of(std::string_view entry) {
  return entry.substr(0, entry.find('='));
}

bool set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

// What the child needs, all allocated before the clone: the child shares mpiexec's memory until
// it execs and must not allocate.
struct ChildPlan {
  const char* path;
  char* const* argv;
  char* const* envp;
  int pmi_fd, out_fd, err_fd, null_fd;
  char* pmi_fd_entry;  // "PMI_FD=" followed by room for the number
  int cpu;             // >= 0: bind to this CPU before exec
};

// Writes v's decimal digits at out (no allocation, no locale: fit for the child); returns the end.
__attribute__((no_sanitize("address", "undefined"))) char* put_decimal(char* out, int v) {
  char digits[12];
  int n = 0;
  for (; n == 0 || v > 0; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  while (n > 0) *out++ = digits[--n];
  return out;
}

// Child side: runs on its own stack in mpiexec's address space (CLONE_VM | CLONE_VFORK, so
// mpiexec waits until the exec): system calls only, nothing that allocates or takes a lock. Not
// instrumented: AddressSanitizer does not know the borrowed stack (it warns at the exec).
[[noreturn]] __attribute__((no_sanitize("address", "undefined"))) void exec_child(const ChildPlan& plan) {
  ::setpgid(0, 0);
  // Dispositions back to the defaults before unblocking, so no signal meets mpiexec's settings.
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2})
    ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  // Move the PMI end above the standard descriptors before dup2() can clobber it.
  int pmi = plan.pmi_fd;
  if (pmi >= 0 && pmi <= 2) pmi = ::fcntl(plan.pmi_fd, F_DUPFD, 3);
  if (::dup2(plan.null_fd, 0) < 0 || ::dup2(plan.out_fd, 1) < 0 || ::dup2(plan.err_fd, 2) < 0 ||
      (plan.pmi_fd >= 0 && pmi < 0))
    ::_exit(127);
  if (plan.pmi_fd >= 0) {
    ::fcntl(pmi, F_SETFD, 0);  // inherited across exec
    // Fill the number into the preallocated "PMI_FD=......" entry.
    *put_decimal(plan.pmi_fd_entry + 7, pmi) = '\0';  // after "PMI_FD="
  }

  if (plan.cpu >= 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(plan.cpu, &one);
    if (::sched_setaffinity(0, sizeof one, &one) != 0) {
      const char msg[] = "mpiexec: sched_setaffinity failed: a rank runs unbound\n";
      ssize_t ignored = ::write(2, msg, sizeof msg - 1);
      (void)ignored;
    }
  }
  ::execve(plan.path, plan.argv, plan.envp);
  // "mpiexec: cannot exec PATH (errno N)", in pieces: nothing here may format or allocate.
  char tail[24] = " (errno ";
  char* end = put_decimal(tail + 8, errno);
  *end++ = ')';
  *end++ = '\n';
  const char head[] = "mpiexec: cannot exec ";
  ssize_t ignored = ::write(2, head, sizeof head - 1);
  ignored = ::write(2, plan.path, std::strlen(plan.path));
  ignored = ::write(2, tail, static_cast<std::size_t>(end - tail));
  (void)ignored;
  ::_exit(127);
}

__attribute__((no_sanitize("address", "undefined"))) int child_entry(void* plan) {
  exec_child(*static_cast<const ChildPlan*>(plan));
}

// The child's stack while it shares mpiexec's memory (it needs a few hundred bytes).
constexpr std::size_t kChildStackBytes = 64 * 1024;

}  // namespace

std::vector<std::string> base_environment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = name_of(entry);
    bool owned = false;
    for (std::string_view v : kOwnedVariables) owned = owned || (v == name);
    for (const auto& o : overrides) owned = owned || (o.first == name);
    if (!owned) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) {
    // A later -genv of the same name wins.
    std::erase_if(env, [&](const std::string& e) { return name_of(e) == name; });
    env.push_back(name + "=" + value);
  }
  return env;
}

std::string find_executable(const std::string& program, std::string& why) {
  if (program.empty()) {
    why = "empty program name";
    return {};
  }
  if (program.find('/') != std::string::npos) {
    if (is_executable_file(program)) return program;
    why = ::access(program.c_str(), F_OK) == 0 ? "not an executable file" : std::strerror(ENOENT);
    return {};
  }
  const char* path_env = std::getenv("PATH");
  std::string_view path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    std::size_t colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    std::string candidate = dir.empty() ? program : std::string(dir) + "/" + program;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  why = "not found in PATH";
  return {};
}

SpawnedRank spawn_rank(const std::string& path, const std::vector<std::string>& argv,
                       const std::vector<std::string>& env, bool with_pmi_fd, int cpu, std::string& error) {
  SpawnedRank rank;
  UniqueFd pmi_parent, pmi_child;
  if (with_pmi_fd) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      error = std::string("socketpair: ") + std::strerror(errno);
      return rank;
    }
    pmi_parent.reset(sv[0]);
    pmi_child.reset(sv[1]);
  }
  int po[2], pe[2];
  if (::pipe2(po, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return rank;
  }
  UniqueFd out_read(po[0]), out_write(po[1]);
  if (::pipe2(pe, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return rank;
  }
  UniqueFd err_read(pe[0]), err_write(pe[1]);
  UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_fd) {
    error = std::string("/dev/null: ") + std::strerror(errno);
    return rank;
  }
  if ((pmi_parent && !set_nonblocking(pmi_parent.get())) || !set_nonblocking(out_read.get()) ||
      !set_nonblocking(err_read.get())) {
    error = std::string("fcntl: ") + std::strerror(errno);
    return rank;
  }

  // Everything the child needs is allocated before fork().
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::string pmi_fd_entry = "PMI_FD=" + std::string(12, '\0');
  std::vector<char*> cenv;
  for (const auto& e : env) cenv.push_back(const_cast<char*>(e.c_str()));
  if (with_pmi_fd) cenv.push_back(pmi_fd_entry.data());
  cenv.push_back(nullptr);

  const ChildPlan plan{.path = path.c_str(), .argv = cargv.data(), .envp = cenv.data(),
                       .pmi_fd = pmi_child.get(), .out_fd = out_write.get(), .err_fd = err_write.get(),
                       .null_fd = null_fd.get(), .pmi_fd_entry = pmi_fd_entry.data(), .cpu = cpu};
  // Like posix_spawn: the child borrows mpiexec's memory instead of copying its page tables (a
  // fork costs ~2 ms on a virtual machine); mpiexec resumes once the child has exec'd, so the
  // child's setpgid() has happened before anyone can signal the group.
  // Not zeroed: the child touches only the top of it (zeroing would fault in all 16 pages).
  auto stack = std::make_unique_for_overwrite<std::byte[]>(kChildStackBytes);
  void* stack_top = stack.get() + kChildStackBytes;
  pid_t pid = ::clone(&child_entry, stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      const_cast<ChildPlan*>(&plan));
  if (pid < 0) {
    error = std::string("clone: ") + std::strerror(errno);
    return rank;
  }
  rank.pid = pid;
  rank.pmi = std::move(pmi_parent);
  rank.out = std::move(out_read);
  rank.err = std::move(err_read);
  return rank;
}

}  // namespace railmpi::mpiexec
