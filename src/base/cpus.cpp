#include "base/cpus.hpp"

#include <sched.h>

#include <cstdlib>
#include <string_view>

#include "base/settings.hpp"

namespace railmpi::base {

std::vector<int> affinity_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

bool set_thread_affinity_cpus(int tid, std::span<const int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return CPU_COUNT(&set) > 0 && ::sched_setaffinity(tid, sizeof set, &set) == 0;
}

bool set_affinity_cpus(std::span<const int> cpus) { return set_thread_affinity_cpus(0, cpus); }

std::string cpu_list_text(const std::vector<int>& cpus) {
  if (cpus.empty()) return "none";
  std::string text;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(cpus[i]);
    if (j > i) text += '-' + std::to_string(cpus[j]);
    i = j + 1;
  }
  return text;
}

bool parse_cpu_list(std::string_view text, std::vector<int>& out) {
  std::vector<bool> in(CPU_SETSIZE, false);
  auto number = [&](std::string_view& t, int& v) {
    std::size_t n = 0;
    long long x = 0;
    while (n < t.size() && t[n] >= '0' && t[n] <= '9' && x < CPU_SETSIZE) x = x * 10 + (t[n++] - '0');
    if (n == 0 || x >= CPU_SETSIZE) return false;
    v = static_cast<int>(x);
    t.remove_prefix(n);
    return true;
  };
  while (!text.empty()) {
    int first = 0, last = 0;
    if (!number(text, first)) return false;
    last = first;
    if (!text.empty() && text.front() == '-') {
      text.remove_prefix(1);
      if (!number(text, last) || last < first) return false;
    }
    for (int c = first; c <= last; ++c) in[std::size_t(c)] = true;
    if (!text.empty()) {
      if (text.front() != ',' || text.size() == 1) return false;
      text.remove_prefix(1);
    }
  }
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (in[std::size_t(c)]) cpus.push_back(c);
  if (cpus.empty()) return false;
  out = std::move(cpus);
  return true;
}

bool machine_cpus_from_environment(unsigned& out) {
  const char* text = std::getenv(kMachineCpusVariable);
  std::size_t v = 0;
  if (text == nullptr || !parse_size(text, v) || v == 0 || v > CPU_SETSIZE) return false;
  out = static_cast<unsigned>(v);
  return true;
}

unsigned machine_cpus() {
  unsigned from_mpiexec = 0;
  if (machine_cpus_from_environment(from_mpiexec)) return from_mpiexec;
  const std::size_t own = affinity_cpus().size();
  return own > 0 ? static_cast<unsigned>(own) : 1u;
}

}  // namespace railmpi::base
