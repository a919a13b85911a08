#include "base/settings.hpp"

#include "base/cpus.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace railmpi::base {
namespace {

constexpr std::array kSpecs{
    SettingSpec{"RAILMPI_DEVICES", "shm,tcp",
                "Devices that may be used, comma separated; `tcp` forces TCP even between ranks of one node. With `shm` listed, a rank opens no TCP device when `RAILMPI_LOCAL_SIZE` says every rank of the job is on its node."},
    SettingSpec{"RAILMPI_SHM_EAGER_LIMIT", "",
                "Largest message the shm device sends eagerly; larger ones use rendezvous (with a core per rank: the shared single copy of `RAILMPI_SHM_SHARED_COPY_MIN`; 2 ranks, 64 KiB: osu_bw 16.3 GB/s eager, 22.8 by shared copy, osu_latency 7.7 us against 3.5). Empty (automatic): 8K when the shared copy takes the messages above it (a core per rank, single copy allowed, `RAILMPI_SHM_CMA_MIN` unset, `RAILMPI_SHM_SHARED_COPY_MIN` automatic or at most 8K + 1; 2 ranks, osu_latency 16 KiB 2.2 us instead of 2.8, 32 KiB 2.7 instead of 4.8), and with `RAILMPI_SHM_SHARED_COPY_MIN` automatic a lone send (no receive posted) 6K (16K where a process_vm_readv call costs 800 ns or more, `RAILMPI_SHM_CMA_CALL_NS`), its receiver reading a rendezvous message of up to 16K whole with one process_vm_readv (osu_latency 8 KiB 1.5 us instead of 1.8); a send that follows one to the same peer with no message from it between, a stream, is eager to 16K, but a non-blocking one while an earlier rendezvous send to that peer is in flight (a window of them: osu_bw) only to 8K, and above that the two ranks' cores copy it together (the shared copy of `RAILMPI_SHM_SHARED_COPY_MIN`; osu_bw 16 KiB 1.20-1.22x the receiver reading the window's messages whole, one process_vm_readv for those one poll found, which was 1.26x eager); else 32K, and with more ranks than cores 64K where a process_vm_readv call costs 800 ns or more and `RAILMPI_SHM_CMA_MIN` is unset (an eager send completes without waiting for its receiver to get a core; 8 ranks on 2 cores, the ring of bench/oversub_loop, 64K: 0.90-0.93 the time of 32K). A set value holds for every send."},
    SettingSpec{"RAILMPI_SHM_CMA", "1",
                "Allow single-copy rendezvous with process_vm_readv on the shm device (0 = pipelined copy)."},
    SettingSpec{"RAILMPI_SHM_CMA_MIN", "",
                "Smallest rendezvous message the shm device moves by single copy; smaller ones stream through the ring in packets, copied by both ranks' cores at once. Empty (automatic): every rendezvous when the node has more ranks than cores; else one way a whole single copy only for a lone message of up to 16K (see `RAILMPI_SHM_EAGER_LIMIT`; above, the pipelined copy beat it at every size measured, bench/shm_targets.sh, and rendezvous messages go by the shared copy of `RAILMPI_SHM_SHARED_COPY_MIN` instead), and both ways (the sender has a receive of 6 KiB or more posted, or the receiver streams a rendezvous message back) every message from 6K on, eager sizes included: each core then copies only what comes in, and a receiver reads the messages that one poll found in one process_vm_readv (2 ranks, osu_bibw 8/16/32/64 KiB 1.48/1.81/1.42/1.24x the rings or one call a message), unless the rings measure faster (`RAILMPI_SHM_BOTH_WAYS_RINGS`). A set value rules alone."},
    SettingSpec{"RAILMPI_SHM_CMA_CALL_NS", "",
                "Nanoseconds one process_vm_readv call of a few bytes is taken to cost when the shm device chooses its automatic limits. Empty: timed at start-up (the fastest of 8 calls, about 10 us in all). The ranks of a node all take the lowest figure any of them timed or was given, so that they choose the same limits (and with them the same path for each collective call). At 800 or more a lone send (no receive posted, not part of a stream) is eager up to 16K instead of 6K, and with more ranks than cores every send up to 64K instead of 32K (8 ranks on 2 cores, the ring of bench/oversub_loop: 0.90-0.93 the time): where a call costs 1.5 us (a 2-vCPU AMD EPYC guest), 2 ranks, osu_latency 8 KiB 1.50 us eager against 2.85 read by the receiver, 16 KiB 2.82 against 3.48; where it cost 0.3 us the read won from 6K + 1 on. At 800 or more, too, 2-rank bcasts above 32K and allreduces from 16K go through the node's shared region instead of single copies between the two (2 ranks where a call costs 2.0 us: osu_bcast 64 KiB 0.75 the time, osu_allreduce 16 / 32 / 64 KiB 0.37 / 0.50 / 0.70)."},
    SettingSpec{"RAILMPI_SHM_BOTH_WAYS_RINGS", "",
                "Whether messages both ways that `RAILMPI_SHM_CMA_MIN` sends by single copy (6K on) go through the rings instead, up to 64K (eager to 32K, packets above). Empty (automatic): while the shm device measures its rings' copies in and out cheaper than its single copies (below 0.9 times to take the stream, above 1.1 times to give it back), both timed as they run (16 of every 1024 such messages go the other way, of every 8192 while that way is 1.5 times dearer or more, to keep both measured); the rings' speed between two cores can swing with where a virtual machine's host runs them (a 2-vCPU AMD EPYC guest, osu_bibw 8-64 KiB: rings 39-41 or 4-7 GB/s from one ten-second stretch to the next, single copies 19-28 and 15-26). 0: never (single copies). 1: always. Only where single copies take these messages automatically (a core per rank, `RAILMPI_SHM_CMA_MIN` unset)."},
    SettingSpec{"RAILMPI_SHM_SHARED_COPY_MIN", "",
                "Smallest rendezvous message, one way, that the two ranks' cores copy together with single copies: the receiver reads the second half with process_vm_readv while the sender writes the first half into the receiver's buffer with process_vm_writev (osu_bw 1 MiB 35-37 GB/s against 13-15 for one reader, in a bare two-process test). Empty (automatic): 8K + 1 (every rendezvous above the automatic eager limits but a lone message of up to 16K, read whole by its receiver) with a core per rank and `RAILMPI_SHM_CMA_MIN` unset, else never (oversubscribed nodes read every rendezvous in one copy). Messages both ways, non-contiguous buffers and truncated receives take the other paths."},
    SettingSpec{"RAILMPI_SHM_RING_BYTES", "",
                "Size of each per-pair shared-memory packet ring (payloads of frames over 1 KiB: eager messages and rendezvous packets); a quarter of it is the largest frame (the eager limit's ceiling), a sixteenth the size of rendezvous packets. Empty: the rings a rank writes to the other ranks of its node share 8 MiB, each a power of two from 256 KiB to 4 MiB (4 MiB for 2-3 ranks on a node, 2 MiB for 4-5, 1 MiB for 6-9), smaller (down to 16 KiB) when the channels of every pair of the node would not fit in half of what /dev/shm has free (a container's is often 64 MB; a ring page tmpfs has no room for is a SIGBUS when first touched, and a /dev/shm too small even then stops the job at start-up with a message): 2 ranks, 64 KiB osu_bw 28-31 instead of 16 GB/s with 1 MiB, but 8 ranks on 2 cores pass 64 KiB messages around a ring slower with 4 MiB rings (0.075 instead of 0.051 s). A sender writes only the first 256 KiB of a packet ring until a stream (packets written back to back, nothing from the receiver between) fills that window or laps it within 0.5 ms, then the whole ring: light traffic and ping-pongs touch few pages for the first time and stay in the caches (2 ranks, osu_latency 1 KiB, the run's first packet size: 0.74 us instead of 1.18 when ping-pongs grew the ring too)."},
    SettingSpec{"RAILMPI_SHM_CELL_RING_BYTES", "256K",
                "Size of each per-pair ring of 64-byte cells that carries frames of up to 1 KiB and announces the packets (at most `RAILMPI_SHM_RING_BYTES`; mapped at start-up)."},
    SettingSpec{"RAILMPI_SHM_PAIR_LINE", "1",
                "1: a message of up to 116 bytes with its header (112-byte payload with a repeated envelope, 76 with a new one) to a rank whose last message of that size said it now watches goes through a line the pair shares, written in turns (a ping-pong: each side answers there), instead of the cell ring of its direction: up to 52 bytes one 64-byte line changes hands per message instead of two, up to 116 two lines, demoted to the shared cache by the writer (0 = always the cell rings)."},
    SettingSpec{"RAILMPI_TCP_EAGER_LIMIT", "64K",
                "Largest message the tcp device sends eagerly; larger ones use rendezvous."},
    SettingSpec{"RAILMPI_TCP_INTERFACE", "",
                "IPv4 address or interface name of the one tcp rail: the one-rail form of `RAILMPI_TCP_RAILS` (empty: automatic)."},
    SettingSpec{"RAILMPI_TCP_RAILS", "",
                "tcp rails, comma separated: interface names, IPv4 addresses or subnets a.b.c.d/n (empty: `RAILMPI_TCP_INTERFACE`, else every up non-loopback IPv4 interface, else 127.0.0.1)."},
    SettingSpec{"RAILMPI_TCP_CONNS_PER_RAIL", "1", "TCP connections (channels) per rail and peer."},
    SettingSpec{"RAILMPI_RAIL_POLICY", "epc",
                "How traffic to a peer with several rails is spread: `binding` (one rail), `round-robin` (whole messages rotate), `striping` (large frames split across rails), `epc` (blocking point-to-point and collectives striped, non-blocking round-robin)."},
    SettingSpec{"RAILMPI_RAIL_BIND", "",
                "Channel used by the `binding` policy, counted over a peer's channels in rail order (= the rail with one connection per rail; empty: (own rank + peer rank) modulo the number of channels, so both directions of a pair share one connection)."},
    SettingSpec{"RAILMPI_STRIPE_THRESHOLD", "16K",
                "Smallest frame split across rails by striping; toward a peer with several rails the eager limit is lowered to it when the policy stripes."},
    SettingSpec{"RAILMPI_RAIL_STATS", "0", "1 prints per-channel rail counters (bytes, frames, failures, retransmits) of each rank to stderr at the end."},
    SettingSpec{"RAILMPI_RAIL_TIMEOUT", "2000",
                "Milliseconds a rail's connection may go without acknowledgement while it has data in flight before the rail is taken out of service toward that peer (its unacknowledged frames are resent on the other rails; it rejoins when it reconnects). This is the limit of the last rail in service to a peer; while other rails to it are in service, a quarter of it (at least 250 ms). A link event on the host (interface down, carrier lost, address removed) takes the rail out at once."},
    SettingSpec{"RAILMPI_HEADER_CACHE", "1",
                "Send a repeated envelope (communicator, source, tag) to a peer with a 4-byte header (0 = always full)."},
    SettingSpec{"RAILMPI_SPIN_COUNT", "2000",
                "Progress polls a waiting rank spins before it starts yielding, PAUSE instructions after each that finds nothing (`RAILMPI_SPIN_PAUSES`; none when a machine has more ranks than cores, test hosts included, unless set: the rank waited for mostly shares the core; RAILMPI_VERBOSE=1 prints the count in force)."},
    SettingSpec{"RAILMPI_SPIN_PAUSES", "",
                "PAUSE instructions after each poll that finds nothing while a rank spins (its polls of a peer's line take that line away from the peer while it writes its answer). Empty (automatic): 1 to 4, measured as the waits run: one epoch of 0.1 ms in 16 (by the time-stamp counter, the same on every rank) tries one of them, and the others use the one whose rounds (one wait's end to the next's) were shortest; 2 until all are measured (2 ranks, osu_latency 0-16 B on a 2-vCPU AMD EPYC guest: 1 / 2 / 3 / 4 PAUSEs 0.075-0.081 / 0.058-0.067 / 0.072-0.082 / 0.085 us in one minute, 3 took 0.84-0.87 the time of 2 in slower ones; RAILMPI_VERBOSE=1 prints the choice). A set value (0 to 64) holds for every wait."},
    SettingSpec{"RAILMPI_SPIN_TIME", "0",
                "Microseconds a waiting rank keeps polling, at least, before it yields or sleeps. For unbound ranks (`RAILMPI_BIND=none`, other launchers) beside busy programs: 2 ranks of osu_latency beside one busy loop took 0.18 us a message with 10000 instead of 3-5 us; but two unbound ranks on one core then take a time slice a message. Bound ranks do best with 0 (0.10 us there)."},
    SettingSpec{"RAILMPI_YIELD_COUNT", "200", "Yields a waiting rank makes after the last message it received before it sleeps in the kernel (with a core per rank it also yields for 1 ms after the last arrival: a rank that keeps receiving pays no wake-ups; with more ranks than cores, a point-to-point wait makes none for 10 ms once yields show other programs holding the cores: a yield of 500 us or more, another among the 32 yields before it, and more tasks runnable on the machine than ranks of the job awake; a rank bound to a core of its own polls instead of yielding for 100 ms after such a yield: another program shares its core, and each yield would hand it a time slice; a long yield with nothing else runnable is the host stopping a virtual machine's CPU and changes nothing)."},
    SettingSpec{"RAILMPI_NODE_COLL_LIMIT", "64K",
                "Largest barrier/bcast/reduce/allreduce message that communicators within one node exchange through the node's shared region (0 = always point-to-point; at most 64K)."},
    SettingSpec{"RAILMPI_RMA_SHARED", "1",
                "1: the memory of `MPI_Win_allocate` windows whose ranks are all on one node is shared memory, and one-sided operations on them are loads and stores of the origin (accumulates under a lock word per target, `MPI_Win_lock` an atomic on the target's epoch word: the target takes no part); 0: they are messages handled by the target, as for every other window."},
    SettingSpec{"RAILMPI_VERBOSE", "0", "1 prints the route chosen per peer and start-up details to stderr, and at `MPI_Finalize` how the rank waited (yields, sleeps, the PAUSEs after its empty polls), its single copies (reads and the system calls that made them, fins frames that answered several reads at once, shared-copy heads written, and both ways the runs of large reads handed to the peer that had finished its own and written by it) and how many collectives went through the node's shared region."},
    SettingSpec{"RAILMPI_NODE", "",
                "Name of the rank's host, set by `mpiexec` for every rank; ranks with one name share memory (empty: host name + network namespace)."},
    SettingSpec{"RAILMPI_PMI_ADDRESS", "",
                "IPv4 address `mpiexec --launcher ssh` serves PMI on (empty: its first non-loopback address)."},
    SettingSpec{"RAILMPI_BIND", "auto",
                "Whether `mpiexec` binds the ranks it starts on its own machine (fork and netns launchers; all test hosts count as one machine) to one CPU each, round robin over its own affinity mask: `auto` when they are at most its CPUs (with more, each rank binds itself at MPI_Init, under any launcher, in blocks: consecutive ranks share a CPU, pairs dealt round robin when each CPU gets the same even number of 4 or more (8 ranks on 2 CPUs: 0, 1, 4, 5 on the first), and a blocking receive from a rank on its own CPU, or a blocking send to one, sleeps once two rounds of yields over the CPU's ranks did not end it, at once while that rank's last two such waits outlasted them; it lets go once the yields of a rank of its node show another program holding a core: two of 500 us or more within 33 yields, with more tasks runnable on the machine than ranks of the job awake, at three moments 10-30 ms apart), `core` always, `none` never (nor do the ranks). Ranks started through ssh are not bound by `mpiexec`."},
    SettingSpec{"RAILMPI_CPU_CLAIMS", "/dev/shm",
                "Folder where `mpiexec` records, while its job runs, the CPUs it bound ranks to (or, oversubscribed, planned for them: `RAILMPI_SELF_BIND_CPU`) and how many on each, and reads the records of the other running jobs on the machine (one file per job, removed at exit or by the next reader once its `mpiexec` is gone): a job started while others run binds its ranks to CPUs no other RailMPI job holds (`auto`: leaves them unbound when too few are free, `core`: binds to the held ones last). Two 1-rank compute jobs started at once on 2 cores (`bench/concurrent_jobs.sh`): the slower 0.98-1.01x the time of one alone, against 1.95-2.02x with `none` and Open MPI's 1.97-2.02x (MPICH binds nothing: 0.99-1.04x). `none`: neither record nor read (each job binds from the first CPU of its mask)."},
    SettingSpec{"RAILMPI_MACHINE_CPUS", "",
                "CPUs the ranks on this machine share, which decides whether it is oversubscribed; `mpiexec` sets it to the size of its own affinity mask for every rank it starts on its machine (a rank bound to one core sees one CPU) (empty: the rank's own affinity mask)."},
    SettingSpec{"RAILMPI_SELF_BIND_CPU", "",
                "CPU a rank binds itself to at MPI_Init when it binds itself (`RAILMPI_BIND=auto`, more ranks on the machine than CPUs); `mpiexec` sets it for every rank it starts so, in blocks (consecutive ranks on one CPU, with round robin's counts; pairs dealt round robin when each CPU gets the same even number of 4 or more) over its mask from the CPUs where other running RailMPI jobs (`RAILMPI_CPU_CLAIMS`) run the fewest ranks: two 3-rank jobs on 2 CPUs run 3 ranks on each, not 4 and 2 (two 3-rank compute jobs started at once, `NP=3 bash bench/concurrent_jobs.sh`: the slower 1.50-1.58x the time of one alone, against 1.95-2.03x with `RAILMPI_CPU_CLAIMS=none`, MPICH 1.86-1.92x, Open MPI 1.78-2.08x) (empty, or a CPU not in the rank's mask: the rank's position among the machine's ranks, in blocks over its mask)."},
    SettingSpec{"RAILMPI_GLIBC_RSEQ", "",
                "Whether the ranks `mpiexec` starts on its own machine (fork and netns launchers) keep glibc's restartable sequence, which the kernel updates each time a thread is switched in: `0` turns it off (`glibc.pthread.rseq=0` added to their `GLIBC_TUNABLES`; 8 ranks on 2 CPUs, the ring of bench/oversub_loop: 0.94 the time, `bench/lib_ab.sh` with `ENV_B=GLIBC_TUNABLES=glibc.pthread.rseq=0`, 60 rounds; the update took 3% of the CPU time); empty (automatic) and `1` leave glibc's choice (without the sequence, ranks waiting 300 ms beside busy programs used more than a fifth of the wait in CPU in 5 of 42 runs of tests/mpi/oversub_crowded, with it in none of 24). A `GLIBC_TUNABLES` that sets `glibc.pthread.rseq` already is left alone. Without the sequence `sched_getcpu` asks the vDSO."},
    SettingSpec{"RAILMPI_LOCAL_SIZE", "",
                "Ranks of the job on this rank's node; `mpiexec` sets it for every rank it starts. It sizes the shared-memory rings when `RAILMPI_SHM_RING_BYTES` is empty (empty: the job's size)."},
};

std::string_view env_or_default(const SettingSpec& spec) {
  const char* v = std::getenv(std::string(spec.name).c_str());
  return v ? std::string_view(v) : spec.default_value;
}

const SettingSpec& spec(std::string_view name) {
  for (const auto& s : kSpecs)
    if (s.name == name) return s;
  std::fprintf(stderr, "RailMPI: internal error: unknown setting %.*s\n", int(name.size()), name.data());
  std::abort();
}

std::size_t read_size(std::string_view name) {
  const auto& s = spec(name);
  std::size_t v = 0;
  if (parse_size(env_or_default(s), v)) return v;
  std::fprintf(stderr, "RailMPI: %.*s=%.*s is not a size; using %.*s\n", int(name.size()), name.data(),
               int(env_or_default(s).size()), env_or_default(s).data(), int(s.default_value.size()),
               s.default_value.data());
  parse_size(s.default_value, v);
  return v;
}

unsigned read_unsigned(std::string_view name) { return static_cast<unsigned>(read_size(name)); }

// A size setting whose default is empty: Settings::kAutomatic when empty (or malformed, reported).
std::size_t read_size_or_automatic(std::string_view name) {
  const std::string_view text = env_or_default(spec(name));
  std::size_t v = 0;
  if (text.empty()) return Settings::kAutomatic;
  if (parse_size(text, v)) return v;
  std::fprintf(stderr, "RailMPI: %.*s=%.*s is not a size; leaving it empty\n", int(name.size()), name.data(),
               int(text.size()), text.data());
  return Settings::kAutomatic;
}

}  // namespace

