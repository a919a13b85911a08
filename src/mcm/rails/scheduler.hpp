// The rail scheduler: sends the frames to peers reached over several channels (rails x
// connections) by the rail policy, restores their order on receipt, and keeps the traffic going
// when a channel fails.
//
// Send side: every frame gets a Trailer (trailer.hpp) appended to its header. Ordered frames
// carry the peer's next sequence number and go whole on one channel (bound or rotating, by
// policy). Placeable frames that the policy stripes are cut into one part per channel in
// service (stripe.hpp, sized by each channel's measured throughput); each part is a frame of its
// own with a copy of the header and the part's offset.
//
// Acknowledgements (failover): every frame and part also carries a per-peer transmission number
// (Trailer::xmit) and the cumulative acknowledgement of the peer's numbers. Until acknowledged,
// a frame is kept (unacked.hpp): a small whole frame (<= kCopyLimit) as a copy (a gathered
// payload, SendOp::layout, is gathered into it), and the caller's op is done at once; a larger
// one, or a striped one, in place (a gathered payload stays gathered: each part is the layout at
// its own offset): the caller's op finishes when every part is acknowledged. The receiver drops duplicates by number (receipts.hpp) and
// acknowledges in the trailer of its own traffic, or with an explicit control frame after
// kAckFrames frames or kAckBytes bytes, or when its progress finds nothing else to do.
//
// Failures: a channel failure toward a peer (reported by the channel: reset, end of file without
// goodbye, refused connect, write error; or declared here when the channel's TCP connection makes
// no progress for RAILMPI_RAIL_TIMEOUT while it has data in flight) takes that channel out of
// service for that peer only; every unacknowledged frame that went on it is sent again on the
// channels in service. A channel out of service is reconnected with back-off and rejoins when its
// connection is up again. Only when every channel to a peer is out of service is the peer
// reported failed to the layer above, naming every channel and its cause.
//
// Link events (channel_down / channel_up, from the host's netlink events): a channel whose
// interface goes down fails toward every peer it carries traffic for at once, and each such peer
// is told over a surviving channel (a kControlLaneDown control frame), so that it fails its end
// at once too instead of waiting for its stall timeout (the far side of a cut cable sees nothing).
// Neither side reconnects while the interface is down; when it is up again, the side that owns
// it reconnects at once, and the other side, told its peer's end went down, just waits for it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/object_pool.hpp"
#include "device/device.hpp"
#include "mcm/rails/channel.hpp"
#include "mcm/rails/policy.hpp"
#include "mcm/rails/receipts.hpp"
#include "mcm/rails/reorder.hpp"
#include "mcm/rails/unacked.hpp"

namespace railmpi::mcm::rails {

inline constexpr std::size_t kMaxLanes = 64;
// Whole frames up to this size are copied for a possible resend (the caller's op is done at once).
inline constexpr std::size_t kCopyLimit = 64 * 1024;
// The receiver acknowledges explicitly after this many frames or bytes without traffic back.
inline constexpr std::uint32_t kAckFrames = 16;
inline constexpr std::size_t kAckBytes = 1 << 20;

class Scheduler {
 public:
  using Clock = std::chrono::steady_clock;

