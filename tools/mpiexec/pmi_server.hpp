// PMI-1 server side: one text connection per rank, a job-wide key-value store, the barrier.
//
// Pure protocol logic, no I/O: the supervisor feeds received bytes in with on_input(), sends
// what outbox() holds, and acts on the events (init, finalize, abort) taken with take_events().
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railmpi::mpiexec {

struct PmiEvent {
  enum class Kind { kInit, kFinalize, kAbort, kProtocolError };
  Kind kind;
  int rank;
  int code = 0;         // kAbort: exit code
  std::string message;  // kProtocolError: what was wrong
};

class PmiServer {
 public:
  // Limits announced by cmd=get_maxes (the same as MPICH's Hydra, so a program that runs under
  // one launcher runs under the other).
  static constexpr int kKvsnameMax = 256;
  static constexpr int kKeylenMax = 64;
  static constexpr int kVallenMax = 1024;

  PmiServer(int size, std::string kvsname);

  // Bytes received from `rank`'s PMI connection.
  void on_input(int rank, std::string_view bytes);
  // The rank's process is gone (or its connection closed): it no longer counts for barriers.
  void rank_gone(int rank);

  // Bytes to send to `rank`; the caller erases what it has written.
  std::string& outbox(int rank) { return conns_[rank].out; }
  std::vector<PmiEvent> take_events() { return std::exchange(events_, {}); }

  bool spoke(int rank) const { return conns_[rank].spoke; }
  const std::string& kvsname() const { return kvsname_; }

 private:
  struct Conn {
    std::string in;
    std::string out;
    bool spoke = false;       // sent any PMI command
    bool inited = false;      // sent cmd=init
    bool finalized = false;   // sent cmd=finalize
    bool in_barrier = false;  // sent cmd=barrier_in, waiting for barrier_out
    bool gone = false;
  };

  void handle_line(int rank, const std::string& line);
  void reply(int rank, std::string text);
  void protocol_error(int rank, std::string message);
  void check_barrier();

  int size_;
  std::string kvsname_;
  std::vector<Conn> conns_;
  std::map<std::string, std::string, std::less<>> kvs_;
  std::vector<PmiEvent> events_;
};

}  // namespace railmpi::mpiexec
