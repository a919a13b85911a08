// Info objects: ordered (key, value) string pairs, and their handle table. MPI_INFO_ENV is a
// builtin handle the instance fills at start-up.
#pragma once

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
  static constexpr std::uint32_t kIndexMask = 0x03ffffffu;

  int add(Info info) {
    std::uint32_t index;
    if (!free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      index = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[index] = std::make_unique<Info>(std::move(info));
    return static_cast<int>(kPrefix | index);
  }
  Info* find(int handle) {
    const auto h = static_cast<std::uint32_t>(handle);
    if (h == kEnv) return &env_;
    if ((h & ~kIndexMask) != kPrefix) return nullptr;
    const std::uint32_t index = h & kIndexMask;
    return index < slots_.size() ? slots_[index].get() : nullptr;
  }
  bool release(int handle) {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & ~kIndexMask) != kPrefix) return false;
    const std::uint32_t index = h & kIndexMask;
    if (index >= slots_.size() || !slots_[index]) return false;
    slots_[index].reset();
    free_.push_back(index);
    return true;
  }
  Info& env() { return env_; }

 private:
  std::vector<std::unique_ptr<Info>> slots_;
  std::vector<std::uint32_t> free_;
  Info env_;
};

}  // namespace railmpi::core
