// Restores the per-peer order of ordered frames that crossed several channels.
//
// The sender numbers ordered frames 1, 2, 3, ... (Trailer::seq). A frame whose number is the
// next expected one is delivered at once, followed by every held frame that now follows in
// order; a frame that comes early is copied and held; a frame whose number was delivered
// already (a duplicate, as after a resend) is dropped. Numbers wrap (0 is skipped).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "mcm/rails/trailer.hpp"

namespace railmpi::mcm::rails {

class ReorderBuffer {
 public:
  enum class Outcome : std::uint8_t { delivered, held, duplicate };

  // `first`: the number of the first frame (1; tests start elsewhere to cross the wrap).
  explicit ReorderBuffer(std::uint32_t first = 1) : expected_(first) {}

  // deliver(header, payload) is called for each frame delivered, in order. It must not push
  // into this buffer (a frame handler never polls, so it cannot).
  template <class Deliver>
  Outcome push(std::uint32_t seq, std::span<const std::byte> header, std::span<const std::byte> payload,
               Deliver&& deliver) {
    if (seq == expected_) {
      expected_ = next_seq(expected_);
      deliver(header, payload);
      if (!held_.empty()) release_held(deliver);
      return Outcome::delivered;
    }
    if (distance(seq) < 0) {
      ++duplicates_;
      return Outcome::duplicate;
    }
    hold(seq, header, payload);
    return Outcome::held;
  }

  std::uint32_t expected() const { return expected_; }
  std::size_t held() const { return held_.size(); }
  std::uint64_t duplicates() const { return duplicates_; }

 private:
  struct Held {
    std::vector<std::byte> header;
    std::vector<std::byte> payload;
  };

  // Signed distance of seq from the expected number (wrapping arithmetic).
  std::int64_t distance(std::uint32_t seq) const;
  void hold(std::uint32_t seq, std::span<const std::byte> header, std::span<const std::byte> payload);

  template <class Deliver>
  void release_held(Deliver& deliver) {
    for (auto it = held_.find(expected_); it != held_.end(); it = held_.find(expected_)) {
      Held frame = std::move(it->second);
      held_.erase(it);
      expected_ = next_seq(expected_);
      deliver(std::span<const std::byte>(frame.header), std::span<const std::byte>(frame.payload));
    }
  }

  std::uint32_t expected_;
  std::map<std::uint32_t, Held> held_;
  std::uint64_t duplicates_ = 0;
};

}  // namespace railmpi::mcm::rails
