#include "mcm/rails/receipts.hpp"

#include "mcm/rails/trailer.hpp"

namespace railmpi::mcm::rails {

bool Receipts::test(std::size_t offset) const {
  const std::size_t n = bits_.size() * 64;
  const std::size_t i = (head_ + offset) % n;
  return (bits_[i / 64] >> (i % 64)) & 1u;
}

void Receipts::set(std::size_t offset) {
  const std::size_t i = (head_ + offset) % (bits_.size() * 64);
  bits_[i / 64] |= std::uint64_t{1} << (i % 64);
}

void Receipts::clear(std::size_t offset) {
  const std::size_t i = (head_ + offset) % (bits_.size() * 64);
  bits_[i / 64] &= ~(std::uint64_t{1} << (i % 64));
}

void Receipts::grow(std::size_t offset) {
  std::size_t words = bits_.empty() ? 64 : bits_.size();
  while (words * 64 <= offset) words *= 2;
  if (words == bits_.size()) return;
  // Re-lay the ring with the head at bit 0.
  std::vector<std::uint64_t> bigger(words, 0);
  if (!bits_.empty())
    for (std::size_t k = 0; k < bits_.size() * 64; ++k)
      if (test(k)) bigger[k / 64] |= std::uint64_t{1} << (k % 64);
  bits_.swap(bigger);
  head_ = 0;
}

bool Receipts::accept(std::uint32_t xmit) {
  const std::int64_t d = seq_distance(cumulative_, xmit);
  if (d <= 0) return false;  // at or below the cumulative number: seen
  const std::size_t offset = static_cast<std::size_t>(d - 1);
  if (offset == 0 && early_ == 0) {  // the common case: the next one, nothing early
    cumulative_ = xmit;
    return true;
  }
  if (bits_.size() * 64 <= offset) grow(offset);
  if (test(offset)) return false;
  set(offset);
  ++early_;
  const std::size_t n = bits_.size() * 64;
  while (test(0)) {
    clear(0);
    --early_;
    head_ = (head_ + 1) % n;
    cumulative_ = next_seq(cumulative_);
  }
  return true;
}

}  // namespace railmpi::mcm::rails
