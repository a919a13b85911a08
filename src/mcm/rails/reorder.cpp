#include "mcm/rails/reorder.hpp"

namespace railmpi::mcm::rails {

std::int64_t ReorderBuffer::distance(std::uint32_t seq) const {
  // Numbers run 1 .. 2^32-1: the ring has 2^32-1 places. Half of it ahead is "early".
  constexpr std::int64_t ring = (std::int64_t{1} << 32) - 1;
  std::int64_t d = std::int64_t(seq) - std::int64_t(expected_);
  if (seq < expected_ && expected_ - seq > (ring >> 1)) d += ring;  // wrapped ahead
  if (seq > expected_ && seq - expected_ > (ring >> 1)) d -= ring;  // wrapped behind
  return d;
}

void ReorderBuffer::hold(std::uint32_t seq, std::span<const std::byte> header, std::span<const std::byte> payload) {
  auto [it, fresh] = held_.try_emplace(seq);
  if (!fresh) {
    ++duplicates_;
    return;
  }
  it->second.header.assign(header.begin(), header.end());
  it->second.payload.assign(payload.begin(), payload.end());
}

}  // namespace railmpi::mcm::rails
