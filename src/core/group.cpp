#include "core/group.hpp"

#include <algorithm>
#include <unordered_set>

namespace railmpi::core {

int group_rank_of(const Ranks& g, int job) {
  for (std::size_t i = 0; i < g.size(); ++i)
    if (g[i] == job) return static_cast<int>(i);
  return kUndefinedRank;
}

Ranks group_union(const Ranks& a, const Ranks& b) {
  Ranks out = a;
  std::unordered_set<int> in_a(a.begin(), a.end());
  for (int r : b)
    if (!in_a.count(r)) out.push_back(r);
  return out;
}

Ranks group_intersection(const Ranks& a, const Ranks& b) {
  std::unordered_set<int> in_b(b.begin(), b.end());
  Ranks out;
  for (int r : a)
    if (in_b.count(r)) out.push_back(r);
  return out;
}

Ranks group_difference(const Ranks& a, const Ranks& b) {
  std::unordered_set<int> in_b(b.begin(), b.end());
  Ranks out;
  for (int r : a)
    if (!in_b.count(r)) out.push_back(r);
  return out;
}

int group_compare(const Ranks& a, const Ranks& b) {
  if (a == b) return 0;
  if (a.size() != b.size()) return 3;
  Ranks sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb ? 2 : 3;
}

std::string validate_rank_list(int size, const int* ranks, int n) {
  std::vector<bool> seen(static_cast<std::size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size)
      return "ranks[" + std::to_string(i) + "]=" + std::to_string(r) + " is not a rank of a group of size " +
             std::to_string(size);
    if (seen[static_cast<std::size_t>(r)])
      return "ranks[" + std::to_string(i) + "]=" + std::to_string(r) + " appears twice";
    seen[static_cast<std::size_t>(r)] = true;
  }
  return {};
}

Ranks group_incl(const Ranks& g, const int* ranks, int n) {
  Ranks out;
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(g[static_cast<std::size_t>(ranks[i])]);
  return out;
}

Ranks group_excl(const Ranks& g, const int* ranks, int n) {
  std::vector<bool> drop(g.size(), false);
  for (int i = 0; i < n; ++i) drop[static_cast<std::size_t>(ranks[i])] = true;
  Ranks out;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!drop[i]) out.push_back(g[i]);
  return out;
}

std::string validate_ranges(int size, const int (*ranges)[3], int n) {
  std::vector<bool> seen(static_cast<std::size_t>(size), false);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    const std::string which = "ranges[" + std::to_string(i) + "]";
    if (stride == 0) return which + " has stride 0";
    if (first < 0 || first >= size || last < 0 || last >= size)
      return which + "=(" + std::to_string(first) + "," + std::to_string(last) + "," + std::to_string(stride) +
             ") leaves a group of size " + std::to_string(size);
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;  // empty triplet
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[static_cast<std::size_t>(r)]) return which + " names rank " + std::to_string(r) + " twice";
      seen[static_cast<std::size_t>(r)] = true;
    }
  }
  return {};
}

Ranks expand_ranges(const int (*ranges)[3], int n) {
  Ranks out;
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(static_cast<int>(r));
  }
  return out;
}

Ranks group_range_incl(const Ranks& g, const int (*ranges)[3], int n) {
  const Ranks idx = expand_ranges(ranges, n);
  return group_incl(g, idx.data(), static_cast<int>(idx.size()));
}

Ranks group_range_excl(const Ranks& g, const int (*ranges)[3], int n) {
  const Ranks idx = expand_ranges(ranges, n);
  return group_excl(g, idx.data(), static_cast<int>(idx.size()));
}

int GroupTable::add(Ranks ranks) { return table_.add(std::make_unique<Ranks>(std::move(ranks))); }

const Ranks* GroupTable::find(int handle) const {
  if (static_cast<std::uint32_t>(handle) == kEmpty) return &empty_;
  return table_.find(handle);
}

bool GroupTable::release(int handle) { return table_.release(handle); }

std::size_t GroupTable::live() const { return table_.live(); }

}  // namespace railmpi::core
