#include "mcm/rails/scheduler.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/log.hpp"
#include "mcm/rails/stripe.hpp"
#include "mcm/rails/trailer.hpp"

namespace railmpi::mcm::rails {
namespace {

constexpr std::chrono::milliseconds kCheckEvery{50};     // stalled channels, reconnections
constexpr std::chrono::milliseconds kFirstRetry{100};    // reconnection back-off: first step
constexpr std::chrono::milliseconds kMaxRetry{1000};     // and its ceiling
constexpr unsigned kTicksPerClock = 64;                  // busy rounds between clock reads
constexpr std::chrono::milliseconds kMinStallLimit{250}; // floor of the limit with other rails in service

// A control frame: the trailer alone (xmit 0), carrying an acknowledgement and, for `kind`
// kControlLaneDown, the channel it announces in `arg`.
void make_control(device::SendOp& op, std::uint32_t ack, std::uint32_t kind = kControlAck, std::uint32_t arg = 0) {
  op.header_len = 0;
  op.payload = nullptr;
  op.payload_len = 0;
  append_trailer(op, Trailer{kind, arg, 0, ack});
}

}  // namespace

Scheduler::Scheduler(int my_rank, int job_size, Policy policy, int bind, std::size_t stripe_threshold,
                     std::vector<Channel>& channels, std::chrono::milliseconds timeout)
    : me_(my_rank),
      policy_(policy),
      bind_(bind),
      stripe_threshold_(stripe_threshold),
      timeout_(timeout),
      channels_(channels),
      peers_(static_cast<std::size_t>(job_size)),
      link_down_(channels.size(), 0) {
  taps_.reserve(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) taps_.push_back(Tap{this, int(c)});
}

Scheduler::~Scheduler() = default;

void Scheduler::add_peer(int peer, std::vector<LaneSpec> lanes) {
  if (lanes.size() > kMaxLanes) lanes.resize(kMaxLanes);
  PeerRails& p = peers_[static_cast<std::size_t>(peer)];
  const std::size_t n = lanes.size();
  p.bound = bind_ >= 0 ? static_cast<std::size_t>(bind_) % n : static_cast<std::size_t>(me_ + peer) % n;
  p.lanes = std::vector<Lane>(n);
  for (std::size_t i = 0; i < n; ++i) {
    Lane& l = p.lanes[i];
    l.channel = lanes[i].channel;
    l.remote = lanes[i].remote;
    l.probe.owner = &l;
    l.probe.on_done = &Scheduler::on_probe_done;
    l.notice.owner = &l;
    l.notice.on_done = &Scheduler::on_notice_done;
  }
  p.ack_op.owner = &p;
  p.ack_op.on_done = &Scheduler::on_ack_done;
  rail_peers_.push_back(peer);
}

device::FrameHandler Scheduler::channel_handler(int c) {
  return device::FrameHandler{.ctx = &taps_[static_cast<std::size_t>(c)],
                              .on_frame = &Scheduler::on_frame,
                              .on_peer_failed = &Scheduler::on_failed,
                              .on_frame_part = nullptr};
}

std::size_t Scheduler::held() const {
  std::size_t n = 0;
  for (const PeerRails& p : peers_) n += p.reorder.held();
  return n;
}

std::size_t Scheduler::unacked() const {
  std::size_t n = 0;
  for (const PeerRails& p : peers_) n += p.unacked.size();
  return n;
}

std::size_t Scheduler::lanes_in_service(int peer) const {
  const PeerRails& p = peers_[static_cast<std::size_t>(peer)];
  return static_cast<std::size_t>(std::count_if(p.lanes.begin(), p.lanes.end(), [](const Lane& l) { return l.in_service; }));
}

int Scheduler::pick(const PeerRails& p, std::size_t index) const {
  const std::size_t n = p.lanes.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (index + k) % n;
    if (p.lanes[i].in_service) return int(i);
  }
  return -1;
}

int Scheduler::lane_index(const PeerRails& p, int channel) const {
  for (std::size_t i = 0; i < p.lanes.size(); ++i)
    if (p.lanes[i].channel == channel) return int(i);
  return -1;
}

