// Hosts of a job (from -hosts or a host file) and the placement of ranks on them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railmpi::mpiexec {

struct HostSpec {
  std::string name;
  int slots = 0;  // 0: not given
};

// "a,b:2,c" -> {a,0} {b,2} {c,0}. Returns false and fills `error` on a malformed entry.
bool parse_host_list(std::string_view text, std::vector<HostSpec>& out, std::string& error);

// A host file: one host a line, as "host", "host:n" or "host slots=n"; '#' starts a comment.
bool read_hostfile(const std::string& path, std::vector<HostSpec>& out, std::string& error);

// Host index of every rank. Hosts are filled in order and cycled when ranks remain: `ppn` ranks
// per host when ppn > 0, else each host's slots (1 where a list gives slots for some hosts
// only), else blocks as even as possible (the first nprocs % nhosts hosts take one more).
std::vector<int> place_ranks(const std::vector<HostSpec>& hosts, int nprocs, int ppn);

// Ranks a host list holds by default (-n not given): ppn per host, else the sum of the slots
// (a host without slots counts 1).
int default_rank_count(const std::vector<HostSpec>& hosts, int ppn);

}  // namespace railmpi::mpiexec
