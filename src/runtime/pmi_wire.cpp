#include "runtime/pmi_wire.hpp"

#include <charconv>

namespace railmpi::runtime {

PmiFields parse_pmi_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  PmiFields fields;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos >= line.size()) break;
    std::size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    std::string_view token = line.substr(pos, end - pos);
    std::size_t eq = token.find('=');
    if (eq == std::string_view::npos)
      fields.insert_or_assign(std::string(token), std::string());
    else
      fields.insert_or_assign(std::string(token.substr(0, eq)), std::string(token.substr(eq + 1)));
    pos = end;
  }
  return fields;
}

std::string_view pmi_field(const PmiFields& fields, std::string_view key,
                           std::string_view fallback) {
  auto it = fields.find(key);
  return it == fields.end() ? fallback : std::string_view(it->second);
}

bool pmi_int_field(const PmiFields& fields, std::string_view key, long& out) {
  auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return false;
  const char* first = it->second.data();
  const char* last = first + it->second.size();
  long value = 0;
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last) return false;
  out = value;
  return true;
}

bool pmi_token_ok(std::string_view text, bool allow_equals) {
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0') return false;
    if (!allow_equals && c == '=') return false;
  }
  return true;
}

bool pmi_take_line(std::string& buffer, std::string& line) {
  std::size_t nl = buffer.find('\n');
  if (nl == std::string::npos) return false;
  std::size_t len = nl;
  if (len > 0 && buffer[len - 1] == '\r') --len;
  line.assign(buffer, 0, len);
  buffer.erase(0, nl + 1);
  return true;
}

}  // namespace railmpi::runtime
