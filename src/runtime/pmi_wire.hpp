// PMI-1 wire format helpers shared by the PMI client (src/runtime) and the mpiexec PMI server.
//
// A PMI-1 message is one line of space-separated `key=value` tokens, the first being `cmd=...`.
// A token is split at its FIRST '=', so values may contain '=' but never spaces or newlines.
// Field order is not fixed (Hydra and Slurm order them differently), hence the map.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace railmpi::runtime {

using PmiFields = std::map<std::string, std::string, std::less<>>;

// Parses one line (trailing "\n" / "\r\n" allowed). Tokens without '=' are kept with an empty
// value under their own name; repeated keys keep the last value.
PmiFields parse_pmi_line(std::string_view line);

// Value of `key`, or `fallback` when absent.
std::string_view pmi_field(const PmiFields& fields, std::string_view key,
                           std::string_view fallback = {});

// Parses a decimal integer field; returns false when absent or malformed.
bool pmi_int_field(const PmiFields& fields, std::string_view key, long& out);

// True when `text` can travel as a PMI-1 key or value: non-empty for keys, no space, tab,
// newline or NUL. (Values may contain '='.)
bool pmi_token_ok(std::string_view text, bool allow_equals);

// Extracts the next complete line (without its newline) from `buffer`, erasing it there.
// Returns false when `buffer` holds no complete line yet.
bool pmi_take_line(std::string& buffer, std::string& line);

}  // namespace railmpi::runtime