// ---- sending ----

device::SendResult Scheduler::send(int peer, device::SendOp& op) {
  PeerRails& p = peers_[static_cast<std::size_t>(peer)];
  if (op.header_len > device::kMaxUserHeader)
    base::fatal("rail scheduler: header of %u bytes leaves no room for the rail trailer", op.header_len);
  if (p.failure_reported) return device::SendResult::done;  // every channel gone: reported
  const Placement where = place(policy_, op.marker, op.placeable, op.payload_len, stripe_threshold_);
  if (where == Placement::stripe && lanes_in_service(peer) > 1) return send_striped(peer, p, op);
  const int lane = pick(p, where == Placement::bound ? p.bound : p.rotate++ % p.lanes.size());
  TxOp& tx = *tx_op();
  std::memcpy(tx.op.header.data(), op.header.data(), op.header_len);
  tx.op.header_len = op.header_len;
  tx.op.marker = op.marker;
  tx.op.placeable = op.placeable;
  Trailer t{0, 0, p.next_xmit, 0};
  p.next_xmit = next_seq(p.next_xmit);
  if (!op.placeable) {
    t.seq = p.next_seq;
    p.next_seq = next_seq(p.next_seq);
  }
  append_trailer(tx.op, t);
  tx.peer = peer;
  tx.xmit = t.xmit;
  const bool copied = op.payload_len <= kCopyLimit;
  if (copied) {
    if (op.layout == nullptr) [[likely]] {
      tx.copy.assign(op.payload, op.payload + op.payload_len);
    } else {
      tx.copy.resize(op.payload_len);
      base::gather(*op.layout, op.layout_offset, tx.copy);  // the copy kept for a resend is the packed one
    }
    tx.op.payload = tx.copy.data();
    tx.op.layout = nullptr;
  } else {
    tx.op.payload = op.payload;
    tx.op.layout = op.layout;
    tx.op.layout_offset = op.layout_offset;
    tx.parent = &op;
    op.parts_pending = 1;
  }
  tx.op.payload_len = op.payload_len;
  p.unacked.push(&tx);
  send_tx(peer, p, tx, lane);
  return copied ? device::SendResult::done : device::SendResult::queued;
}

device::SendResult Scheduler::send_tx(int peer, PeerRails& p, TxOp& tx, int lane) {
  const Lane& l = p.lanes[static_cast<std::size_t>(lane)];
  tx.lane = l.channel;
  update_ack(tx.op, p.receipts.cumulative());
  p.owed_frames = 0;
  p.owed_bytes = 0;
  Channel& c = channels_[static_cast<std::size_t>(l.channel)];
  ++c.stats.frames;
  c.stats.bytes += tx.op.payload_len;
  tx.in_channel = true;
  const device::SendResult r = c.device->send(peer, tx.op);
  if (r == device::SendResult::done) {
    tx.in_channel = false;
    tx.metered = false;  // the socket took it at once: tells nothing about the wire
  }
  return r;
}

device::SendResult Scheduler::send_striped(int peer, PeerRails& p, device::SendOp& op) {
  int in_service[kMaxLanes];
  std::size_t n = 0;
  for (std::size_t i = 0; i < p.lanes.size(); ++i)
    if (p.lanes[i].in_service) in_service[n++] = int(i);
  double weights[kMaxLanes];
  std::size_t sizes[kMaxLanes];
  for (std::size_t i = 0; i < n; ++i)
    weights[i] = channels_[static_cast<std::size_t>(p.lanes[static_cast<std::size_t>(in_service[i])].channel)]
                     .meter.bytes_per_second();
  split_stripe(op.payload_len, std::span<const double>(weights, n), std::span<std::size_t>(sizes, n));

  const auto now = Clock::now();
  op.parts_pending = 1;  // held until every part is handed over
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) continue;
    TxOp& tx = *tx_op();
    tx.parent = &op;
    tx.peer = peer;
    std::memcpy(tx.op.header.data(), op.header.data(), op.header_len);
    tx.op.header_len = op.header_len;
    tx.op.marker = op.marker;
    tx.op.placeable = true;
    tx.xmit = p.next_xmit;
    p.next_xmit = next_seq(p.next_xmit);
    append_trailer(tx.op, Trailer{0, static_cast<std::uint32_t>(offset), tx.xmit, 0});
    if (op.layout == nullptr) {
      tx.op.payload = op.payload + offset;
    } else {  // the part's runs are gathered by its channel
      tx.op.layout = op.layout;
      tx.op.layout_offset = op.layout_offset + offset;
    }
    tx.op.payload_len = sizes[i];
    ++channels_[static_cast<std::size_t>(p.lanes[static_cast<std::size_t>(in_service[i])].channel)].stats.parts;
    ++op.parts_pending;
    p.unacked.push(&tx);
    tx.start = now;
    tx.metered = true;
    send_tx(peer, p, tx, in_service[i]);
    offset += sizes[i];
  }
  // Every part is acknowledged later: the caller's op finishes then.
  --op.parts_pending;
  return device::SendResult::queued;
}

