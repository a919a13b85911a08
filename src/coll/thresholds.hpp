// Algorithm selection thresholds for the collectives, in one place. Sizes are in bytes.
// Every choice depends only on arguments all ranks agree on (counts, communicator size), so all
// ranks of a communicator pick the same algorithm.
#pragma once

#include <cstddef>

namespace railmpi::coll::thresholds {

// Allreduce: recursive doubling up to this vector size; above it (commutative operation and at
// least one element per rank of the power-of-two core) Rabenseifner's reduce-scatter + allgather.
inline constexpr std::size_t kAllreduceRecursiveDoublingMax = 8 * 1024;

// Allgather: total gathered size (size * block) up to which small-message algorithms are used
// (recursive doubling on a power-of-two size, Bruck otherwise); above it, the ring.
inline constexpr std::size_t kAllgatherSmallTotalMax = 64 * 1024;

// Alltoall: block size (bytes per destination) up to which Bruck is used (from 4 ranks up);
// above it pairwise exchange.
inline constexpr std::size_t kAlltoallBruckBlockMax = 256;
inline constexpr int kAlltoallBruckMinRanks = 4;

// Gather/scatter: block size up to which the binomial tree is used; above it the root talks to
// every rank directly (no intermediate copies).
inline constexpr std::size_t kGatherBinomialBlockMax = 16 * 1024;

// Broadcast: message size from which (with at least kBcastScatterMinRanks ranks) the broadcast is
// a binomial scatter followed by a ring allgather; below it a binomial tree.
inline constexpr std::size_t kBcastScatterAllgatherMin = 256 * 1024;
inline constexpr int kBcastScatterMinRanks = 4;

}  // namespace railmpi::coll::thresholds
