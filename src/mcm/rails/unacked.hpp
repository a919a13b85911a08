// The sender's side of acknowledgements toward one peer reached over several channels: every
// frame (whole or part) sent and not yet acknowledged, in number (Trailer::xmit) order, so that
// a channel failure can resend what went on it, and a cumulative acknowledgement releases a
// prefix.
//
// A TxOp is what a channel actually sends: the caller's header plus the trailer, and either a
// copy of a small payload (the caller's op is finished at once) or the caller's payload in place
// (the caller's op, `parent`, finishes only when every TxOp it made is acknowledged, so its
// payload stays valid for a resend).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "device/device.hpp"
#include "mcm/rails/trailer.hpp"

namespace railmpi::mcm::rails {

struct TxOp {
  device::SendOp op;                    // header carries the trailer
  std::vector<std::byte> copy;          // payload copy of a small whole frame (capacity kept)
  device::SendOp* parent = nullptr;     // the caller's op waiting for this one (not copied)
  void* scheduler = nullptr;
  int peer = -1;
  int lane = -1;                        // channel index it was last sent on
  std::uint32_t xmit = 0;
  bool in_channel = false;              // queued in a channel: the channel owns op for now
  bool acked = false;
  bool resend = false;                  // its channel failed while holding it: resend on return
  bool metered = false;                 // a striped part: its time in the channel is measured
  std::chrono::steady_clock::time_point start{};
};

class Unacked {
 public:
  void push(TxOp* tx) { fifo_.push_back(tx); }

  // Cumulative acknowledgement: every frame numbered up to `ack` arrived. Each one is removed
  // and handed to release(tx) (which may push new frames).
  template <class Release>
  std::size_t ack(std::uint32_t ack, Release&& release) {
    std::size_t n = 0;
    while (!fifo_.empty() && ack != 0 && seq_distance(fifo_.front()->xmit, ack) >= 0) {
      TxOp* tx = fifo_.front();
      fifo_.pop_front();
      ++n;
      release(tx);
    }
    return n;
  }

  // The frames last sent on channel `lane`, oldest first (into `out`, cleared first).
  void on_lane(int lane, std::vector<TxOp*>& out) const {
    out.clear();
    for (TxOp* tx : fifo_)
      if (tx->lane == lane) out.push_back(tx);
  }

  std::size_t size() const { return fifo_.size(); }
  bool empty() const { return fifo_.empty(); }

 private:
  std::deque<TxOp*> fifo_;
};

}  // namespace railmpi::mcm::rails
