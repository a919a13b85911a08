#include "mcm/rails/stripe.hpp"

#include <algorithm>

namespace railmpi::mcm::rails {

std::size_t split_stripe(std::size_t bytes, std::span<const double> weights, std::span<std::size_t> out) {
  const std::size_t n = std::min(weights.size(), out.size());
  std::fill(out.begin(), out.end(), 0);
  if (n == 0) return 0;
  // Unknown or nearly equal figures: an even split.
  double lo = weights[0], hi = weights[0];
  for (std::size_t i = 0; i < n; ++i) {
    lo = std::min(lo, weights[i]);
    hi = std::max(hi, weights[i]);
  }
  const bool even = lo <= 0 || hi <= lo * 1.5;
  // As many parts as fit at kMinPart each, given to the heaviest channels first.
  std::size_t parts = std::clamp<std::size_t>(bytes / kMinPart, 1, n);
  std::size_t order[64];
  const std::size_t m = std::min<std::size_t>(n, 64);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  if (!even) std::stable_sort(order, order + m, [&](std::size_t a, std::size_t b) { return weights[a] > weights[b]; });
  parts = std::min(parts, m);
  double used_weight = 0;
  for (std::size_t k = 0; k < parts; ++k) used_weight += even ? 1.0 : weights[order[k]];
  std::size_t left = bytes;
  for (std::size_t k = 0; k < parts; ++k) {
    const std::size_t lane = order[k];
    std::size_t share;
    if (k + 1 == parts) {
      share = left;
    } else {
      const double w = even ? 1.0 : weights[lane];
      share = static_cast<std::size_t>(static_cast<double>(bytes) * w / used_weight);
      share = share / kPartAlign * kPartAlign;
      share = std::clamp(share, std::min(kMinPart, left), left);
    }
    out[lane] = share;
    left -= share;
  }
  std::size_t nonempty = 0;
  for (std::size_t i = 0; i < n; ++i) nonempty += out[i] != 0;
  return nonempty;
}

}  // namespace railmpi::mcm::rails