TxOp* Scheduler::tx_op() {
  TxOp* tx = tx_ops_.take([this](TxOp& t) {
    t.scheduler = this;
    t.op.owner = &t;
    t.op.on_done = &Scheduler::on_tx_done;
  });
  tx->op.header_len = 0;
  tx->op.payload = nullptr;
  tx->op.layout = nullptr;
  tx->op.layout_offset = 0;
  tx->parent = nullptr;
  tx->in_channel = false;
  tx->acked = false;
  tx->resend = false;
  tx->metered = false;
  return tx;
}

void Scheduler::release(TxOp* tx) {
  device::SendOp* parent = tx->parent;
  tx->parent = nullptr;
  tx_ops_.give(tx);
  if (parent != nullptr && --parent->parts_pending == 0 && parent->on_done != nullptr) parent->on_done(*parent);
}

void Scheduler::on_tx_done(device::SendOp& op) {
  auto* tx = static_cast<TxOp*>(op.owner);
  Scheduler& s = *static_cast<Scheduler*>(tx->scheduler);
  tx->in_channel = false;
  if (tx->metered) {
    // The part waited in the channel's queue: its time to drain measures the channel, unless
    // the channel gave it back unsent because its connection failed.
    tx->metered = false;
    auto& c = s.channels_[static_cast<std::size_t>(tx->lane)];
    const std::chrono::duration<double> took = Clock::now() - tx->start;
    if (c.device->connected(tx->peer)) c.meter.sample(op.payload_len, took.count());
  }
  if (tx->acked) {
    s.release(tx);
    return;
  }
  if (tx->resend) s.resend(s.peers_[static_cast<std::size_t>(tx->peer)], tx);
}

void Scheduler::resend(PeerRails& p, TxOp* tx) {
  tx->resend = false;
  const int lane = pick(p, p.rotate++ % p.lanes.size());
  if (lane < 0) return;  // no channel left: the peer is reported failed
  send_tx(tx->peer, p, *tx, lane);
}

void Scheduler::send_ack(int peer, PeerRails& p) {
  if (p.ack_busy || p.failure_reported) return;
  // On the bound channel (the one both directions of the pair share), else the next in service.
  const int lane = pick(p, p.bound);
  if (lane < 0) return;
  make_control(p.ack_op, p.receipts.cumulative());
  p.owed_frames = 0;
  p.owed_bytes = 0;
  Channel& c = channels_[static_cast<std::size_t>(p.lanes[static_cast<std::size_t>(lane)].channel)];
  p.ack_busy = c.device->send(peer, p.ack_op) == device::SendResult::queued;
}

void Scheduler::owe_ack(int peer, PeerRails& p) {
  if (!p.ack_due) {
    p.ack_due = true;
    ack_due_.push_back(peer);
  }
  ++p.owed_frames;
}

void Scheduler::on_ack_done(device::SendOp& op) { static_cast<PeerRails*>(op.owner)->ack_busy = false; }

void Scheduler::on_probe_done(device::SendOp& op) { static_cast<Lane*>(op.owner)->probe_busy = false; }