std::span<const SettingSpec> setting_specs() { return kSpecs; }

bool parse_size(std::string_view text, std::size_t& out) {
  if (text.empty()) return false;
  std::size_t value = 0, i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) value = value * 10 + std::size_t(text[i] - '0');
  if (i == 0) return false;
  if (i < text.size()) {
    std::size_t mult = 0;
    switch (text[i]) {
      case 'k': case 'K': mult = std::size_t{1} << 10; break;
      case 'm': case 'M': mult = std::size_t{1} << 20; break;
      case 'g': case 'G': mult = std::size_t{1} << 30; break;
      default: return false;
    }
    if (i + 1 != text.size()) return false;
    value *= mult;
  }
  out = value;
  return true;
}

Settings Settings::from_environment() {
  Settings s;
  s.devices = std::string(env_or_default(spec("RAILMPI_DEVICES")));
  s.shm_eager_limit = read_size_or_automatic("RAILMPI_SHM_EAGER_LIMIT");
  s.tcp_eager_limit = read_size("RAILMPI_TCP_EAGER_LIMIT");
  s.shm_cma = read_size("RAILMPI_SHM_CMA") != 0;
  s.shm_cma_min = read_size_or_automatic("RAILMPI_SHM_CMA_MIN");
  s.shm_cma_call_ns = read_size_or_automatic("RAILMPI_SHM_CMA_CALL_NS");
  s.shm_both_ways_rings = read_size_or_automatic("RAILMPI_SHM_BOTH_WAYS_RINGS");
  s.shm_shared_copy_min = read_size_or_automatic("RAILMPI_SHM_SHARED_COPY_MIN");
  s.shm_ring_bytes = read_size_or_automatic("RAILMPI_SHM_RING_BYTES");
  s.shm_cell_ring_bytes = read_size("RAILMPI_SHM_CELL_RING_BYTES");
  s.shm_pair_line = read_size("RAILMPI_SHM_PAIR_LINE") != 0;
  s.tcp_interface = std::string(env_or_default(spec("RAILMPI_TCP_INTERFACE")));
  s.tcp_rails = std::string(env_or_default(spec("RAILMPI_TCP_RAILS")));
  s.tcp_conns_per_rail = std::max(1u, read_unsigned("RAILMPI_TCP_CONNS_PER_RAIL"));
  s.rail_policy = std::string(env_or_default(spec("RAILMPI_RAIL_POLICY")));
  s.rail_bind = env_or_default(spec("RAILMPI_RAIL_BIND")).empty() ? -1 : static_cast<int>(read_size("RAILMPI_RAIL_BIND"));
  s.stripe_threshold = read_size("RAILMPI_STRIPE_THRESHOLD");
  s.rail_stats = read_size("RAILMPI_RAIL_STATS") != 0;
  s.rail_timeout_ms = read_unsigned("RAILMPI_RAIL_TIMEOUT");
  s.header_cache = read_size("RAILMPI_HEADER_CACHE") != 0;
  s.rma_shared = read_size("RAILMPI_RMA_SHARED") != 0;
  s.spin_count = read_unsigned("RAILMPI_SPIN_COUNT");
  s.spin_pauses = read_size_or_automatic("RAILMPI_SPIN_PAUSES");
  if (s.spin_pauses != Settings::kAutomatic && s.spin_pauses > 64) s.spin_pauses = 64;
  s.yield_count = read_unsigned("RAILMPI_YIELD_COUNT");
  s.spin_time_us = read_size("RAILMPI_SPIN_TIME");
  s.node_coll_limit = std::min<std::size_t>(read_size("RAILMPI_NODE_COLL_LIMIT"), 64 * 1024);
  s.verbose = static_cast<int>(read_size("RAILMPI_VERBOSE"));
  s.node = std::string(env_or_default(spec("RAILMPI_NODE")));
  s.pmi_address = std::string(env_or_default(spec("RAILMPI_PMI_ADDRESS")));
  const std::string_view bind = env_or_default(spec("RAILMPI_BIND"));
  if (!parse_bind_mode(bind, s.bind)) {
    std::fprintf(stderr, "RailMPI: RAILMPI_BIND=%.*s is not a binding mode (auto, core or none); using auto\n",
                 int(bind.size()), bind.data());
    s.bind = BindMode::automatic;
  }
  s.cpu_claims = std::string(env_or_default(spec("RAILMPI_CPU_CLAIMS")));
  unsigned given = 0;
  const std::string_view cpus = env_or_default(spec("RAILMPI_MACHINE_CPUS"));
  if (!cpus.empty() && !machine_cpus_from_environment(given))
    std::fprintf(stderr, "RailMPI: RAILMPI_MACHINE_CPUS=%.*s is not a positive CPU count; using this process's mask\n",
                 int(cpus.size()), cpus.data());
  s.machine_cpus = base::machine_cpus();
  const std::size_t self_bind_cpu = read_size_or_automatic("RAILMPI_SELF_BIND_CPU");
  s.self_bind_cpu = self_bind_cpu == kAutomatic ? -1 : static_cast<int>(std::min<std::size_t>(self_bind_cpu, 1u << 20));
  s.glibc_rseq = read_size_or_automatic("RAILMPI_GLIBC_RSEQ");
  if (s.glibc_rseq != kAutomatic && s.glibc_rseq > 1) s.glibc_rseq = 1;
  const std::size_t local = read_size_or_automatic("RAILMPI_LOCAL_SIZE");
  s.local_size = local == kAutomatic ? 0 : static_cast<unsigned>(std::min<std::size_t>(local, 1u << 20));
  return s;
}

