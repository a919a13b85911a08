// Diagnostics: every message RailMPI prints starts with "RailMPI" and, once known, the rank.
#pragma once

#include <string_view>

namespace railmpi::base {

// Rank shown in messages; -1 until the runtime knows it.
void set_log_rank(int rank);
int log_rank();

// printf-style message to stderr: "RailMPI[rank N]: ...".
[[gnu::format(printf, 1, 2)]] void log_error(const char* fmt, ...);
[[gnu::format(printf, 1, 2)]] void log_info(const char* fmt, ...);
// Internal invariant broken: print and abort the process (the launcher reports it).
[[noreturn, gnu::format(printf, 1, 2)]] void fatal(const char* fmt, ...);

}  // namespace railmpi::base
