// railmpi_info: what this RailMPI build offers and which settings are in force.
//   railmpi_info              version, devices with their figures, settings with values
//   railmpi_info --markdown   the settings table for README.md (generated from the one table)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/binding.hpp"
#include "base/cpu_claims.hpp"
#include "base/cpus.hpp"
#include "base/settings.hpp"
#include "device/self/self_device.hpp"
#include "device/shm/shm_device.hpp"
#include "device/tcp/tcp_device.hpp"
#include "mcm/rails/policy.hpp"
#include "mcm/rails/rail_list.hpp"

using railmpi::base::Settings;
using railmpi::base::setting_specs;

namespace {

void print_markdown() {
  std::printf("| setting | default | meaning |\n| --- | --- | --- |\n");
  for (const auto& s : setting_specs()) {
    const std::string def = s.default_value.empty() ? "(empty)" : std::string(s.default_value);
    std::printf("| `%.*s` | `%s` | %.*s |\n", int(s.name.size()), s.name.data(), def.c_str(), int(s.meaning.size()),
                s.meaning.data());
  }
}

void print_device(const railmpi::device::Device& d) {
  const auto f = d.figures();
  std::printf("  %-5.*s latency %.2f us, bandwidth %.0f MB/s, eager limit %zu B, largest frame %zu B, single copy %s\n",
              int(d.name().size()), d.name().data(), f.latency_us, f.bandwidth_mbs, f.eager_limit, f.max_payload,
              f.single_copy ? "yes (if the kernel permits)" : "no");
}

// This process's binding and what mpiexec started from here would do (RAILMPI_BIND).
void print_binding(const Settings& settings) {
  namespace base = railmpi::base;
  const std::vector<int> own = base::affinity_cpus();
  unsigned given = 0;
  std::printf("\nBinding (RAILMPI_BIND=%s; ranks on this machine share %u CPUs, from %s):\n",
              base::bind_mode_name(settings.bind), settings.machine_cpus,
              base::machine_cpus_from_environment(given) ? "RAILMPI_MACHINE_CPUS" : "this process's mask");
  if (own.size() == 1)
    std::printf("  this process: bound to CPU %d\n", own[0]);
  else
    std::printf("  this process: not bound (may run on CPUs %s)\n", base::cpu_list_text(own).c_str());
  switch (settings.bind) {
    case base::BindMode::automatic:
      std::printf("  mpiexec run here binds the ranks it starts on this machine (fork, netns) to CPUs %s in turn,\n"
                  "  one each, when they are at most %zu; with more it binds none, and each rank binds itself the\n"
                  "  same way at MPI_Init until yields show another program holding a core of its node\n",
                  base::cpu_list_text(own).c_str(), own.size());
      break;
    case base::BindMode::core:
      std::printf("  mpiexec run here binds the ranks it starts on this machine (fork, netns) to CPUs %s in turn\n",
                  base::cpu_list_text(own).c_str());
      break;
    case base::BindMode::none:
      std::printf("  mpiexec binds no rank\n");
      return;
  }
  base::CpuClaims claims(settings.cpu_claims);
  if (!claims.usable()) {
    std::printf("  CPUs of other running RailMPI jobs: not known (%s)\n", claims.why_not().c_str());
    return;
  }
  const std::vector<int> held = claims.held_by_others();  // one entry per rank, sorted
  std::string per_cpu;
  for (auto it = held.begin(); it != held.end();) {
    const auto next = std::upper_bound(it, held.end(), *it);
    per_cpu += (per_cpu.empty() ? "" : ", ") + std::string("CPU ") + std::to_string(*it) + ": " +
               std::to_string(next - it) + (next - it == 1 ? " rank" : " ranks");
    it = next;
  }
  std::printf("  Ranks of other running RailMPI jobs (records in %s): %s%s\n", settings.cpu_claims.c_str(),
              held.empty() ? "none" : per_cpu.c_str(),
              held.empty() ? "" : " (mpiexec binds to these CPUs last, those with the most ranks last)");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--markdown") == 0) {
    print_markdown();
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "usage: railmpi_info [--markdown]\n");
    return 2;
  }
  const Settings settings = Settings::from_environment();
  std::printf("RailMPI %s (MPI 3.1, MPICH ABI: libmpi.so.12 / libmpich.so.12)\n\n", RAILMPI_VERSION_TEXT);
  std::printf("Devices (figures as each device reports them; the multi-method layer picks per peer):\n");
  railmpi::device::self::SelfDevice self(0);
  railmpi::device::shm::ShmDevice shm(0, 2, "info", settings);
  namespace rails = railmpi::mcm::rails;
  std::vector<rails::Rail> rail_list;
  std::string error;
  const bool rails_ok = rails::select_rails(rails::local_interfaces(), settings.tcp_rails, settings.tcp_interface,
                                            rail_list, error);
  in_addr first{};
  if (rails_ok) first = rail_list[0].address;
  railmpi::device::tcp::TcpDevice tcp(0, 2, settings, first);
  print_device(self);
  print_device(shm);
  print_device(tcp);
  std::printf("\nRails (tcp channels: %u per rail; policy %s, stripe threshold %zu B):\n",
              settings.tcp_conns_per_rail, settings.rail_policy.c_str(), settings.stripe_threshold);
  if (!rails_ok) std::printf("  error: %s\n", error.c_str());
  for (std::size_t r = 0; r < rail_list.size(); ++r)
    std::printf("  rail %zu  %-8s %s/%d%s\n", r, rail_list[r].name.c_str(),
                rails::address_text(rail_list[r].address).c_str(), rail_list[r].prefix,
                rail_list[r].loopback ? " (loopback)" : "");
  rails::Policy policy;
  if (!rails::parse_policy(settings.rail_policy, policy))
    std::printf("  error: RAILMPI_RAIL_POLICY=%s is not a policy (binding, round-robin, striping, epc)\n",
                settings.rail_policy.c_str());
  print_binding(settings);
  std::printf("\nSettings (environment variables, value in force):\n");
  for (const auto& s : setting_specs()) {
    std::printf("  %-26.*s = %-10s  %.*s\n", int(s.name.size()), s.name.data(),
                settings.value_text(s.name).c_str(), int(s.meaning.size()), s.meaning.data());
  }
  return 0;
}
