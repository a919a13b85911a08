#include "job.hpp"

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cpus.hpp"
#include "binding.hpp"
#include "glibc_rseq.hpp"
#include "runtime/pmi_wire.hpp"
#include "spawn.hpp"

namespace railmpi::mpiexec {
namespace {

constexpr auto kKillGrace = std::chrono::seconds(2);
constexpr int kTimeoutExitCode = 124;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::size_t kMaxIdentifyBytes = 4096;  // a first PMI line longer than this is not ours

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

std::string signal_name(int sig) {
  const char* name = strsignal(sig);
  return name != nullptr ? name : "unknown signal";
}

std::string format_seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

std::string current_directory() {
  char cwd[4096];
  return ::getcwd(cwd, sizeof cwd) != nullptr ? cwd : "/";
}

int abort_exit_code(int code) {
  int status = code & 0xff;
  return (status == 0 && code != 0) ? 1 : status;
}

}  // namespace

Job::Rank::Rank(int i, bool prefix)
    : index(i),
      out_fwd(1, prefix ? "[" + std::to_string(i) + "] " : ""),
      err_fwd(2, prefix ? "[" + std::to_string(i) + "] " : "") {}

Job::Job(Options options) : opts_(std::move(options)) {
  jobid_ = std::to_string(::getpid()) + "_" + std::to_string(static_cast<long>(std::time(nullptr)));
  pmi_ = std::make_unique<PmiServer>(opts_.nprocs, "kvs_" + jobid_);
  const std::vector<int> host_of = place_ranks(opts_.hosts, opts_.nprocs, opts_.ppn);
  for (int r = 0; r < opts_.nprocs; ++r) {
    ranks_.push_back(std::make_unique<Rank>(r, opts_.prepend_rank));
    ranks_.back()->host = host_of[std::size_t(r)];
  }
}

std::string Job::describe(const Rank& r) const {
  std::string text = "rank " + std::to_string(r.index) + " (pid " + std::to_string(r.pid) + ")";
  if (!opts_.hosts.empty()) text += " on host " + opts_.hosts[std::size_t(r.host)].name;
  return text;
}

void Job::say(const std::string& message) {
  write_fully(2, "mpiexec: " + message + "\n");
}

bool Job::setup_signals() {
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill mpiexec; ranks get SIG_DFL back
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGCHLD);
  for (int sig : kForwardedSignals) sigaddset(&set, sig);
  if (::sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return false;
  signal_fd_.reset(::signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  return signal_fd_.valid();
}

int Job::run() {
  if (!setup_signals()) {
    say(std::string("cannot set up signal handling: ") + std::strerror(errno));
    return 1;
  }
  std::string why;
  std::string path = find_executable(opts_.command[0], why);
  if (path.empty()) {
    say("cannot run '" + opts_.command[0] + "': " + why);
    return 127;
  }
  // netns and ssh start the program through another command: it must not depend on a PATH.
  if (path.front() != '/' && opts_.launcher != LauncherKind::fork)
    path = current_directory() + "/" + path;
  if (!prepare_launcher()) return 127;
  if (opts_.timeout_seconds > 0)
    timeout_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opts_.timeout_seconds));
  launch(path);
  supervise();
  if (pending_abort_) check_deadlines();
  drain_after_exit();
  remove_shared_memory_leftovers();
  if (!failed_ && any_inited_ && !exited_without_init_.empty())
    fail(1, "rank " + std::to_string(exited_without_init_.front()) +
                " exited without calling MPI_Init");
  return exit_code_;
}

bool Job::prepare_launcher() {
  std::string why;
  if (opts_.launcher == LauncherKind::netns) {
    agent_path_ = find_executable("ip", why);
    if (agent_path_.empty()) {
      say("--launcher netns needs the 'ip' command: " + why);
      return false;
    }
  } else if (opts_.launcher == LauncherKind::ssh) {
    agent_path_ = find_executable(opts_.launcher_exec, why);
    if (agent_path_.empty()) {
      say("cannot run the launcher agent '" + opts_.launcher_exec + "': " + why);
      return false;
    }
    listener_ = std::make_unique<PmiListener>(opts_.pmi_address);
    if (!listener_->valid()) {
      say(listener_->error());
      return false;
    }
    if (opts_.verbose) say("PMI server listening on " + listener_->endpoint());
  }
  return true;
}

