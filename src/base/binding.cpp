#include "base/binding.hpp"

#include <algorithm>

#include "base/cpus.hpp"

namespace railmpi::base {

bool parse_bind_mode(std::string_view text, BindMode& out) {
  for (BindMode m : {BindMode::automatic, BindMode::core, BindMode::none}) {
    if (text == bind_mode_name(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

const char* bind_mode_name(BindMode mode) {
  switch (mode) {
    case BindMode::automatic: return "auto";
    case BindMode::core: return "core";
    case BindMode::none: return "none";
  }
  return "?";
}

bool binds_ranks(BindMode mode, int ranks, unsigned cpus, std::string& why) {
  if (cpus == 0) {
    why = "the CPUs mpiexec may use are unknown";
    return false;
  }
  switch (mode) {
    case BindMode::none:
      why = "RAILMPI_BIND=none";
      return false;
    case BindMode::core:
      return true;
    case BindMode::automatic:
      if (ranks >= 0 && unsigned(ranks) <= cpus) return true;
      why = "RAILMPI_BIND=auto and " + std::to_string(ranks) + " ranks on this machine > " + std::to_string(cpus) +
            " CPUs (oversubscribed ranks bind themselves, and let go when other programs crowd their core)";
      return false;
  }
  return false;
}

bool binds_itself(BindMode mode, int machine_ranks, unsigned machine_cpus) {
  return mode == BindMode::automatic && oversubscribed(machine_ranks, machine_cpus);
}

bool in_pairs(int ranks, int cpus) {
  return cpus > 0 && ranks % cpus == 0 && ranks / cpus >= 4 && ranks / cpus % 2 == 0;
}

int block_position(int index, int ranks, int cpus) {
  if (cpus <= 0 || index < 0 || ranks <= 0) return 0;
  const int q = ranks / cpus, r = ranks % cpus;  // the first r CPUs take q + 1 ranks, the others q
  if (in_pairs(ranks, cpus)) return index / 2 % cpus;
  if (index < r * (q + 1) || q == 0) return std::min(index / (q + 1), cpus - 1);
  return std::min(r + (index - r * (q + 1)) / q, cpus - 1);
}

std::string binding_report(BindMode mode, int machine_ranks, unsigned machine_cpus, bool oversubscribed,
                           bool self_bound) {
  const std::vector<int> own = affinity_cpus();
  std::string text;
  unsigned from_mpiexec = 0;
  const bool started_by_mpiexec = machine_cpus_from_environment(from_mpiexec);
  if (own.size() == 1) {
    text = "bound to CPU " + std::to_string(own[0]);
    if (self_bound)
      text += " by itself (RAILMPI_BIND=auto and " + std::to_string(machine_ranks) + " ranks on this machine > " +
              std::to_string(machine_cpus) + " CPUs: lets go when yields show other programs on the cores)";
  } else {
    std::string why;
    if (!started_by_mpiexec)
      why = "RAILMPI_MACHINE_CPUS is not set: this rank was not started by mpiexec's fork or netns launcher, "
            "the only ones that bind";
    else if (binds_ranks(mode, machine_ranks, machine_cpus, why))
      why = "mpiexec did not bind it (other RailMPI jobs' ranks hold CPUs of its mask, or the kernel refused)";
    text = "not bound (may run on CPUs " + cpu_list_text(own) + "): " + why;
  }
  text += "; " + std::to_string(machine_ranks) + " ranks on this machine, " + std::to_string(machine_cpus) +
          " CPUs: " + (oversubscribed ? "oversubscribed" : "not oversubscribed");
  return text;
}

}  // namespace railmpi::base
