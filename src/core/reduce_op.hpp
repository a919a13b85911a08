// Reduction operations: the predefined ones on predefined datatypes (MPICH ABI handle values),
// and user operations created with MPI_Op_create (handles 0x98000000 | index).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railmpi::core {

// inout[i] = in[i] (op) inout[i] for i < count.
using ReduceFn = void (*)(const void* in, void* inout, std::size_t count);

// MPI_User_function: inout[i] = in[i] (op) inout[i]; the datatype is passed by handle.
using UserFn = void (*)(void* in, void* inout, int* len, int* datatype);

// The function for (op, datatype), or nullptr when the op is not defined on that type (or either
// handle is not predefined).
ReduceFn find_reduce(int op, int datatype);

// A predefined operation handle (MPI_MAX .. MPI_NO_OP)?
bool is_predefined_op(int op);
// MPI_REPLACE / MPI_NO_OP: defined for one-sided accumulates only, not for collectives.
bool is_accumulate_only_op(int op);
// MPI_REPLACE (the target takes the origin's value) and MPI_NO_OP (the target keeps its own).
bool is_replace_op(int op);
bool is_no_op(int op);

inline constexpr std::uint32_t kUserOpPrefix = 0x98000000u;  // direct kind, object type op

// User operations created by MPI_Op_create. Freed slots are reused.
class OpTable {
 public:
  struct Entry {
    UserFn fn = nullptr;
    bool commutative = true;
    bool in_use = false;
  };
  int create(UserFn fn, bool commutative) {
    std::size_t i = 0;
    while (i < ops_.size() && ops_[i].in_use) ++i;
    if (i == ops_.size()) ops_.emplace_back();
    ops_[i] = Entry{fn, commutative, true};
    return static_cast<int>(kUserOpPrefix | static_cast<std::uint32_t>(i));
  }
  // nullptr when `handle` is not a live user operation.
  const Entry* find(int handle) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & 0xfc000000u) != kUserOpPrefix) return nullptr;
    const std::size_t i = h & 0x03ffffffu;
    return i < ops_.size() && ops_[i].in_use ? &ops_[i] : nullptr;
  }
  bool free(int handle) {
    if (!find(handle)) return false;
    ops_[static_cast<std::uint32_t>(handle) & 0x03ffffffu].in_use = false;
    return true;
  }

 private:
  std::vector<Entry> ops_;
};

}  // namespace railmpi::core