void Job::launch(const std::string& path) {
  const std::vector<std::string> base = base_environment(opts_.env);
  const std::string size = std::to_string(opts_.nprocs);
  std::vector<int> host_size(std::max<std::size_t>(opts_.hosts.size(), 1), 0);
  for (const auto& rp : ranks_) ++host_size[std::size_t(rp->host)];
  std::vector<int> host_next(host_size.size(), 0);
  const std::string cwd = current_directory();
  char own_host[256] = {};
  ::gethostname(own_host, sizeof own_host - 1);
  // Other jobs' records are read and this job's written under one lock: jobs started at the same
  // moment get different CPUs.
  std::vector<int> held;
  if (opts_.bind != base::BindMode::none && opts_.launcher != LauncherKind::ssh) {
    cpu_claims_ = std::make_unique<base::CpuClaims>(opts_.cpu_claims);
    held = cpu_claims_->held_by_others();
    if (opts_.verbose && !cpu_claims_->usable()) say("other jobs' CPUs not known: " + cpu_claims_->why_not());
  }
  const BindingPlan binding = plan_binding(opts_.bind, opts_.launcher, opts_.nprocs, base::affinity_cpus(), held);
  if (cpu_claims_) cpu_claims_->claim(claimed_cpus(binding));
  if (opts_.verbose) say(binding.summary);
  // RAILMPI_GLIBC_RSEQ=0: the ranks on this machine (fork, netns) start without glibc's
  // restartable sequence (glibc_rseq.hpp).
  std::optional<std::string_view> tunables;
  for (const std::string& e : base)
    if (e.starts_with("GLIBC_TUNABLES=")) tunables = std::string_view(e).substr(std::strlen("GLIBC_TUNABLES="));
  const std::optional<std::string> rank_tunables =
      binding.machine_cpus > 0 ? glibc_tunables_for_rank(tunables, opts_.glibc_rseq) : std::nullopt;
  if (opts_.verbose && rank_tunables) say("ranks get GLIBC_TUNABLES=" + *rank_tunables);
  for (auto& rank_ptr : ranks_) {
    Rank& rank = *rank_ptr;
    if (terminating_) {
      pmi_->rank_gone(rank.index);
      continue;
    }
    const std::string r = std::to_string(rank.index);
    const std::string host = opts_.hosts.empty() ? own_host : opts_.hosts[std::size_t(rank.host)].name;
    const std::string local_rank = std::to_string(host_next[std::size_t(rank.host)]++);
    const std::string local_size = std::to_string(host_size[std::size_t(rank.host)]);
    std::vector<std::string> env = base;
    if (rank_tunables) {
      std::erase_if(env, [](const std::string& e) { return e.starts_with("GLIBC_TUNABLES="); });
      env.push_back("GLIBC_TUNABLES=" + *rank_tunables);
    }
    env.push_back("PMI_RANK=" + r);
    env.push_back("PMI_SIZE=" + size);
    env.push_back("PMI_SPAWNED=0");
    env.push_back("RAILMPI_JOBID=" + jobid_);
    env.push_back("RAILMPI_LOCAL_RANK=" + local_rank);
    env.push_back("RAILMPI_LOCAL_SIZE=" + local_size);
    env.push_back("MPI_LOCALRANKID=" + local_rank);
    env.push_back("MPI_LOCALNRANKS=" + local_size);
    env.push_back("RAILMPI_NODE=" + host);
    if (binding.machine_cpus > 0) env.push_back("RAILMPI_MACHINE_CPUS=" + std::to_string(binding.machine_cpus));
    const int cpu = binding.cpu_of_rank[std::size_t(rank.index)];
    if (const int own = binding.self_bind_cpu_of_rank[std::size_t(rank.index)]; own >= 0)
      env.push_back("RAILMPI_SELF_BIND_CPU=" + std::to_string(own));
    if (listener_) {
      env.push_back("PMI_PORT=" + listener_->endpoint());
      env.push_back("PMI_ID=" + r);
    }
    const LaunchCommand cmd =
        launch_command(opts_.launcher, agent_path_, host, path, opts_.command, env, cwd);
    std::string error;
    SpawnedRank s = spawn_rank(cmd.path, cmd.argv,
                               opts_.launcher == LauncherKind::ssh ? base : env,
                               inherits_pmi_fd(opts_.launcher), cpu, error);
    if (s.pid < 0) {
      pmi_->rank_gone(rank.index);
      fail(1, "cannot start rank " + r + ": " + error);
      continue;
    }
    rank.pid = s.pid;
    rank.alive = true;
    rank.pmi = std::move(s.pmi);
    rank.out = std::move(s.out);
    rank.err = std::move(s.err);
    ++alive_count_;
    if (opts_.verbose)
      say("started " + describe(rank) + (cpu >= 0 ? " bound to CPU " + std::to_string(cpu) : std::string()));
  }
}

