// The receiver's record of which frames of one peer arrived (by Trailer::xmit number): drops
// duplicates (a frame resent after a channel failure that had arrived after all) and yields the
// cumulative acknowledgement (every number up to it arrived).
//
// Numbers above the cumulative one that arrived early (they crossed a faster channel) are kept
// in a bit ring that grows when a channel stalls long enough to need it (allocation only then).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace railmpi::mcm::rails {

class Receipts {
 public:
  // `last`: the number before the first expected one (0: the first is 1; tests cross the wrap).
  explicit Receipts(std::uint32_t last = 0) : cumulative_(last) {}

  // Records frame `xmit`; false when it arrived before (a duplicate, to drop).
  bool accept(std::uint32_t xmit);

  // Every number up to this one arrived.
  std::uint32_t cumulative() const { return cumulative_; }
  // Early numbers recorded above the cumulative one.
  std::size_t early() const { return early_; }

 private:
  bool test(std::size_t offset) const;
  void set(std::size_t offset);
  void clear(std::size_t offset);
  void grow(std::size_t offset);

  std::uint32_t cumulative_;
  // Bit i (from head_) stands for number cumulative_ + 1 + i; bit 0 is always clear.
  std::vector<std::uint64_t> bits_;
  std::size_t head_ = 0;  // bit index of cumulative_ + 1 in the ring
  std::size_t early_ = 0;
};

}  // namespace railmpi::mcm::rails
