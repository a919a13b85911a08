// Info objects: ordered (key, value) string pairs, and their handle table. MPI_INFO_ENV is a
// builtin handle the instance fills at start-up.
#pragma once

#include "core/handle_table.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railmpi::core {

struct Info {
  std::vector<std::pair<std::string, std::string>> entries;  // in order of first setting

  const std::string* get(const std::string& key) const {
    for (const auto& e : entries)
      if (e.first == key) return &e.second;
    return nullptr;
  }
  void set(const std::string& key, const std::string& value) {
    for (auto& e : entries)
      if (e.first == key) {
        e.second = value;
        return;
      }
    entries.emplace_back(key, value);
  }
  bool erase(const std::string& key) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (it->first == key) {
        entries.erase(it);
        return true;
      }
    return false;
  }
};

class InfoTable {
 public:
  static constexpr std::uint32_t kEnv = 0x5c000001u;     // MPI_INFO_ENV
  static constexpr std::uint32_t kPrefix = 0x9c000000u;  // direct kind, object type info

  int add(Info info) { return table_.add(std::make_unique<Info>(std::move(info))); }
  Info* find(int handle) {
    if (static_cast<std::uint32_t>(handle) == kEnv) return &env_;
    return table_.find(handle);
  }
  bool release(int handle) { return table_.release(handle); }
  Info& env() { return env_; }

 private:
  HandleTable<Info, kPrefix> table_;
  Info env_;
};

}  // namespace railmpi::core
