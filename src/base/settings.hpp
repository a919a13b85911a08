// RailMPI settings: every RAILMPI_* environment variable, declared once.
//
// The table `setting_specs()` is the single source: parsing, the README table and the info
// tool's listing all come from it. Settings are read once at start-up into a `Settings` value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/binding.hpp"

namespace railmpi::base {

struct SettingSpec {
  std::string_view name;           // full environment variable name
  std::string_view default_value;  // as text, the way a user would write it
  std::string_view meaning;        // one line for README and info tool
};

// All settings, in README order.
std::span<const SettingSpec> setting_specs();

struct Settings {
  // A size setting left empty: the component that uses it chooses.
  static constexpr std::size_t kAutomatic = SIZE_MAX;
  std::string devices;          // RAILMPI_DEVICES: "", "shm,tcp", "tcp"
  std::size_t shm_eager_limit;  // RAILMPI_SHM_EAGER_LIMIT (bytes; kAutomatic: the device decides)
  std::size_t tcp_eager_limit;  // RAILMPI_TCP_EAGER_LIMIT (bytes)
  bool shm_cma;                 // RAILMPI_SHM_CMA: single-copy rendezvous allowed
  std::size_t shm_cma_min;      // RAILMPI_SHM_CMA_MIN: smallest single-copy rendezvous (kAutomatic: the device decides)
  std::size_t shm_cma_call_ns;  // RAILMPI_SHM_CMA_CALL_NS: cost of a process_vm_readv call (kAutomatic: timed)
  std::size_t shm_both_ways_rings;  // RAILMPI_SHM_BOTH_WAYS_RINGS: 0 never, 1 always, kAutomatic: measured
  std::size_t shm_shared_copy_min;  // RAILMPI_SHM_SHARED_COPY_MIN: smallest shared single copy (kAutomatic: the device decides)
  std::size_t shm_ring_bytes;   // RAILMPI_SHM_RING_BYTES: per-pair packet ring size (kAutomatic: by local_size)
  std::size_t shm_cell_ring_bytes;  // RAILMPI_SHM_CELL_RING_BYTES: per-pair cell ring size
  bool shm_pair_line;           // RAILMPI_SHM_PAIR_LINE: tiny ping-pong messages through the pair's shared line
  std::string tcp_interface;    // RAILMPI_TCP_INTERFACE: the one rail ("" = auto)
  std::string tcp_rails;        // RAILMPI_TCP_RAILS: rails ("" = RAILMPI_TCP_INTERFACE / auto)
  unsigned tcp_conns_per_rail;  // RAILMPI_TCP_CONNS_PER_RAIL: channels per rail (>= 1)
  std::string rail_policy;      // RAILMPI_RAIL_POLICY: binding, round-robin, striping, epc
  int rail_bind;                // RAILMPI_RAIL_BIND: rail of the binding policy (-1 = rank mod rails)
  std::size_t stripe_threshold; // RAILMPI_STRIPE_THRESHOLD (bytes)
  bool rail_stats;              // RAILMPI_RAIL_STATS: end-of-job counters on stderr
  unsigned rail_timeout_ms;     // RAILMPI_RAIL_TIMEOUT: no progress this long takes a rail out of service
  bool header_cache;            // RAILMPI_HEADER_CACHE: 4-byte header for repeated envelopes
  bool rma_shared;              // RAILMPI_RMA_SHARED: node-local allocated windows in shared memory
  unsigned spin_count;          // RAILMPI_SPIN_COUNT: polls before yielding
  std::size_t spin_pauses;      // RAILMPI_SPIN_PAUSES: PAUSEs after an empty poll (kAutomatic: measured)
  unsigned yield_count;         // RAILMPI_YIELD_COUNT: yields before sleeping
  std::size_t spin_time_us;     // RAILMPI_SPIN_TIME: least polling time before yielding (us)
  std::size_t node_coll_limit;  // RAILMPI_NODE_COLL_LIMIT: node-level collectives up to this size
  int verbose;                  // RAILMPI_VERBOSE
  std::string node;             // RAILMPI_NODE: host name given by the launcher ("" = derive)
  std::string pmi_address;      // RAILMPI_PMI_ADDRESS: mpiexec's PMI address for remote ranks
  BindMode bind;                // RAILMPI_BIND: whether mpiexec binds ranks to cores
  std::string cpu_claims;       // RAILMPI_CPU_CLAIMS: folder of the running jobs' CPU records ("none": off)
  unsigned machine_cpus;        // RAILMPI_MACHINE_CPUS, else this process's mask: CPUs the ranks on this machine
                                // share (MPI_Init then takes mcm::MultiMethod::machine_cpus())
  int self_bind_cpu;            // RAILMPI_SELF_BIND_CPU: CPU an oversubscribed rank binds itself to (-1 = by index)
  std::size_t glibc_rseq;       // RAILMPI_GLIBC_RSEQ: 0 off; 1 and kAutomatic: glibc's choice
  unsigned local_size;          // RAILMPI_LOCAL_SIZE: ranks of the job on this node (0 = not given)

  // Reads the environment; a malformed value is reported and its default used.
  static Settings from_environment();
  // True when the environment sets `name` (the user chose; automatic tuning leaves it alone).
  static bool is_set(std::string_view name);
  // Value in force for `name`, as text (for the info tool).
  std::string value_text(std::string_view name) const;
};

// Parses "64K", "1M", "4096" and so on. Returns false when `text` is not a size.
bool parse_size(std::string_view text, std::size_t& out);

}  // namespace railmpi::base
