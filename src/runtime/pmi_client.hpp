// PMI-1 wire-protocol client: how a RailMPI process learns its rank and exchanges business cards.
//
// Speaks the PMI-1 text protocol ("cmd=... key=value\n") over the socket the launcher gives:
// PMI_FD (an inherited file descriptor, as RailMPI's mpiexec and MPICH's Hydra set it), or
// PMI_PORT=host:port with PMI_ID (Hydra's and Slurm's network form). Replies are parsed by key,
// never by field order. Without any of these variables the process is a singleton: rank 0 of 1,
// with a local key-value store.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace railmpi::runtime {

class PmiClient {
 public:
  PmiClient() = default;
  ~PmiClient();
  PmiClient(const PmiClient&) = delete;
  PmiClient& operator=(const PmiClient&) = delete;

  // Connects and performs cmd=init; reads rank, size, appnum, kvs name. Failures are fatal
  // (printed, process exits non-zero): a process that cannot reach its launcher cannot run MPI.
  void init();
  bool singleton() const { return fd_ < 0; }

  int rank() const { return rank_; }
  int size() const { return size_; }
  int appnum() const { return appnum_; }
  int universe_size();
  const std::string& kvs_name() const { return kvs_; }

  // Key-value store of the job. put() values become visible to other ranks after barrier().
  void put(std::string_view key, std::string_view value);
  // Blocks until every rank of the job has called barrier() (cmd=barrier_in / barrier_out).
  void barrier();
  // Value another rank put; fatal if absent.
  std::string get(std::string_view key);

  // Asks the launcher to end the whole job with `code` (cmd=abort). Does not return.
  [[noreturn]] void abort(int code, std::string_view message);
  // cmd=finalize; the launcher then knows this rank ended cleanly.
  void finalize();

 private:
  void send_line(const std::string& line);
  // Reads one reply line and checks its cmd= value; returns key->value.
  std::map<std::string, std::string> expect(std::string_view cmd);

  // Connection set-up: PMI_FD, or PMI_PORT (+ PMI_ID handshake).
  void connect_from_environment();
  void handshake_initack(const char* pmi_id);
  // Reads one complete line from the launcher (blocking); fatal on EOF or error.
  std::string read_line();

  int fd_ = -1;
  bool initialized_ = false;
  bool finalized_ = false;
  long kvsname_max_ = 256;
  long keylen_max_ = 64;
  long vallen_max_ = 1024;
  int rank_ = 0;
  int size_ = 1;
  int appnum_ = 0;
  std::string kvs_ = "singleton_kvs";
  std::string inbuf_;
  std::map<std::string, std::string, std::less<>> local_kvs_;  // singleton only
};

}  // namespace railmpi::runtime