void Job::supervise() {
  enum Which { kPmi, kOut, kErr, kListen, kUnidentified };
  std::vector<pollfd> fds;
  std::vector<std::pair<int, Which>> owners;
  while (alive_count_ > 0) {
    fds.clear();
    owners.clear();
    fds.push_back({signal_fd_.get(), POLLIN, 0});
    owners.push_back({-1, kPmi});
    if (listener_) {
      fds.push_back({listener_->fd(), POLLIN, 0});
      owners.push_back({-1, kListen});
    }
    for (std::size_t u = 0; u < unidentified_.size(); ++u) {
      fds.push_back({unidentified_[u].fd.get(), POLLIN, 0});
      owners.push_back({static_cast<int>(u), kUnidentified});
    }
    for (auto& rp : ranks_) {
      Rank& r = *rp;
      if (r.pmi) {
        short ev = POLLIN;
        if (!pmi_->outbox(r.index).empty()) ev |= POLLOUT;
        fds.push_back({r.pmi.get(), ev, 0});
        owners.push_back({r.index, kPmi});
      }
      if (r.out) {
        fds.push_back({r.out.get(), POLLIN, 0});
        owners.push_back({r.index, kOut});
      }
      if (r.err) {
        fds.push_back({r.err.get(), POLLIN, 0});
        owners.push_back({r.index, kErr});
      }
    }
    int wait_ms = -1;
    std::optional<Clock::time_point> abort_at;
    if (pending_abort_) abort_at = pending_abort_->at;
    for (const auto& deadline : {timeout_at_, kill_at_, abort_at}) {
      if (!deadline) continue;
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      int ms = left < 0 ? 0 : static_cast<int>(std::min<long long>(left, 60'000));
      wait_ms = wait_ms < 0 ? ms : std::min(wait_ms, ms);
    }
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) {
      say(std::string("poll failed: ") + std::strerror(errno));
      begin_teardown(SIGKILL);
    }
    if (n > 0) {
      for (std::size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents == 0) continue;
        const Which which = owners[i].second;
        if (which == kListen) {
          accept_pmi_connections();
          continue;
        }
        if (which == kUnidentified) {
          Unidentified& u = unidentified_[std::size_t(owners[i].first)];
          if (u.fd && !read_unidentified(u.in, u.fd)) u.fd.reset();
          continue;
        }
        Rank& r = *ranks_[owners[i].first];
        UniqueFd& fd = which == kPmi ? r.pmi : which == kOut ? r.out : r.err;
        if (fd.get() != fds[i].fd) continue;  // closed meanwhile
        if (which == kPmi) {
          if (fds[i].revents & POLLOUT) write_pmi(r);
          if (r.pmi && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) read_pmi(r);
        } else {
          read_output(r, which == kErr, 4 * kReadChunk);
        }
      }
      std::erase_if(unidentified_, [](const Unidentified& u) { return !u.fd; });
      process_pmi_events();
      for (auto& rp : ranks_)
        if (rp->pmi && !pmi_->outbox(rp->index).empty()) write_pmi(*rp);
      // Signals last: a child's final PMI messages and output are read before its exit counts.
      if (fds[0].revents != 0) handle_signals();
    }
    check_deadlines();
  }
}

void Job::accept_pmi_connections() {
  while (true) {
    UniqueFd c = listener_->accept_one();
    if (!c) return;
    unidentified_.push_back({std::move(c), {}});
  }
}