bool Settings::is_set(std::string_view name) { return std::getenv(std::string(name).c_str()) != nullptr; }

std::string Settings::value_text(std::string_view name) const {
  if (name == "RAILMPI_DEVICES") return devices;
  if (name == "RAILMPI_SHM_EAGER_LIMIT")
    return shm_eager_limit == kAutomatic ? std::string() : std::to_string(shm_eager_limit);
  if (name == "RAILMPI_SHM_CMA") return shm_cma ? "1" : "0";
  if (name == "RAILMPI_SHM_CMA_MIN") return shm_cma_min == kAutomatic ? std::string() : std::to_string(shm_cma_min);
  if (name == "RAILMPI_SHM_CMA_CALL_NS")
    return shm_cma_call_ns == kAutomatic ? std::string() : std::to_string(shm_cma_call_ns);
  if (name == "RAILMPI_SHM_BOTH_WAYS_RINGS")
    return shm_both_ways_rings == kAutomatic ? std::string() : std::to_string(shm_both_ways_rings);
  if (name == "RAILMPI_SHM_SHARED_COPY_MIN")
    return shm_shared_copy_min == kAutomatic ? std::string() : std::to_string(shm_shared_copy_min);
  if (name == "RAILMPI_SHM_RING_BYTES") return shm_ring_bytes == kAutomatic ? std::string() : std::to_string(shm_ring_bytes);
  if (name == "RAILMPI_SHM_CELL_RING_BYTES") return std::to_string(shm_cell_ring_bytes);
  if (name == "RAILMPI_SHM_PAIR_LINE") return shm_pair_line ? "1" : "0";
  if (name == "RAILMPI_TCP_EAGER_LIMIT") return std::to_string(tcp_eager_limit);
  if (name == "RAILMPI_TCP_INTERFACE") return tcp_interface;
  if (name == "RAILMPI_TCP_RAILS") return tcp_rails;
  if (name == "RAILMPI_TCP_CONNS_PER_RAIL") return std::to_string(tcp_conns_per_rail);
  if (name == "RAILMPI_RAIL_POLICY") return rail_policy;
  if (name == "RAILMPI_RAIL_BIND") return rail_bind < 0 ? std::string() : std::to_string(rail_bind);
  if (name == "RAILMPI_STRIPE_THRESHOLD") return std::to_string(stripe_threshold);
  if (name == "RAILMPI_RAIL_STATS") return rail_stats ? "1" : "0";
  if (name == "RAILMPI_RAIL_TIMEOUT") return std::to_string(rail_timeout_ms);
  if (name == "RAILMPI_HEADER_CACHE") return header_cache ? "1" : "0";
  if (name == "RAILMPI_RMA_SHARED") return rma_shared ? "1" : "0";
  if (name == "RAILMPI_SPIN_COUNT") return std::to_string(spin_count);
  if (name == "RAILMPI_SPIN_PAUSES") return spin_pauses == kAutomatic ? std::string() : std::to_string(spin_pauses);
  if (name == "RAILMPI_YIELD_COUNT") return std::to_string(yield_count);
  if (name == "RAILMPI_SPIN_TIME") return std::to_string(spin_time_us);
  if (name == "RAILMPI_NODE_COLL_LIMIT") return std::to_string(node_coll_limit);
  if (name == "RAILMPI_VERBOSE") return std::to_string(verbose);
  if (name == "RAILMPI_NODE") return node;
  if (name == "RAILMPI_PMI_ADDRESS") return pmi_address;
  if (name == "RAILMPI_BIND") return bind_mode_name(bind);
  if (name == "RAILMPI_CPU_CLAIMS") return cpu_claims;
  if (name == "RAILMPI_MACHINE_CPUS") return std::to_string(machine_cpus);
  if (name == "RAILMPI_SELF_BIND_CPU") return self_bind_cpu < 0 ? std::string() : std::to_string(self_bind_cpu);
  if (name == "RAILMPI_GLIBC_RSEQ") return glibc_rseq == kAutomatic ? std::string() : std::to_string(glibc_rseq);
  if (name == "RAILMPI_LOCAL_SIZE") return local_size == 0 ? std::string() : std::to_string(local_size);
  return {};
}

}  // namespace railmpi::base
