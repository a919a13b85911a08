// Test rank for the launcher tests: speaks PMI through railmpi::runtime::PmiClient (no MPI).
//   launcher_prog MODE [DIR]
// Modes: exchange, exchange_env (also checks RAILMPI_* variables), abort, crash, exitcode,
// nofinalize, noinit, noinit_late, sleep DIR, ignoreterm DIR, spam.
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "runtime/pmi_client.hpp"

using railmpi::runtime::PmiClient;

namespace {

int fail(const char* what) {
  std::fprintf(stderr, "launcher_prog: CHECK FAILED: %s\n", what);
  return 3;
}

// A business-card-like value: long, contains '=' and ':' and depends on the rank.
std::string card_for(int rank) {
  std::string v = "tcp=10.0.0." + std::to_string(rank) + ":5000;shm=/railmpi_" +
                  std::to_string(rank) + ";pad=";
  while (v.size() < 600) v += static_cast<char>('a' + (v.size() + rank) % 26);
  return v;
}

[[noreturn]] void wait_forever() {
  while (true) ::pause();
}

void write_pid(const char* dir, int rank) {
  std::string path = std::string(dir) + "/pid." + std::to_string(rank);
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << ::getpid() << "\n";
  }
  std::rename(tmp.c_str(), path.c_str());
}

int exchange(PmiClient& pmi, bool check_env) {
  const int rank = pmi.rank(), size = pmi.size();
  const char* env_size = std::getenv("PMI_SIZE");
  if (env_size != nullptr && std::atoi(env_size) != size) return fail("size != PMI_SIZE");
  if (pmi.kvs_name().empty()) return fail("empty kvs name");
  if (pmi.universe_size() < size) return fail("universe size < size");
  if (check_env) {
    const char* jobid = std::getenv("RAILMPI_JOBID");
    const char* lrank = std::getenv("RAILMPI_LOCAL_RANK");
    const char* lsize = std::getenv("RAILMPI_LOCAL_SIZE");
    if (jobid == nullptr || *jobid == '\0') return fail("RAILMPI_JOBID");
    if (lrank == nullptr || std::atoi(lrank) != rank) return fail("RAILMPI_LOCAL_RANK");
    if (lsize == nullptr || std::atoi(lsize) != size) return fail("RAILMPI_LOCAL_SIZE");
    const char* spawned = std::getenv("PMI_SPAWNED");
    if (spawned == nullptr || std::strcmp(spawned, "0") != 0) return fail("PMI_SPAWNED");
  }
  pmi.put("card-" + std::to_string(rank), card_for(rank));
  pmi.put("small-" + std::to_string(rank), std::to_string(rank * 11));
  pmi.barrier();
  for (int peer = 0; peer < size; ++peer) {
    if (pmi.get("card-" + std::to_string(peer)) != card_for(peer)) return fail("card mismatch");
    if (pmi.get("small-" + std::to_string(peer)) != std::to_string(peer * 11))
      return fail("small mismatch");
  }
  // A second round: barriers are reusable.
  pmi.put("round2-" + std::to_string(rank), "r2=" + std::to_string(rank));
  pmi.barrier();
  int next = (rank + 1) % size;
  if (pmi.get("round2-" + std::to_string(next)) != "r2=" + std::to_string(next))
    return fail("round2 mismatch");
  pmi.barrier();
  pmi.finalize();
  std::printf("rank %d/%d exchange ok\n", rank, size);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: launcher_prog MODE [DIR]\n");
    return 2;
  }
  std::string mode = argv[1];
  const char* dir = argc > 2 ? argv[2] : ".";

  if (mode == "spam") {  // no PMI: many lines, each written in several pieces
    const char* r = std::getenv("PMI_RANK");
    std::string rank = r != nullptr ? r : "0";
    for (int i = 0; i < 2000; ++i) {
      std::string line = "spam rank=" + rank + " line=" + std::to_string(i) + " ";
      std::string body(100 + (i % 50), 'x');
      (void)!::write(1, line.data(), line.size());
      (void)!::write(1, body.data(), body.size());
      (void)!::write(1, " end\n", 5);
    }
    return 0;
  }

  PmiClient pmi;
  if (mode == "noinit" || mode == "noinit_late") {
    const char* r = std::getenv("PMI_RANK");
    if (r != nullptr && std::atoi(r) == 1) {
      if (mode == "noinit_late") std::this_thread::sleep_for(std::chrono::milliseconds(500));
      return 0;
    }
  }
  pmi.init();
  const int rank = pmi.rank();

  if (mode == "exchange") return exchange(pmi, false);
  if (mode == "exchange_env") return exchange(pmi, true);
  if (mode == "noinit" || mode == "noinit_late") {
    pmi.barrier();  // never completes: rank 1 will not come
    wait_forever();
  }

  pmi.barrier();
  if (mode == "abort") {
    if (rank == 1) pmi.abort(7, "launcher test abort");
    pmi.barrier();
  } else if (mode == "crash") {
    if (rank == 1) {
      rlimit none{0, 0};
      ::setrlimit(RLIMIT_CORE, &none);
      std::signal(SIGSEGV, SIG_DFL);  // a sanitizer's handler would turn it into exit(1)
      std::raise(SIGSEGV);
    }
    pmi.barrier();
  } else if (mode == "exitcode") {
    if (rank == 1) std::exit(2);
    pmi.barrier();
  } else if (mode == "nofinalize") {
    if (rank == 2) return 0;
    pmi.barrier();
  } else if (mode == "sleep" || mode == "ignoreterm") {
    if (mode == "ignoreterm") std::signal(SIGTERM, SIG_IGN);
    write_pid(dir, rank);
    wait_forever();
  } else {
    std::fprintf(stderr, "launcher_prog: unknown mode %s\n", mode.c_str());
    return 2;
  }
  wait_forever();
}