void Scheduler::on_notice_done(device::SendOp& op) { static_cast<Lane*>(op.owner)->notice_busy = false; }

// ---- receiving ----

void Scheduler::on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload,
                         device::ReadHint hint) {
  Scheduler& s = *static_cast<Tap*>(ctx)->scheduler;
  PeerRails& p = s.peers_[static_cast<std::size_t>(peer)];
  const device::FrameHandler& up = s.upper_;
  if (p.lanes.empty()) {  // a peer with one channel: no trailer
    up.on_frame(up.ctx, peer, header, payload, hint);
    return;
  }
  const int lane = s.lane_index(p, static_cast<Tap*>(ctx)->channel);
  if (lane >= 0) ++p.lanes[static_cast<std::size_t>(lane)].rx;
  const Trailer t = read_trailer(header);
  p.unacked.ack(t.ack, [&](TxOp* tx) {
    tx->acked = true;
    if (!tx->in_channel) s.release(tx);
  });
  if (t.xmit == 0) {  // control frame
    if (t.seq == kControlLaneDown) s.on_peer_lane_down(peer, p, t.part_offset);
    return;
  }
  if (!p.receipts.accept(t.xmit)) {
    // A duplicate (resent after a channel failure): our acknowledgement of it may have been lost
    // with the channel, so one is owed again.
    s.owe_ack(peer, p);
    return;
  }
  s.owe_ack(peer, p);
  p.owed_bytes += payload.size();
  if (p.owed_frames >= kAckFrames || p.owed_bytes >= kAckBytes) s.send_ack(peer, p);
  if (t.seq == 0) {
    up.on_frame_part(up.ctx, peer, header, t.part_offset, payload);
    return;
  }
  p.reorder.push(t.seq, header, payload, [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
    // A frame held back for order is a copy in this process: read in any order.
    up.on_frame(up.ctx, peer, h, pl, device::ReadHint::any);
  });
}

void Scheduler::on_failed(void* ctx, int peer, std::string_view why) {
  const Tap& tap = *static_cast<Tap*>(ctx);
  Scheduler& s = *tap.scheduler;
  PeerRails& p = s.peers_[static_cast<std::size_t>(peer)];
  const int lane = s.lane_index(p, tap.channel);
  if (lane < 0) {  // a peer with one channel
    if (s.upper_.on_peer_failed != nullptr) s.upper_.on_peer_failed(s.upper_.ctx, peer, why);
    return;
  }
  s.lane_failed(peer, p, lane, why);
}

bool Scheduler::take_out(int peer, PeerRails& p, int lane, std::string_view why) {
  Lane& l = p.lanes[static_cast<std::size_t>(lane)];
  l.in_service = false;
  l.why = std::string(why);
  l.backoff = kFirstRetry;
  l.retry_at = Clock::now() + kFirstRetry;
  if (pick(p, 0) >= 0) return true;
  if (p.failure_reported) return false;
  p.failure_reported = true;
  std::string text = "every rail to rank " + std::to_string(peer) + " failed:";
  for (const Lane& each : p.lanes)
    text += " channel " + std::to_string(each.channel) + " (" + channels_[static_cast<std::size_t>(each.channel)].where +
            "): " + each.why + ";";
  text.pop_back();
  if (upper_.on_peer_failed != nullptr) upper_.on_peer_failed(upper_.ctx, peer, text);
  return false;
}

void Scheduler::lane_failed(int peer, PeerRails& p, int lane, std::string_view why) {
  Lane& l = p.lanes[static_cast<std::size_t>(lane)];
  if (!l.in_service) return;  // a reconnection attempt that failed
  Channel& c = channels_[static_cast<std::size_t>(l.channel)];
  ++c.stats.failures;
  if (!take_out(peer, p, lane, why)) return;
  base::log_info("rails: channel %d (%s) to rank %d out of service: %s", l.channel, c.where.c_str(), peer,
                    l.why.c_str());
  // Acknowledgements that went on it may be lost: one is owed on the others.
  owe_ack(peer, p);
  // Resend what went on it and is not acknowledged; frames the channel still holds are resent
  // when it gives them back.
  std::vector<TxOp*> lost;
  lost.swap(scratch_);
  p.unacked.on_lane(l.channel, lost);
  c.stats.retransmits += lost.size();
  for (TxOp* tx : lost) {
    if (tx->in_channel) tx->resend = true;
    else resend(p, tx);
  }
  lost.swap(scratch_);
}

