// The rail scheduler: sends the frames to peers reached over several channels (rails x
// connections) by the rail policy, and restores their order on receipt.
//
// Send side: every frame gets a Trailer (trailer.hpp) appended to its header. Ordered frames
// carry the peer's next sequence number and go whole on one channel (bound or rotating, by
// policy). Placeable frames that the policy stripes are cut into one part per channel
// (stripe.hpp, sized by each channel's measured throughput); each part is a frame of its own
// with a copy of the header and the part's offset. The caller's op finishes (on_done, or
// SendResult::done) when every part has: the payload is read in place, never copied.
//
// Receive side: the channels report to the scheduler. Ordered frames pass through the peer's
// ReorderBuffer; placeable frames and parts go straight to the layer above's on_frame_part, which
// places the bytes in the user buffer itself. Frames of peers with one channel pass through.
//
// A channel failure toward a peer is reported once per peer to the layer above, naming the
// channel (failover is not implemented: the job ends as with one rail).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "device/device.hpp"
#include "mcm/rails/channel.hpp"
#include "mcm/rails/policy.hpp"
#include "mcm/rails/reorder.hpp"

namespace railmpi::mcm::rails {

inline constexpr std::size_t kMaxLanes = 64;

class Scheduler {
 public:
  // bind: channel index of the binding policy (-1: (my rank + peer rank) mod channels, so that
  // both directions of a pair share one connection: replies then carry the TCP acks).
  Scheduler(int my_rank, int job_size, Policy policy, int bind, std::size_t stripe_threshold,
            std::vector<Channel>& channels);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // `peer` is reached over the channels `lanes` (indices into the channel list, >= 2).
  void add_peer(int peer, std::vector<int> lanes);
  std::size_t lanes(int peer) const { return peers_[static_cast<std::size_t>(peer)].lanes.size(); }

  // The layer above's handler, and the handler channel `c` reports to.
  void set_upper(device::FrameHandler upper) { upper_ = upper; }
  device::FrameHandler channel_handler(int c);

  device::SendResult send(int peer, device::SendOp& op);

  Policy policy() const { return policy_; }
  // Frames held for reordering, over all peers (0 when idle).
  std::size_t held() const;

 private:
  struct PeerRails {
    std::vector<int> lanes;
    std::size_t bound = 0;     // index into lanes
    std::size_t rotate = 0;
    std::uint32_t next_seq = 1;
    ReorderBuffer reorder;
    bool failure_reported = false;
  };
  struct PartOp {
    device::SendOp op;
    device::SendOp* parent = nullptr;
    Scheduler* scheduler = nullptr;
    int lane = 0;
    std::chrono::steady_clock::time_point start;
  };
  struct Tap {  // what a channel's handler context points at
    Scheduler* scheduler;
    int channel;
  };

  device::SendResult send_whole(int peer, int lane, device::SendOp& op, Trailer trailer);
  device::SendResult send_striped(int peer, PeerRails& p, device::SendOp& op);
  PartOp* part_op();
  static void on_part_done(device::SendOp& op);

  static void on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload);
  static void on_failed(void* ctx, int peer, std::string_view why);

  const int me_;
  const Policy policy_;
  const int bind_;
  const std::size_t stripe_threshold_;
  std::vector<Channel>& channels_;
  std::vector<PeerRails> peers_;
  std::vector<Tap> taps_;
  device::FrameHandler upper_{};
  std::vector<std::unique_ptr<PartOp>> part_storage_;
  std::vector<PartOp*> part_free_;
};

}  // namespace railmpi::mcm::rails
