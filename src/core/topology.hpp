// Topology computations that need no communication (MPI_Dims_create, graph checks).
#pragma once

#include <string>

namespace railmpi::core {

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the product is nnodes and the
// filled values are as close to each other as possible, in non-increasing order. Returns an
// error message (empty on success) when nnodes is not divisible by the fixed entries' product.
std::string dims_create(int nnodes, int ndims, int* dims);

}  // namespace railmpi::core
