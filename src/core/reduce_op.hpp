// Predefined reduction operations on predefined datatypes (MPICH ABI handle values).
#pragma once

#include <cstddef>

namespace railmpi::core {

// inout[i] = in[i] (op) inout[i] for i < count.
using ReduceFn = void (*)(const void* in, void* inout, std::size_t count);

// The function for (op, datatype), or nullptr when the op is not defined on that type (or either
// handle is not predefined).
ReduceFn find_reduce(int op, int datatype);

}  // namespace railmpi::core