// ---- link events ----

void Scheduler::channel_down(int c, std::string_view why) {
  if (link_down_[static_cast<std::size_t>(c)]) return;
  link_down_[static_cast<std::size_t>(c)] = 1;
  Channel& ch = channels_[static_cast<std::size_t>(c)];
  base::log_info("rails: channel %d (%s): %.*s", c, ch.where.c_str(), int(why.size()), why.data());
  for (int peer : rail_peers_) {
    PeerRails& p = peers_[static_cast<std::size_t>(peer)];
    const int lane = lane_index(p, c);
    if (lane < 0 || p.failure_reported) continue;
    Lane& l = p.lanes[static_cast<std::size_t>(lane)];
    if (!l.in_service) {
      // Failed before and reconnecting: an attempt under way cannot get through any more.
      l.reconnect_on_up = true;
      if (l.probe_busy) ch.device->abandon(peer, std::string(why));
      continue;
    }
    if (!ch.device->in_use(peer)) {
      // Never used toward this peer: nothing to fail, resend or announce; back when it is up.
      l.reconnect_on_up = false;
      take_out(peer, p, lane, why);
      continue;
    }
    l.reconnect_on_up = true;
    ch.device->abandon(peer, std::string(why));
    announce_down(peer, p, lane);  // before the resends, which queue behind it
    lane_failed(peer, p, lane, why);
  }
}

void Scheduler::channel_up(int c) {
  if (!link_down_[static_cast<std::size_t>(c)]) return;
  link_down_[static_cast<std::size_t>(c)] = 0;
  base::log_info("rails: channel %d (%s): interface usable again", c, channels_[static_cast<std::size_t>(c)].where.c_str());
  const auto now = Clock::now();
  for (int peer : rail_peers_) {
    PeerRails& p = peers_[static_cast<std::size_t>(peer)];
    const int lane = lane_index(p, c);
    if (lane < 0 || p.failure_reported) continue;
    Lane& l = p.lanes[static_cast<std::size_t>(lane)];
    if (l.in_service) continue;
    if (!l.reconnect_on_up) {
      l.in_service = true;  // never connected: the next send connects
      continue;
    }
    l.retry_at = now;  // reconnect at the next check, without back-off
    l.backoff = kFirstRetry;
  }
  next_check_ = now;
}

void Scheduler::announce_down(int peer, PeerRails& p, int lane) {
  Lane& l = p.lanes[static_cast<std::size_t>(lane)];
  if (l.notice_busy) {  // an earlier notice still queued: this one follows it
    l.notice_due = true;
    return;
  }
  // Any other channel in service, the bound one first.
  int via = pick(p, p.bound);
  if (via == lane) via = pick(p, static_cast<std::size_t>(lane) + 1);
  if (via < 0 || via == lane) return;  // no other channel: the peer is reported failed
  l.notice_due = false;
  make_control(l.notice, p.receipts.cumulative(), kControlLaneDown, static_cast<std::uint32_t>(l.channel));
  Channel& c = channels_[static_cast<std::size_t>(p.lanes[static_cast<std::size_t>(via)].channel)];
  l.notice_busy = c.device->send(peer, l.notice) == device::SendResult::queued;
}

void Scheduler::on_peer_lane_down(int peer, PeerRails& p, std::uint32_t remote) {
  for (std::size_t i = 0; i < p.lanes.size(); ++i) {
    Lane& l = p.lanes[i];
    if (l.remote != static_cast<int>(remote)) continue;
    l.peer_down = true;  // the peer reconnects when its interface is back
    auto& device = *channels_[static_cast<std::size_t>(l.channel)].device;
    const std::string why = "rank " + std::to_string(peer) + " announced its end of this rail down";
    if (!l.in_service) {
      if (l.probe_busy) device.abandon(peer, why);
      continue;
    }
    device.abandon(peer, why);
    lane_failed(peer, p, int(i), why);
  }
}