  // bind: channel index of the binding policy (-1: (my rank + peer rank) mod channels, so that
  // both directions of a pair share one connection: replies then carry the TCP acks).
  // timeout: no progress for this long on a channel with data in flight takes it out of service.
  Scheduler(int my_rank, int job_size, Policy policy, int bind, std::size_t stripe_threshold,
            std::vector<Channel>& channels, std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // One channel to a peer: my channel index, and the peer's index of the channel it pairs with
  // (its position in the peer's card).
  struct LaneSpec {
    int channel;
    int remote;
  };
  // `peer` is reached over the channels `lanes` (>= 2).
  void add_peer(int peer, std::vector<LaneSpec> lanes);
  std::size_t lanes(int peer) const { return peers_[static_cast<std::size_t>(peer)].lanes.size(); }
  // Channels toward `peer` in service now.
  std::size_t lanes_in_service(int peer) const;

  // The layer above's handler, and the handler channel `c` reports to.
  void set_upper(device::FrameHandler upper) { upper_ = upper; }
  device::FrameHandler channel_handler(int c);

  device::SendResult send(int peer, device::SendOp& op);

  // Channel `c`'s interface went down (set down, carrier lost, address removed: `why`): the
  // channel fails toward every peer it carries traffic for, as on a reset, and those peers are
  // told; it is not reconnected until channel_up(c).
  void channel_down(int c, std::string_view why);
  // Channel `c`'s interface is usable again: it reconnects toward those peers at once.
  void channel_up(int c);

  // Called by every progress round (`idle`: the round found nothing to do): owed
  // acknowledgements, stalled channels, reconnections. Returns the events it caused.
  int tick(bool idle);

  Policy policy() const { return policy_; }
  // Frames held for reordering, over all peers (0 when idle).
  std::size_t held() const;
  // Frames sent and not yet acknowledged, over all peers.
  std::size_t unacked() const;

 private:
  struct Lane {
    int channel = -1;
    bool in_service = true;
    std::string why;                       // cause of the last failure
    Clock::time_point retry_at{};          // next reconnection step
    std::chrono::milliseconds backoff{0};
    std::uint64_t rx = 0;                  // frames received on it
    std::uint64_t rx_seen = 0;             // rx at the last check
    Clock::time_point last_rx{};           // when a check last saw rx grow
    device::SendOp probe;                  // reconnection probe (a control frame)
    bool probe_busy = false;
    int remote = -1;                       // the peer's index of this channel
    bool peer_down = false;                // the peer announced its end down: it reconnects
    bool reconnect_on_up = false;          // taken out by channel_down while carrying traffic
    device::SendOp notice;                 // "my end of this channel is down" (a control frame)
    bool notice_busy = false;
    bool notice_due = false;               // to be sent when `notice` is free again
  };
  struct PeerRails {
    std::vector<Lane> lanes;
    std::size_t bound = 0;     // index into lanes
    std::size_t rotate = 0;
    std::uint32_t next_seq = 1;
    std::uint32_t next_xmit = 1;
    ReorderBuffer reorder;
    Receipts receipts;
    Unacked unacked;
    std::uint32_t owed_frames = 0;  // received since our last acknowledgement
    std::size_t owed_bytes = 0;
    bool ack_due = false;           // listed in ack_due_
    device::SendOp ack_op;
    bool ack_busy = false;
    bool failure_reported = false;
  };
  struct Tap {  // what a channel's handler context points at
    Scheduler* scheduler;
    int channel;
  };

  // Index into p.lanes of a channel in service, starting from `index` (-1: none).
  int pick(const PeerRails& p, std::size_t index) const;
  int lane_index(const PeerRails& p, int channel) const;
  device::SendResult send_tx(int peer, PeerRails& p, TxOp& tx, int lane);
  device::SendResult send_striped(int peer, PeerRails& p, device::SendOp& op);
  TxOp* tx_op();
  void release(TxOp* tx);
  void resend(PeerRails& p, TxOp* tx);
  void send_ack(int peer, PeerRails& p);
  void owe_ack(int peer, PeerRails& p);  // an acknowledgement is due (sent by kAckFrames or tick)
  void lane_failed(int peer, PeerRails& p, int lane, std::string_view why);
  // Takes the lane out of service; false when no lane is left (the peer is then reported failed).
  bool take_out(int peer, PeerRails& p, int lane, std::string_view why);
  void announce_down(int peer, PeerRails& p, int lane);
  void on_peer_lane_down(int peer, PeerRails& p, std::uint32_t remote);
  void check_lanes(Clock::time_point now);
  static void on_tx_done(device::SendOp& op);
  static void on_ack_done(device::SendOp& op);
  static void on_probe_done(device::SendOp& op);
  static void on_notice_done(device::SendOp& op);

  static void on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload,
                       device::ReadHint hint);
  static void on_failed(void* ctx, int peer, std::string_view why);

  const int me_;
  const Policy policy_;
  const int bind_;
  const std::size_t stripe_threshold_;
  const std::chrono::milliseconds timeout_;
  std::vector<Channel>& channels_;
  std::vector<PeerRails> peers_;
  std::vector<int> rail_peers_;  // peers with several channels
  std::vector<Tap> taps_;
  device::FrameHandler upper_{};
  base::ObjectPool<TxOp> tx_ops_;
  std::vector<TxOp*> scratch_;
  std::vector<int> ack_due_;
  std::vector<char> link_down_;  // per channel: its interface is down (channel_down)
  unsigned ticks_ = 0;
  Clock::time_point next_check_{};
};

}  // namespace railmpi::mcm::rails
