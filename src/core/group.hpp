// Groups: ordered lists of job ranks, their set operations, and the group handle table.
//
// Everything here works on job ranks (the rank in MPI_COMM_WORLD) and knows no MPI header: the
// API layer checks arguments with the validate_* helpers (which return a message, empty if fine)
// and maps handles with GroupTable.
#pragma once

#include "core/handle_table.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace railmpi::core {

using Ranks = std::vector<int>;  // group rank -> job rank

inline constexpr int kUndefinedRank = -32766;  // MPI_UNDEFINED

// Group rank of job rank `job` in `g`, or kUndefinedRank.
int group_rank_of(const Ranks& g, int job);

// Set operations (MPI order rules: union = all of a, then the members of b not in a, in b's
// order; intersection and difference keep a's order).
Ranks group_union(const Ranks& a, const Ranks& b);
Ranks group_intersection(const Ranks& a, const Ranks& b);
Ranks group_difference(const Ranks& a, const Ranks& b);

// Comparison: 0 identical, 2 similar (same members, other order), 3 unequal (MPI_IDENT,
// MPI_SIMILAR, MPI_UNEQUAL).
int group_compare(const Ranks& a, const Ranks& b);

// Checks for incl/excl: ranks in [0, size), no duplicates. Empty string when valid.
std::string validate_rank_list(int size, const int* ranks, int n);
Ranks group_incl(const Ranks& g, const int* ranks, int n);
Ranks group_excl(const Ranks& g, const int* ranks, int n);

// Range triplets (first, last, stride). Check: stride != 0, ends in [0, size), no rank twice.
std::string validate_ranges(int size, const int (*ranges)[3], int n);
Ranks expand_ranges(const int (*ranges)[3], int n);  // group ranks the triplets name, in order
Ranks group_range_incl(const Ranks& g, const int (*ranges)[3], int n);
Ranks group_range_excl(const Ranks& g, const int (*ranges)[3], int n);

// Handle table. Builtin MPI_GROUP_EMPTY; dynamic handles are kPrefix | index.
class GroupTable {
 public:
  static constexpr std::uint32_t kEmpty = 0x48000000u;  // MPI_GROUP_EMPTY
  static constexpr std::uint32_t kPrefix = 0x88000000u;  // direct kind, object type group

  // A new handle for `ranks`.
  int add(Ranks ranks);
  // nullptr when `handle` is not a live group (MPI_GROUP_EMPTY is live and empty).
  const Ranks* find(int handle) const;
  // Frees a dynamic group; false if it was not one.
  bool release(int handle);
  std::size_t live() const;

 private:
  HandleTable<Ranks, kPrefix> table_;
  Ranks empty_;
};

}  // namespace railmpi::core