// ---- progress ----

int Scheduler::tick(bool idle) {
  int events = 0;
  if (!idle && ++ticks_ % kTicksPerClock != 0) return 0;
  for (std::size_t i = 0; i < ack_due_.size();) {
    PeerRails& p = peers_[static_cast<std::size_t>(ack_due_[i])];
    if (p.owed_frames > 0) send_ack(ack_due_[i], p);
    if (p.owed_frames == 0) {
      p.ack_due = false;
      ack_due_[i] = ack_due_.back();
      ack_due_.pop_back();
      ++events;
    } else {
      ++i;
    }
  }
  const auto now = Clock::now();
  if (now >= next_check_) {
    next_check_ = now + kCheckEvery;
    check_lanes(now);
  }
  return events;
}

void Scheduler::check_lanes(Clock::time_point now) {
  for (int peer : rail_peers_) {
    PeerRails& p = peers_[static_cast<std::size_t>(peer)];
    if (p.failure_reported) continue;
    for (Lane& l : p.lanes)
      if (l.rx != l.rx_seen) {
        l.rx_seen = l.rx;
        l.last_rx = now;
      }
    // The last channel in service to the peer gets the whole timeout: declaring it dead fails
    // the job, and a pause of the peer's host (all its channels silent) must not. Others get a
    // quarter of it: a wrong guess there costs one reconnection, and a real failure is over
    // sooner (one silent channel among live ones is a dead path).
    const auto others_limit = std::min(timeout_, std::max(timeout_ / 4, kMinStallLimit));
    std::size_t alive = lanes_in_service(peer);  // less the ones abandoned in this round
    for (Lane& l : p.lanes) {
      auto& device = *channels_[static_cast<std::size_t>(l.channel)].device;
      if (l.in_service) {
        const auto limit = alive > 1 ? others_limit : timeout_;
        // The peer's kernel stopped acknowledging what is in flight; or frames cannot even be
        // written (a link down on this side: nothing in flight) while another channel brings
        // the peer's frames.
        if (device.stalled(peer, limit)) {
          device.abandon(peer, "no progress for " + std::to_string(limit.count()) + " ms with data in flight");
          --alive;
        } else if (device.blocked_for(peer) >= limit) {
          const bool others_progress = std::any_of(p.lanes.begin(), p.lanes.end(), [&](const Lane& o) {
            return &o != &l && o.in_service && now - o.last_rx < timeout_;
          });
          if (others_progress) {
            device.abandon(peer, "no frame written for " + std::to_string(limit.count()) +
                                     " ms while the other rails progress");
            --alive;
          }
        }
        continue;
      }
      if (device.connected(peer)) {  // reconnected (by us or by the peer): back in service
        l.in_service = true;
        l.peer_down = false;
        // Its throughput is measured afresh: parts cut short by the failure say nothing of it.
        channels_[static_cast<std::size_t>(l.channel)].meter = ThroughputMeter{};
        base::log_info("rails: channel %d (%s) to rank %d back in service", l.channel,
                       channels_[static_cast<std::size_t>(l.channel)].where.c_str(), peer);
        continue;
      }
      if (l.notice_due && !l.notice_busy) announce_down(peer, p, int(&l - p.lanes.data()));
      // Our interface is down, or the peer's is (it reconnects when it is back): no attempt.
      if (link_down_[static_cast<std::size_t>(l.channel)] || l.peer_down) continue;
      if (now < l.retry_at) continue;
      if (l.probe_busy) {
        // The attempt did not get through in time (a link down drops the SYN): start afresh.
        device.abandon(peer, "reconnection timed out");
      } else if (device.revive(peer)) {
        make_control(l.probe, p.receipts.cumulative());
        l.probe_busy = device.send(peer, l.probe) == device::SendResult::queued;
      }
      l.retry_at = now + l.backoff;
      l.backoff = std::min(l.backoff * 2, kMaxRetry);
    }
  }
}

}  // namespace railmpi::mcm::rails