bool Job::read_unidentified(std::string& in, UniqueFd& fd) {
  char buf[kMaxIdentifyBytes];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) return false;  // closed before saying who it is
    in.append(buf, static_cast<std::size_t>(n));
    std::string pending = in, line;
    if (!runtime::pmi_take_line(pending, line)) {
      if (in.size() <= kMaxIdentifyBytes) continue;
      say("a PMI connection sent no line in its first " + std::to_string(kMaxIdentifyBytes) +
          " bytes; closed");
      return false;
    }
    runtime::PmiFields f = runtime::parse_pmi_line(line);
    long id = -1;
    if (runtime::pmi_field(f, "cmd") != "initack" || !runtime::pmi_int_field(f, "pmiid", id) ||
        id < 0 || id >= opts_.nprocs || ranks_[std::size_t(id)]->pmi ||
        !ranks_[std::size_t(id)]->alive) {
      say("a PMI connection did not identify as a rank waiting for one (\"" +
          line.substr(0, 100) + "\"); closed");
      return false;
    }
    Rank& r = *ranks_[std::size_t(id)];
    r.pmi = std::move(fd);
    pmi_->on_input(r.index, in);
    return false;
  }
}

void Job::check_deadlines() {
  auto now = Clock::now();
  if (pending_abort_ && (now >= pending_abort_->at || alive_count_ == 0)) {
    PendingAbort abort = *pending_abort_;
    pending_abort_.reset();
    fail(abort.exit_code, abort.message);  // ignored if a rank's death was reported first
  }
  if (timeout_at_ && now >= *timeout_at_) {
    timeout_at_.reset();
    if (!terminating_)
      fail(kTimeoutExitCode,
           "timeout after " + format_seconds(opts_.timeout_seconds) + " s, killing the job");
  }
  if (kill_at_ && now >= *kill_at_) {
    kill_at_.reset();
    if (alive_count_ > 0) {
      if (opts_.verbose) say("ranks still running after the grace period: sending SIGKILL");
      signal_alive_ranks(SIGKILL);
    }
  }
}

void Job::handle_signals() {
  signalfd_siginfo info;
  while (true) {
    ssize_t n = ::read(signal_fd_.get(), &info, sizeof info);
    if (n != static_cast<ssize_t>(sizeof info)) break;
    int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD)
      reap_children();
    else
      on_user_signal(sig);
  }
  reap_children();  // SIGCHLDs coalesce: always look
}

void Job::on_user_signal(int sig) {
  if (sig == SIGUSR1 || sig == SIGUSR2) {
    signal_alive_ranks(sig);
    return;
  }
  if (terminating_) {  // a second Ctrl-C, or a signal during a teardown: no more grace
    signal_alive_ranks(SIGKILL);
    return;
  }
  failed_ = true;
  exit_code_ = 128 + sig;
  say("received signal " + std::to_string(sig) + " (" + signal_name(sig) +
      "), ending the job");
  terminating_ = true;
  signal_alive_ranks(sig);
  kill_at_ = Clock::now() + kKillGrace;
}

void Job::reap_children() {
  while (true) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& rp : ranks_) {
      Rank& r = *rp;
      if (!r.alive || r.pid != pid) continue;
      // What the rank said and printed before it ended comes first.
      if (r.pmi) read_pmi(r);
      process_pmi_events();
      if (r.out) read_output(r, false, 16 * kReadChunk);
      if (r.err) read_output(r, true, 16 * kReadChunk);
      on_rank_exit(r, status);
      break;
    }
  }
}

void Job::on_rank_exit(Rank& r, int status) {
  r.alive = false;
  --alive_count_;
  pmi_->rank_gone(r.index);
  const std::string who = "rank " + std::to_string(r.index);
  const std::string who_pid = describe(r);
  if (opts_.verbose) say(who_pid + " ended, wait status " + std::to_string(status));
  if (terminating_) return;  // consequences of the teardown, not news
  if (r.aborted) return;      // reported as its MPI_Abort (see check_deadlines)
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    fail(128 + sig, who_pid + " killed by signal " + std::to_string(sig) + " (" +
                        signal_name(sig) + ")");
    return;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code != 0) {
    fail(code, who_pid + " exited with code " + std::to_string(code));
  } else if (r.inited && !r.finalized) {
    fail(1, who + " exited without calling MPI_Finalize");
  } else if (!r.inited) {
    if (any_inited_)
      fail(1, who + " exited without calling MPI_Init");
    else
      exited_without_init_.push_back(r.index);  // reported if another rank does MPI_Init
  }
}

