// Test rank for the launcher tests: speaks PMI through railmpi::runtime::PmiClient (no MPI).
//   launcher_prog MODE [DIR]
// Modes: exchange, exchange_env (also checks RAILMPI_* variables), abort, crash, exitcode,
// nofinalize, noinit, noinit_late, sleep DIR, ignoreterm DIR, spam, cpus (no PMI: prints this
// process's CPU list), binding EXPECT [CPULIST] (see check_binding), rseq EXPECT (no PMI: whether
// glibc registered a restartable sequence for this thread, EXPECT off or registered).
#include <sys/resource.h>
#include <sys/rseq.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/cpus.hpp"
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

// Every rank publishes its affinity mask; rank 0 checks them all and prints "binding ok: ...".
// EXPECT bound: each rank on one CPU, RAILMPI_MACHINE_CPUS = M set, ranks i and j on the same CPU
// exactly when i = j mod M (round robin; with CPULIST, rank i on its (i mod M)-th CPU). unbound:
// RAILMPI_MACHINE_CPUS = M set and every rank on the same M CPUs (CPULIST when given). ssh:
// RAILMPI_MACHINE_CPUS not set, every rank on the same CPUs (CPULIST when given).
int check_binding(PmiClient& pmi, const std::string& expect, const std::string& list) {
  const int rank = pmi.rank(), size = pmi.size();
  const std::vector<int> own = railmpi::base::affinity_cpus();
  const char* m = std::getenv("RAILMPI_MACHINE_CPUS");
  pmi.put("mask-" + std::to_string(rank), railmpi::base::cpu_list_text(own) + ";" + (m ? m : "unset"));
  pmi.barrier();
  if (rank == 0) {
    std::vector<std::string> masks;
    std::string machine, report;
    for (int r = 0; r < size; ++r) {
      const std::string v = pmi.get("mask-" + std::to_string(r));
      masks.push_back(v.substr(0, v.find(';')));
      if (r == 0) machine = v.substr(v.find(';') + 1);
      if (v.substr(v.find(';') + 1) != machine) return fail("ranks see different RAILMPI_MACHINE_CPUS");
      report += " rank " + std::to_string(r) + " on " + masks.back() + ";";
    }
    std::printf("binding masks (RAILMPI_MACHINE_CPUS=%s):%s\n", machine.c_str(), report.c_str());
    std::vector<int> listed;  // CPULIST "a,b,c": mpiexec's mask in its order
    std::istringstream items(list);
    for (std::string cpu; std::getline(items, cpu, ',');) listed.push_back(std::atoi(cpu.c_str()));
    const int cpus = std::atoi(machine.c_str());
    if (expect == "bound" || expect == "unbound") {
      if (cpus <= 0) return fail("RAILMPI_MACHINE_CPUS not set by mpiexec");
      if (!listed.empty() && int(listed.size()) != cpus) return fail("RAILMPI_MACHINE_CPUS != size of mpiexec's mask");
    }
    for (int i = 0; i < size; ++i) {
      const std::string& mi = masks[std::size_t(i)];
      const bool one_cpu = mi.find_first_of(",-") == std::string::npos;
      if (expect == "bound") {
        if (!one_cpu) return fail("a rank is not bound to one CPU");
        if (!listed.empty() && mi != std::to_string(listed[std::size_t(i % cpus)]))
          return fail("rank i is not on CPU i mod M of the mask");
        for (int j = 0; j < i; ++j)
          if ((masks[std::size_t(j)] == mi) != (j % cpus == i % cpus)) return fail("CPUs not given round robin");
      } else if (expect == "unbound" || expect == "ssh") {
        if (one_cpu && expect == "unbound") return fail("a rank is bound");
        if (mi != masks[0]) return fail("ranks run on different CPU sets");
        if (!listed.empty() && mi != railmpi::base::cpu_list_text(listed)) return fail("a rank's mask is not mpiexec's");
        if (expect == "ssh" && machine != "unset") return fail("RAILMPI_MACHINE_CPUS set for an ssh-started rank");
      } else {
        return fail("EXPECT is bound, unbound or ssh");
      }
    }
    std::printf("binding ok: %s\n", expect.c_str());
  }
  pmi.barrier();
  pmi.finalize();
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

  if (mode == "cpus") {  // no PMI: the first N (argv[2]) CPUs of this process's mask, "a,b,..."
    const std::vector<int> cpus = railmpi::base::affinity_cpus();
    const std::size_t n = std::min<std::size_t>(cpus.size(), argc > 2 ? std::size_t(std::atoi(argv[2])) : cpus.size());
    for (std::size_t i = 0; i < n; ++i) std::printf("%s%d", i > 0 ? "," : "", cpus[i]);
    std::printf("\n");
    return 0;
  }

  if (mode == "rseq") {  // no PMI: glibc's registration, as mpiexec's GLIBC_TUNABLES left it
    const std::string expect = argc > 2 ? argv[2] : "";
    const bool registered = __rseq_size > 0;
    if (expect == "off" && !registered) return std::printf("rseq ok: off\n") < 0;
    if (expect == "registered" && registered) return std::printf("rseq ok: registered\n") < 0;
    // A kernel without rseq leaves glibc nothing to register.
    if (expect == "registered" && ::syscall(SYS_rseq, nullptr, 0, 0, 0) == -1 && errno == ENOSYS)
      return std::printf("rseq ok: the kernel has none\n") < 0;
    const char* t = std::getenv("GLIBC_TUNABLES");
    std::fprintf(stderr, "launcher_prog: rseq %s, expected %s (GLIBC_TUNABLES=%s)\n",
                 registered ? "registered" : "off", expect.c_str(), t != nullptr ? t : "(unset)");
    return 3;
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
  if (mode == "binding") return check_binding(pmi, dir, argc > 3 ? argv[3] : "");
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
