#include "mcm/rails/reorder.hpp"

namespace railmpi::mcm::rails {

std::int64_t ReorderBuffer::distance(std::uint32_t seq) const {
  return seq_distance(expected_, seq);
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