void Job::read_pmi(Rank& r) {
  char buf[kReadChunk];
  while (r.pmi) {
    ssize_t n = ::read(r.pmi.get(), buf, sizeof buf);
    if (n > 0) {
      pmi_->on_input(r.index, std::string_view(buf, static_cast<std::size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // EOF or error: the rank can no longer take part in PMI.
    r.pmi.reset();
    pmi_->rank_gone(r.index);
  }
}

void Job::write_pmi(Rank& r) {
  std::string& box = pmi_->outbox(r.index);
  while (r.pmi && !box.empty()) {
    ssize_t n = ::send(r.pmi.get(), box.data(), box.size(), MSG_NOSIGNAL);
    if (n > 0) {
      box.erase(0, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    box.clear();  // peer gone; its exit is handled by the reaper
    r.pmi.reset();
    pmi_->rank_gone(r.index);
  }
}

void Job::read_output(Rank& r, bool is_err, std::size_t budget) {
  UniqueFd& fd = is_err ? r.err : r.out;
  LineForwarder& fwd = is_err ? r.err_fwd : r.out_fwd;
  char buf[kReadChunk];
  std::size_t total = 0;
  while (fd && total < budget) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      fwd.feed(std::string_view(buf, static_cast<std::size_t>(n)));
      total += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    fwd.finish();
    fd.reset();
  }
}

void Job::drain_after_exit() {
  // All ranks are reaped; what they wrote is in the pipes. Descendants that still hold a pipe
  // open are not waited for.
  for (auto& rp : ranks_) {
    Rank& r = *rp;
    if (r.out) read_output(r, false, 16 * kReadChunk);
    if (r.err) read_output(r, true, 16 * kReadChunk);
    r.out_fwd.finish();
    r.err_fwd.finish();
    r.out.reset();
    r.err.reset();
    r.pmi.reset();
  }
}

void Job::process_pmi_events() {
  for (PmiEvent& e : pmi_->take_events()) {
    Rank& r = *ranks_[e.rank];
    const std::string who = "rank " + std::to_string(e.rank);
    switch (e.kind) {
      case PmiEvent::Kind::kInit:
        r.inited = true;
        any_inited_ = true;
        if (!exited_without_init_.empty())
          fail(1, "rank " + std::to_string(exited_without_init_.front()) +
                      " exited without calling MPI_Init");
        break;
      case PmiEvent::Kind::kFinalize:
        r.finalized = true;
        break;
      case PmiEvent::Kind::kAbort:
        // A rank often aborts because a peer died (its connection broke). Give that peer's exit
        // a moment to be seen, so the report names the root cause; then the abort stands.
        r.aborted = true;
        if (!pending_abort_) {
          pending_abort_ = PendingAbort{Clock::now() + kAbortSettle, abort_exit_code(e.code),
                                        who + " called MPI_Abort with code " + std::to_string(e.code)};
        }
        break;
      case PmiEvent::Kind::kProtocolError:
        say(who + ": " + e.message);
        break;
    }
  }
}

// A rank that dies between creating its shared-memory segment and unlinking it (during MPI_Init)
// leaves /dev/shm/railmpi-<job id>-<rank> (or the node region railmpi-<job id>-node-<rank>) behind;
// the job's end is the last chance to remove it.
void Job::remove_shared_memory_leftovers() {
  const std::string prefix = "railmpi-" + jobid_ + "-";
  DIR* dir = ::opendir("/dev/shm");
  if (!dir) return;
  while (dirent* entry = ::readdir(dir)) {
    if (std::string_view(entry->d_name).starts_with(prefix))
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
  }
  ::closedir(dir);
}

void Job::fail(int exit_code, const std::string& message) {
  if (failed_) return;
  failed_ = true;
  exit_code_ = exit_code;
  say(message);
  begin_teardown(SIGTERM);
}

void Job::begin_teardown(int sig) {
  if (terminating_ && sig != SIGKILL) return;
  terminating_ = true;
  signal_alive_ranks(sig);
  if (sig != SIGKILL) kill_at_ = Clock::now() + kKillGrace;
}

void Job::signal_alive_ranks(int sig) {
  for (auto& rp : ranks_) {
    if (!rp->alive) continue;
    // Each rank leads its own process group: the signal also reaches what it started.
    if (::kill(-rp->pid, sig) != 0) ::kill(rp->pid, sig);
  }
}

}  // namespace railmpi::mpiexec
