// The stripe split: how a placeable frame is cut into one part per channel.
#pragma once

#include <cstddef>
#include <span>

namespace railmpi::mcm::rails {

// Parts smaller than this are not worth a frame of their own.
inline constexpr std::size_t kMinPart = 4096;
// Part boundaries fall on multiples of this (cache lines, page-friendly copies).
inline constexpr std::size_t kPartAlign = 64;

// Splits `bytes` over the channels in proportion to `weights` (their throughput, any unit):
// out[i] is channel i's part (0 = none). Equal weights split evenly. Weights within a factor 1.5 of
// each other count as equal, so that measurement noise does not skew the split. Boundaries are
// multiples of kPartAlign; no part is smaller than kMinPart unless the frame is; the parts add
// up to `bytes`. Returns the number of non-empty parts.
std::size_t split_stripe(std::size_t bytes, std::span<const double> weights, std::span<std::size_t> out);

}  // namespace railmpi::mcm::rails
