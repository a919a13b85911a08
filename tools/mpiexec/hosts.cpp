#include "hosts.hpp"

#include <charconv>
#include <fstream>

namespace railmpi::mpiexec {
namespace {

constexpr int kMaxSlots = 4096;

bool parse_slots(std::string_view text, int& out) {
  int v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > kMaxSlots) return false;
  out = v;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool valid_host_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (c == ' ' || c == '\t' || c == '=' || c == ';' || c == ',' || c == '\'' || c == '"') return false;
  return true;
}

// "host" or "host:n"; `where` names the source for messages.
bool parse_entry(std::string_view entry, const std::string& where, HostSpec& out, std::string& error) {
  HostSpec spec;
  std::size_t colon = entry.rfind(':');
  std::string_view name = entry.substr(0, colon);
  if (colon != std::string_view::npos && !parse_slots(entry.substr(colon + 1), spec.slots)) {
    error = where + ": invalid slot count in '" + std::string(entry) + "'";
    return false;
  }
  if (!valid_host_name(name)) {
    error = where + ": invalid host name '" + std::string(name) + "'";
    return false;
  }
  spec.name = std::string(name);
  out = std::move(spec);
  return true;
}

}  // namespace

bool parse_host_list(std::string_view text, std::vector<HostSpec>& out, std::string& error) {
  while (true) {
    std::size_t comma = text.find(',');
    HostSpec spec;
    if (!parse_entry(trim(text.substr(0, comma)), "-hosts", spec, error)) return false;
    out.push_back(std::move(spec));
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool read_hostfile(const std::string& path, std::vector<HostSpec>& out, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read host file '" + path + "'";
    return false;
  }
  std::string line;
  int number = 0;
  std::size_t before = out.size();
  while (std::getline(in, line)) {
    ++number;
    std::string_view text = line;
    text = trim(text.substr(0, text.find('#')));
    if (text.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    std::size_t space = text.find_first_of(" \t");
    HostSpec spec;
    if (!parse_entry(text.substr(0, space), where, spec, error)) return false;
    if (space != std::string_view::npos) {
      std::string_view rest = trim(text.substr(space));
      if (!rest.starts_with("slots=") || spec.slots != 0 ||
          !parse_slots(rest.substr(std::string_view("slots=").size()), spec.slots)) {
        error = where + ": expected 'host', 'host:n' or 'host slots=n', got '" + std::string(text) + "'";
        return false;
      }
    }
    out.push_back(std::move(spec));
  }
  if (out.size() == before) {
    error = "host file '" + path + "' names no host";
    return false;
  }
  return true;
}

std::vector<int> place_ranks(const std::vector<HostSpec>& hosts, int nprocs, int ppn) {
  std::vector<int> host_of(static_cast<std::size_t>(nprocs), 0);
  const int nhosts = static_cast<int>(hosts.size());
  if (nhosts == 0) return host_of;
  bool any_slots = false;
  for (const HostSpec& h : hosts) any_slots = any_slots || h.slots > 0;
  if (ppn == 0 && !any_slots) {
    const int base = nprocs / nhosts, extra = nprocs % nhosts;
    int rank = 0;
    for (int h = 0; h < nhosts; ++h)
      for (int k = 0; k < base + (h < extra ? 1 : 0); ++k) host_of[std::size_t(rank++)] = h;
    return host_of;
  }
  int rank = 0;
  for (int h = 0; rank < nprocs; h = (h + 1) % nhosts) {
    const int take = ppn > 0 ? ppn : (hosts[std::size_t(h)].slots > 0 ? hosts[std::size_t(h)].slots : 1);
    for (int k = 0; k < take && rank < nprocs; ++k) host_of[std::size_t(rank++)] = h;
  }
  return host_of;
}

int default_rank_count(const std::vector<HostSpec>& hosts, int ppn) {
  int total = 0;
  for (const HostSpec& h : hosts) total += ppn > 0 ? ppn : (h.slots > 0 ? h.slots : 1);
  return total;
}

}  // namespace railmpi::mpiexec
