#include "mcm/rails/scheduler.hpp"

#include <cstring>
#include <string>

#include "base/log.hpp"
#include "mcm/rails/stripe.hpp"
#include "mcm/rails/trailer.hpp"

namespace railmpi::mcm::rails {

Scheduler::Scheduler(int my_rank, int job_size, Policy policy, int bind, std::size_t stripe_threshold,
                     std::vector<Channel>& channels)
    : me_(my_rank),
      policy_(policy),
      bind_(bind),
      stripe_threshold_(stripe_threshold),
      channels_(channels),
      peers_(static_cast<std::size_t>(job_size)) {
  taps_.reserve(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) taps_.push_back(Tap{this, int(c)});
}

void Scheduler::add_peer(int peer, std::vector<int> lanes) {
  if (lanes.size() > kMaxLanes) lanes.resize(kMaxLanes);
  PeerRails& p = peers_[static_cast<std::size_t>(peer)];
  const std::size_t n = lanes.size();
  p.bound = bind_ >= 0 ? static_cast<std::size_t>(bind_) % n : static_cast<std::size_t>(me_ + peer) % n;
  p.lanes = std::move(lanes);
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

// ---- sending ----

device::SendResult Scheduler::send(int peer, device::SendOp& op) {
  PeerRails& p = peers_[static_cast<std::size_t>(peer)];
  if (op.header_len > device::kMaxUserHeader)
    base::fatal("rail scheduler: header of %u bytes leaves no room for the rail trailer", op.header_len);
  const Placement where = place(policy_, op.marker, op.placeable, op.payload_len, stripe_threshold_);
  if (where == Placement::stripe) return send_striped(peer, p, op);
  const std::size_t index = where == Placement::bound ? p.bound : p.rotate++ % p.lanes.size();
  Trailer t{0, 0};
  if (!op.placeable) {
    t.seq = p.next_seq;
    p.next_seq = next_seq(p.next_seq);
  }
  return send_whole(peer, p.lanes[index], op, t);
}

device::SendResult Scheduler::send_whole(int peer, int lane, device::SendOp& op, Trailer trailer) {
  append_trailer(op, trailer);
  Channel& c = channels_[static_cast<std::size_t>(lane)];
  ++c.stats.frames;
  c.stats.bytes += op.payload_len;
  return c.device->send(peer, op);
}

device::SendResult Scheduler::send_striped(int peer, PeerRails& p, device::SendOp& op) {
  const std::size_t n = p.lanes.size();
  double weights[kMaxLanes];
  std::size_t sizes[kMaxLanes];
  for (std::size_t i = 0; i < n; ++i)
    weights[i] = channels_[static_cast<std::size_t>(p.lanes[i])].meter.bytes_per_second();
  split_stripe(op.payload_len, std::span<const double>(weights, n), std::span<std::size_t>(sizes, n));

  const auto now = std::chrono::steady_clock::now();
  op.parts_pending = 1;  // held until every part is handed over
  std::size_t offset = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (sizes[i] == 0) continue;
    PartOp* part = part_op();
    part->parent = &op;
    part->lane = p.lanes[i];
    part->start = now;
    std::memcpy(part->op.header.data(), op.header.data(), op.header_len);
    part->op.header_len = op.header_len;
    part->op.payload = op.payload + offset;
    part->op.payload_len = sizes[i];
    Channel& c = channels_[static_cast<std::size_t>(part->lane)];
    ++c.stats.parts;
    ++op.parts_pending;
    if (send_whole(peer, part->lane, part->op, Trailer{0, static_cast<std::uint32_t>(offset)}) ==
        device::SendResult::done) {
      --op.parts_pending;
      part_free_.push_back(part);
    }
    offset += sizes[i];
  }
  return --op.parts_pending == 0 ? device::SendResult::done : device::SendResult::queued;
}

Scheduler::PartOp* Scheduler::part_op() {
  if (!part_free_.empty()) {
    PartOp* part = part_free_.back();
    part_free_.pop_back();
    return part;
  }
  part_storage_.push_back(std::make_unique<PartOp>());
  PartOp* part = part_storage_.back().get();
  part->scheduler = this;
  part->op.owner = part;
  part->op.on_done = &Scheduler::on_part_done;
  part->op.placeable = true;
  return part;
}

void Scheduler::on_part_done(device::SendOp& op) {
  auto* part = static_cast<PartOp*>(op.owner);
  Scheduler& s = *part->scheduler;
  // The part waited in the channel's queue: its time to drain measures the channel.
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - part->start;
  s.channels_[static_cast<std::size_t>(part->lane)].meter.sample(op.payload_len, took.count());
  device::SendOp& parent = *part->parent;
  s.part_free_.push_back(part);
  if (--parent.parts_pending == 0 && parent.on_done != nullptr) parent.on_done(parent);
}

// ---- receiving ----

void Scheduler::on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload) {
  Scheduler& s = *static_cast<Tap*>(ctx)->scheduler;
  PeerRails& p = s.peers_[static_cast<std::size_t>(peer)];
  const device::FrameHandler& up = s.upper_;
  if (p.lanes.empty()) {  // a peer with one channel: no trailer
    up.on_frame(up.ctx, peer, header, payload);
    return;
  }
  const Trailer t = read_trailer(header);
  if (t.seq == 0) {
    up.on_frame_part(up.ctx, peer, header, t.part_offset, payload);
    return;
  }
  p.reorder.push(t.seq, header, payload, [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
    up.on_frame(up.ctx, peer, h, pl);
  });
}

void Scheduler::on_failed(void* ctx, int peer, std::string_view why) {
  const Tap& tap = *static_cast<Tap*>(ctx);
  Scheduler& s = *tap.scheduler;
  Channel& c = s.channels_[static_cast<std::size_t>(tap.channel)];
  ++c.stats.failures;
  PeerRails& p = s.peers_[static_cast<std::size_t>(peer)];
  if (p.failure_reported) return;
  p.failure_reported = true;
  const std::string text = "channel " + std::to_string(tap.channel) + " (" + c.where + "): " + std::string(why);
  if (s.upper_.on_peer_failed != nullptr) s.upper_.on_peer_failed(s.upper_.ctx, peer, text);
}

}  // namespace railmpi::mcm::rails
