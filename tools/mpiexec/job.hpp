// The job supervisor: starts the ranks, serves PMI, forwards output and signals, enforces the
// timeout, decides the exit code. mpiexec's only stateful object.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/cpu_claims.hpp"
#include "options.hpp"
#include "output.hpp"
#include "pmi_listener.hpp"
#include "pmi_server.hpp"
#include "unique_fd.hpp"

namespace railmpi::mpiexec {

class Job {
 public:
  explicit Job(Options options);
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  // Runs the job to its end; returns mpiexec's exit code.
  int run();

 private:
  using Clock = std::chrono::steady_clock;

  struct Rank {
    Rank(int index, bool prefix);
    int index;
    int host = 0;  // index into opts_.hosts (0 when no hosts were given)
    pid_t pid = -1;
    bool alive = false;
    bool inited = false;
    bool finalized = false;
    bool aborted = false;  // sent cmd=abort: its exit is reported as the abort
    UniqueFd pmi, out, err;
    LineForwarder out_fwd, err_fwd;
  };

  bool setup_signals();
  // Resolves what the launcher needs (agent path, PMI listener); false after reporting why.
  bool prepare_launcher();
  void launch(const std::string& path);
  void supervise();
  void drain_after_exit();

  void handle_signals();
  void on_user_signal(int sig);
  void reap_children();
  void on_rank_exit(Rank& rank, int status);
  void accept_pmi_connections();
  // Reads a connection that has not said which rank it is yet; false when it is done with
  // (identified and handed to its rank, or closed).
  bool read_unidentified(std::string& in, UniqueFd& fd);
  void read_pmi(Rank& rank);
  void write_pmi(Rank& rank);
  void read_output(Rank& rank, bool is_err, std::size_t budget);
  void process_pmi_events();
  void check_deadlines();

  // First failure decides the exit code and starts the teardown; later ones are ignored.
  void remove_shared_memory_leftovers();
  void fail(int exit_code, const std::string& message);
  void begin_teardown(int sig);
  void signal_alive_ranks(int sig);
  void say(const std::string& message);  // "mpiexec: message" on stderr
  // "rank R (pid P)" plus " on host H" when the job has hosts.
  std::string describe(const Rank& rank) const;

  Options opts_;
  std::string jobid_;
  UniqueFd signal_fd_;
  std::vector<std::unique_ptr<Rank>> ranks_;
  std::unique_ptr<PmiServer> pmi_;
  std::string agent_path_;                  // `ip` (netns) or the ssh agent
  std::unique_ptr<PmiListener> listener_;   // ssh launcher only
  std::unique_ptr<base::CpuClaims> cpu_claims_;  // the CPUs this job's ranks hold, while it runs
  struct Unidentified {
    UniqueFd fd;
    std::string in;
  };
  std::vector<Unidentified> unidentified_;  // PMI connections before their cmd=initack
  int alive_count_ = 0;

  bool any_inited_ = false;
  std::vector<int> exited_without_init_;  // ranks that exited 0 before any rank spoke PMI
  bool failed_ = false;
  int exit_code_ = 0;
  bool terminating_ = false;
  std::optional<Clock::time_point> timeout_at_;
  std::optional<Clock::time_point> kill_at_;
  struct PendingAbort {
    Clock::time_point at;
    int exit_code;
    std::string message;
  };
  static constexpr std::chrono::milliseconds kAbortSettle{150};
  std::optional<PendingAbort> pending_abort_;
};

}  // namespace railmpi::mpiexec
