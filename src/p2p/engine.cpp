#include "p2p/engine.hpp"

#include <algorithm>
#include <cstring>

#include "base/descending_copy.hpp"
#include "base/log.hpp"
#include "base/short_copy.hpp"

namespace railmpi::p2p {
namespace {

// Received bytes the device hints to read from the end (device::ReadHint::from_end) are copied
// downwards up to this size: eager payloads through the shm device's packet ring, read while
// the sender writes the next one. bench/lib_ab.sh, 2 ranks, the 2-vCPU AMD EPYC guest
// (2026-11-28), against forward copies of every payload: osu_bw 2 / 4 / 8 / 16 KiB 1.18 / 2.05 /
// 1.09 / 1.00 (10 rounds; 4 KiB 10.2 -> 20.9 GB/s, every round 19-26 against 5.7-18), 1 KiB 0.94-1.00;
// osu_bibw 1-64 KiB 0.97-1.07; osu_latency 1-64 KiB 0.91-1.03 (its packets are no stream: hinted
// any). Rendezvous packets of 32 KiB to 512 KiB read downwards too: osu_bw 1.03-1.09,
// osu_latency 256 / 512 KiB 1.09 / 1.03, so not those.
constexpr std::size_t kFromEndCopyMax = 16 * 1024;

void copy_received(std::byte* to, std::span<const std::byte> from, device::ReadHint hint) {
  if (hint == device::ReadHint::from_end && from.size() <= kFromEndCopyMax)
    base::descending_copy(to, from.data(), from.size());
  else if (!from.empty())
    std::memcpy(to, from.data(), from.size());
}

std::uint64_t id_of(const void* p) { return reinterpret_cast<std::uint64_t>(p); }
Request& request_at(std::uint64_t id) { return *reinterpret_cast<Request*>(id); }

void reset(Request& r, RequestKind kind, Marker marker) {
  r.kind = kind;
  r.complete = false;
  r.cancelled = false;
  r.truncated = false;
  r.marker = marker;
  r.layout = nullptr;
  r.packed = nullptr;
  r.waiting = 0;
  r.op_busy = false;
  r.cts_arrived = false;
  r.sending_data = false;
  r.rendezvous_send = false;
  r.total = 0;
  r.offset = 0;
  r.remote_req = 0;
  r.remote_addr = 0;
  r.shared_copy = false;
  r.message = nullptr;
  r.status_bytes = 0;
}

}  // namespace

Engine::Engine(mcm::MultiMethod& mcm, bool header_cache)
    : mcm_(mcm),
      header_cache_(header_cache),
      sent_envelope_(static_cast<std::size_t>(mcm.job_size())),
      received_envelope_(static_cast<std::size_t>(mcm.job_size())),
      rendezvous_sends_(static_cast<std::size_t>(mcm.job_size())),
      heard_since_send_(static_cast<std::size_t>(mcm.job_size()), 1),
      help_asked_(static_cast<std::size_t>(mcm.job_size())) {
  mcm_.set_handler({.ctx = this,
                    .on_frame = &Engine::on_frame,
                    .on_peer_failed = &Engine::on_peer_failed,
                    .on_frame_part = &Engine::on_frame_part});
}

// ---- sending ----

void Engine::isend(Request& r, const void* buf, std::size_t bytes, int peer, int context, int source, int tag,
                   SendMode mode, Marker marker, const base::Layout* layout) {
  reset(r, RequestKind::send, marker);
  r.context = context;
  r.source = source;
  r.tag = tag;
  r.peer = peer;
  r.buf = static_cast<std::byte*>(const_cast<void*>(buf));
  r.bytes = bytes;
  r.total = bytes;
  r.op.owner = &r;
  r.owner_engine = this;
  r.op.on_done = &Engine::on_send_op_done;
  r.op.marker = marker;
  r.op.placeable = false;

  const device::Figures& fig = mcm_.figures(peer);
  // Both ways: this rank waits for large messages while it sends one (osu_bibw, exchanges, shifts).
  // Then a single copy by the receiver's core beats copying the message out here and in there,
  // from single_copy_both_ways_min on, eager sizes included: the rts says so (kFlagReadNow).
  // Contiguous messages only (a layout's runs may be too short to be read).
  // A send that follows one to the same peer with no message from it in between streams: eager
  // up to the stream limit (a blocking send goes on at once, without a round trip per message);
  // above it, a rendezvous as for a lone message (a window's reads and shared copies go in
  // batches). A non-blocking one while an earlier rendezvous send to the peer is in flight joins
  // a window (osu_bw's Isends): eager only up to the exchange limit (2 ranks, osu_bw 16 KiB, 6
  // interleaved runs: read by the receiver with the window's other messages in one call
  // 1.04-1.55x eager, median 1.23; a blocking send would wait for its read, and stays eager), and
  // from the shared copy's minimum on copied by both cores, not read whole by the receiver alone
  // (kFlagWindow; osu_bw 16 KiB, lib_ab.sh, medians of 9 interleaved rounds, 2026-11-27:
  // 1.20 and 1.22x the whole read, which ran at 12.6-16.7 GB/s against 16.9-18.8; osu_alltoall
  // 16 KiB on 4 ranks 0.67 and 1.06x the time in two runs). Else, with receives posted, this rank
  // exchanges: eager up to the exchange limit; else it is a lone message, eager up to the eager
  // limit (its latency: 20000 B 5.2 us eager, 2.3 by the shared copy).
  std::uint8_t& heard = heard_since_send_[static_cast<std::size_t>(peer)];
  const bool stream = !heard;
  const bool window = marker == Marker::nonblocking && rendezvous_sends_[static_cast<std::size_t>(peer)] > 0;
  const std::size_t eager_max = stream && !window ? std::max(fig.eager_limit, fig.stream_eager_limit)
                                : stream || !posted_.empty() ? std::max(fig.eager_limit, fig.exchange_eager_limit)
                                                             : fig.eager_limit;
  heard = 0;
  // The rts asks the receiver to read the message whole at once (kFlagReadNow), unless the
  // device's rings move such messages faster now: then eager up to the rings' limit for them, and
  // above it a rendezvous by packets (no single copy offered).
  const bool both_ways = layout == nullptr && fig.single_copy && read_now(fig, bytes);
  const bool by_rings = both_ways && both_ways_by_rings(fig, bytes);
  const bool read_whole = both_ways && !by_rings;
  const bool eager = bytes <= (by_rings ? std::max(eager_max, fig.both_ways_rings_eager_limit) : eager_max) && !read_whole;
  // A rendezvous the receiver may read itself (start_rendezvous_recv() decides); else it answers
  // cts and the sender streams packets.
  const bool single_copy =
      !eager && !by_rings && fig.single_copy &&
      (read_whole || bytes <= fig.single_copy_whole_max ||
       bytes >= std::min({fig.single_copy_min, fig.single_copy_both_ways_min, fig.shared_copy_min}));
  if (layout) [[unlikely]] {
    // No pack on either side: eager frames and data packets are gathered by the device from the
    // runs (SendOp::layout), or the receiver reads the runs itself (single copy, described in
    // the rts).
    r.layout = layout;
    r.buf = nullptr;
    if (single_copy && layout->blocks.size() <= kMaxLayoutBlocks &&
        layout->mean_run() >= kMinSingleCopyRun) {
      const std::size_t n = layout->blocks.size();
      r.packed = new std::byte[sizeof(LayoutWire) + n * sizeof(base::Strided)];
      const LayoutWire w{reinterpret_cast<std::uint64_t>(layout->base), layout->repeat,
                         static_cast<std::int64_t>(layout->extent), layout->bytes_per_copy, n};
      std::memcpy(r.packed, &w, sizeof w);
      std::memcpy(r.packed + sizeof w, layout->blocks.data(), n * sizeof(base::Strided));
    }
  }
  const Envelope envelope{context, source, tag};
  Envelope& last = sent_envelope_[static_cast<std::size_t>(peer)];
  if (eager && header_cache_ && mode != SendMode::synchronous && last == envelope) {
    // Repeated envelope: a 4-byte header instead of 40 (more payload fits in the first cell).
    const CachedHeader ch{FrameKind::eager_cached, {}};
    std::memcpy(r.op.header.data(), &ch, sizeof ch);
    r.op.header_len = sizeof ch;
    r.op.payload = r.buf;
    r.op.payload_len = bytes;
    r.op.layout = r.layout;
    r.op.layout_offset = 0;
    r.waiting = 1;
  } else {
    WireHeader h{};
    h.context = context;
    h.source = source;
    h.tag = tag;
    h.size = bytes;
    h.req = id_of(&r);
    if (eager) {
      h.kind = FrameKind::eager;
      h.flags = mode == SendMode::synchronous ? kFlagSync : 0;
      r.op.payload = r.buf;
      r.op.payload_len = bytes;
      r.op.layout = r.layout;
      r.op.layout_offset = 0;
      r.waiting = mode == SendMode::synchronous ? 2 : 1;  // frame out (+ sync_ack)
    } else {
      h.kind = FrameKind::rts;
      h.flags = read_whole ? kFlagReadNow : window && !layout && bytes >= fig.shared_copy_min ? kFlagWindow : 0;
      h.aux = single_copy ? id_of(r.buf) : 0;  // 0: answer cts (also a layout: not one buffer)
      r.op.payload = nullptr;
      r.op.payload_len = 0;
      r.op.layout = nullptr;
      if (r.packed) {
        h.flags |= kFlagLayout;
        r.op.payload = r.packed;
        r.op.payload_len = sizeof(LayoutWire) + r.layout->blocks.size() * sizeof(base::Strided);
      }
      r.waiting = 2;  // rts out + (fin, or last data packet out)
      r.rendezvous_send = true;
      ++rendezvous_sends_[static_cast<std::size_t>(peer)];
    }
    put_header(r.op, h);
    last = envelope;
  }
  r.op_busy = true;
  if (mcm_.send(peer, r.op) == device::SendResult::done) {
    r.op_busy = false;
    send_event_done(r);
  }
}

void Engine::complete_sent(Request& r, Marker marker) {
  reset(r, RequestKind::send, marker);
  r.owner_engine = this;
  complete(r);
}

void Engine::on_send_op_done(device::SendOp& op) {
  Request& r = *static_cast<Request*>(op.owner);
  r.op_busy = false;
  Engine& e = *static_cast<Engine*>(r.owner_engine);
  if (!r.sending_data) {
    // The eager frame or the rts has left.
    const bool start_data = r.cts_arrived;
    e.send_event_done(r);
    if (start_data) {
      r.sending_data = true;
      e.pump_data(r);
    }
    return;
  }
  e.pump_data(r);
}

void Engine::pump_data(Request& r) {
  const device::Figures& fig = mcm_.figures(r.peer);
  const std::size_t packet = std::min(fig.packet_bytes, fig.max_payload);
  r.op.layout = r.layout;  // a layout's packets are gathered from its runs by the device
  while (r.offset < r.total) {
    const std::size_t n = std::min(packet, r.total - r.offset);
    WireHeader h{};
    h.kind = FrameKind::data;
    h.req = r.remote_req;
    h.aux = r.offset;
    put_header(r.op, h);
    r.op.payload = r.layout ? nullptr : r.buf + r.offset;
    r.op.layout_offset = r.offset;
    r.op.payload_len = n;
    r.op.placeable = true;  // the receiver places it by its offset: the mcm may stripe it
    r.offset += n;
    r.op_busy = true;
    if (mcm_.send(r.peer, r.op) == device::SendResult::queued) return;
    r.op_busy = false;
  }
  send_event_done(r);
}

void Engine::send_event_done(Request& r) {
  if (--r.waiting == 0) complete(r);
}

void Engine::release(Request& r) {
  if (r.packed) {
    delete[] r.packed;
    r.packed = nullptr;
  }
  if (r.rendezvous_send) {
    r.rendezvous_send = false;
    --rendezvous_sends_[static_cast<std::size_t>(r.peer)];
  }
}

Engine::ControlOp* Engine::control_op() {
  return control_ops_.take([this](ControlOp& c) {
    c.engine = this;
    c.op.owner = &c;
    c.op.on_done = &Engine::on_control_done;
  });
}

void Engine::on_control_done(device::SendOp& op) {
  auto* c = static_cast<ControlOp*>(op.owner);
  c->engine->control_ops_.give(c);
}

void Engine::on_fins_done(device::SendOp& op) {
  auto* f = static_cast<FinsOp*>(op.owner);
  f->engine->fins_ops_.give(f);
}

void Engine::send_control(int peer, FrameKind kind, std::uint64_t req, std::uint64_t aux) {
  WireHeader h{};
  h.kind = kind;
  h.req = req;
  h.aux = aux;
  ControlOp* c = control_op();
  put_header(c->op, h);
  send_control_op(peer, c);
}

void Engine::send_fins(int peer, std::span<const std::uint64_t> reqs) {
  if (reqs.empty()) return;
  if (reqs.size() == 1) {
    send_control(peer, FrameKind::fin, reqs[0], 0);
    return;
  }
  FinsOp* f = fins_ops_.take([this](FinsOp& n) {
    n.engine = this;
    n.op.owner = &n;
    n.op.on_done = &Engine::on_fins_done;
  });
  std::copy(reqs.begin(), reqs.end(), f->reqs.begin());
  WireHeader h{};
  h.kind = FrameKind::fins;
  h.size = reqs.size();
  put_header(f->op, h);
  f->op.payload = reinterpret_cast<const std::byte*>(f->reqs.data());
  f->op.payload_len = reqs.size() * sizeof(std::uint64_t);
  ++copy_counts_.fins_frames;
  if (mcm_.send(peer, f->op) == device::SendResult::done) fins_ops_.give(f);
}

void Engine::send_part(int peer, const PartHeader& h) {
  ControlOp* c = control_op();
  std::memcpy(c->op.header.data(), &h, sizeof h);
  c->op.header_len = sizeof h;
  send_control_op(peer, c);
}

void Engine::send_control_op(int peer, ControlOp* c) {
  c->op.payload = nullptr;
  c->op.payload_len = 0;
  if (mcm_.send(peer, c->op) == device::SendResult::done) control_ops_.give(c);
}

// ---- receiving ----

void Engine::irecv(Request& r, void* buf, std::size_t capacity, int context, int source, int tag, Marker marker,
                   const base::Layout* layout) {
  reset(r, RequestKind::recv, marker);
  r.layout = layout;
  r.context = context;
  r.source = source;
  r.tag = tag;
  r.buf = static_cast<std::byte*>(buf);
  r.bytes = capacity;
  if (Unexpected* u = unexpected_.find(context, source, tag)) {
    unexpected_.remove(*u);
    deliver_unexpected(r, u);
    return;
  }
  posted_.push(r);
}

bool Engine::cancel_recv(Request& r) {
  if (r.complete || !posted_.contains(r)) return false;
  posted_.remove(r);
  r.cancelled = true;
  r.status_bytes = 0;
  complete(r);
  return true;
}

bool Engine::probe(int context, int source, int tag, ProbeResult& out) const {
  const Unexpected* u = unexpected_.find(context, source, tag);
  if (!u) return false;
  out = {u->source, u->tag, u->size};
  return true;
}

Unexpected* Engine::mprobe(int context, int source, int tag, ProbeResult& out) {
  Unexpected* u = unexpected_.find(context, source, tag);
  if (!u) return nullptr;
  unexpected_.remove(*u);
  out = {u->source, u->tag, u->size};
  return u;
}

void Engine::mrecv(Request& r, Unexpected* message, void* buf, std::size_t capacity, const base::Layout* layout) {
  reset(r, RequestKind::recv, Marker::blocking);
  r.layout = layout;
  r.context = message->context;
  r.source = message->source;
  r.tag = message->tag;
  r.buf = static_cast<std::byte*>(buf);
  r.bytes = capacity;
  deliver_unexpected(r, message);
}

void Engine::deliver_unexpected(Request& r, Unexpected* u) {
  r.status_source = u->source;
  r.status_tag = u->tag;
  r.peer = u->peer;
  if (u->kind == FrameKind::eager) {
    const std::size_t n = std::min(u->size, r.bytes);
    place(r, 0, {u->data, n});
    r.truncated = u->size > r.bytes;
    r.total = u->size;
    r.status_bytes = n;
    if (u->sync) send_control(u->peer, FrameKind::sync_ack, u->sender_req, 0);
    unexpected_.release(u);
    complete(r);
    return;
  }
  start_rendezvous_recv(r, u->peer, u->size, u->sender_req, u->sender_addr, {u->data, u->data_len}, u->rts_flags);
  unexpected_.release(u);
  // Posted outside a device pass (MPI_Irecv, MPI_Mrecv): the read does not wait for the next one.
  flush_reads();
}

void Engine::start_rendezvous_recv(Request& r, int peer, std::size_t size, std::uint64_t sender_req,
                                   std::uint64_t sender_addr, std::span<const std::byte> sender_layout,
                                   std::uint8_t rts_flags) {
  r.peer = peer;
  r.total = size;
  const std::size_t n = std::min(size, r.bytes);
  r.truncated = size > r.bytes;
  r.status_bytes = n;
  const bool readable = sender_addr != 0 || !sender_layout.empty();  // else the sender gathers packets
  const device::Figures& fig = mcm_.figures(peer);
  // Read it now when it is large enough, when the sender asks (kFlagReadNow), or when this rank
  // streams a rendezvous message to the same peer (both ways: osu_bibw, exchanges): 1 MiB
  // both ways 13-14 GB/s through the rings, 19-21 GB/s by single copies; one way the rings beat
  // one reader (13-16 against 9-10 GB/s) and the shared copy below beats both.
  const bool whole = size <= fig.single_copy_whole_max && !(rts_flags & kFlagWindow);
  const bool read_now = n >= fig.single_copy_min || whole || (rts_flags & kFlagReadNow) ||
                        (n >= fig.single_copy_both_ways_min && rendezvous_sends_[static_cast<std::size_t>(peer)] > 0);
  if (readable && fig.single_copy && read_now) {
    if (sender_addr != 0 && sender_layout.empty() && !r.layout) {
      defer_read(r, peer, sender_req, sender_addr, 0, n, /*shared_tail=*/false);
      return;
    }
    if (read_single_copy(r, peer, n, sender_addr, sender_layout)) {
      send_control(peer, FrameKind::fin, sender_req, 0);
      complete(r);
      return;
    }
  }
  rendezvous_without_read(r, peer, sender_req, sender_layout.empty() ? sender_addr : 0);
}

void Engine::rendezvous_without_read(Request& r, int peer, std::uint64_t sender_req, std::uint64_t sender_addr) {
  // One way, large, both buffers contiguous: the two cores copy it together.
  const device::Figures& fig = mcm_.figures(peer);
  if (sender_addr != 0 && !r.layout && !r.truncated && fig.single_copy && r.status_bytes >= fig.shared_copy_min &&
      shared_copy_head(r.status_bytes) > 0) {
    start_shared_copy(r, peer, sender_req, sender_addr);
    return;
  }
  stream_rendezvous(r, peer, sender_req);
}

void Engine::defer_read(Request& r, int peer, std::uint64_t sender_req, std::uint64_t remote_addr,
                        std::size_t offset, std::size_t bytes, bool shared_tail) {
  if (reads_.must_flush_before(peer)) flush_reads();
  if (!shared_tail) {  // a whole read: a run of it may be handed to the sender (handle_help)
    r.offset = 0;
    r.remote_req = sender_req;
    r.remote_addr = remote_addr;
  }
  reads_.push(peer, PendingRead{&r, sender_req, remote_addr, offset, bytes, shared_tail, false});
  copies_armed_ = true;
}

int Engine::flush_reads() {
  if (reads_.empty()) return 0;
  const int peer = reads_.peer();
  // The first kReadChunk bytes, in one call: the reads of a window of messages whole, or of a
  // few MiB of large ones (the rest after the next device pass, where a help may come in).
  device::RemoteRun runs[kCopyBatch];
  std::size_t count = 0;
  std::size_t room = kReadChunk;
  while (count < reads_.size() && room > 0) {
    const PendingRead& p = reads_[count];
    const std::size_t n = std::min(p.bytes, room);
    runs[count++] = {p.remote_addr, {p.r->buf + p.offset, n}};
    room -= n;
  }
  copy_counts_.reads += count;
  ++copy_counts_.read_flushes;
  const std::size_t read = mcm_.read_remote_runs(peer, {runs, count});
  // The run the device stopped at failed; the ones after it were not tried.
  bool read_ok[kCopyBatch];
  std::size_t bytes_read = 0;
  for (std::size_t i = 0; i < count; ++i) {
    read_ok[i] = i < read || (i > read && mcm_.read_remote(peer, runs[i].remote_addr, runs[i].local));
    if (read_ok[i]) bytes_read += runs[i].local.size();
  }
  // The last run read may be the head of a larger read: it stays queued, advanced.
  std::size_t done = count;
  if (PendingRead& last = reads_[count - 1]; read_ok[count - 1] && runs[count - 1].local.size() < last.bytes) {
    const std::size_t n = runs[count - 1].local.size();
    last.remote_addr += n;
    last.offset += n;
    last.bytes -= n;
    last.started = true;
    last.r->offset += n;  // counted in; the rest of it is still queued, so r is not complete
    --done;
  }
  // Taken out first: completing a receive may post another (a collective's next round), whose
  // read queues anew.
  PendingRead batch[kCopyBatch];
  reads_.take_front(done, batch);
  if (!reads_.empty()) copies_armed_ = true;
  std::uint64_t fins[kCopyBatch];
  std::size_t fin_count = 0;
  for (std::size_t i = 0; i < done; ++i)
    if (read_ok[i]) fins[fin_count++] = batch[i].sender_req;
  // Every fin before any of the completions below, as when each went before its own.
  send_fins(peer, {fins, fin_count});
  for (std::size_t i = 0; i < done; ++i) {
    const PendingRead& p = batch[i];
    Request& r = *p.r;
    if (read_ok[i]) {
      part_in(r, runs[i].local.size());
    } else if (p.started || (!p.shared_tail && r.offset > 0)) {
      // Part of it is here, part handed over or read: the peer's memory went away mid-message.
      on_peer_failed(this, peer, "a single copy from its memory failed mid-message");
    } else if (p.shared_tail) {
      // The sender streams the whole message instead; its `written` answer comes before the data
      // (frames of one peer arrive in order) and is ignored, but for a failed write
      // (handle_written).
      stream_rendezvous(r, peer, p.sender_req);
    } else {
      rendezvous_without_read(r, peer, p.sender_req, p.remote_addr);
    }
  }
  if (bytes_read >= kHelpRunMin && reads_.empty()) ask_help(peer);
  return static_cast<int>(count);
}

void Engine::ask_help(int peer) {
  std::uint8_t& help = help_asked_[static_cast<std::size_t>(peer)];
  if (help != kHelpNone || rendezvous_sends_[static_cast<std::size_t>(peer)] == 0) return;
  help = kHelpAsked;
  ++copy_counts_.helps_asked;
  send_control(peer, FrameKind::help, 0, 0);
}

void Engine::handle_help(int peer) {
  // Half of what is left to read from the peer, from the end: both cores then finish about
  // together. Only whole reads (a shared copy's tail is half a message already).
  std::size_t left = 0;
  if (!reads_.empty() && reads_.peer() == peer)
    for (std::size_t i = 0; i < reads_.size(); ++i)
      if (!reads_[i].shared_tail) left += reads_[i].bytes;
  std::size_t give = left / 2 / 4096 * 4096;
  while (give >= kHelpRunMin && !reads_.empty() && !reads_.back().shared_tail) {
    PendingRead& p = reads_.back();
    const std::size_t n = std::min(give, p.bytes);
    const std::size_t at = p.offset + p.bytes - n;
    const PartHeader h{FrameKind::write_run, 0, {}, p.sender_req, id_of(p.r), id_of(p.r->buf + at), n, at};
    send_part(peer, h);
    ++copy_counts_.runs_given;
    copy_counts_.bytes_given += n;
    give -= n;
    p.bytes -= n;
    if (p.bytes == 0) {  // all of it handed over: this rank reads no more of it
      send_control(peer, FrameKind::fin, p.sender_req, 0);
      reads_.pop_back();
    }
  }
  const PartHeader last{FrameKind::write_run, kPartLast, {}, 0, 0, 0, 0, 0};
  send_part(peer, last);
}

void Engine::handle_write_run(int peer, const PartHeader& h) {
  if (h.flags & kPartLast) {
    // Runs written since the help went out and still nothing to read here: offer again (the
    // peer's half shrank meanwhile). Runs still queued offer again once written (flush_writes).
    std::uint8_t& help = help_asked_[static_cast<std::size_t>(peer)];
    const bool again = help == kHelpWrote && reads_.empty() && writes_.empty();
    help = kHelpNone;
    if (again) ask_help(peer);
    return;
  }
  Request& s = request_at(h.sender_req);
  if (h.offset > s.total || h.bytes > s.total - h.offset) {
    ++s.waiting;
    PartHeader echo = h;
    echo.kind = FrameKind::run_written;
    echo.flags = kPartFailed;
    send_part(peer, echo);
    return;
  }
  defer_write(s, peer, h.receiver_req, h.addr, h.offset, h.bytes, /*run=*/true);
}

void Engine::handle_run_written(int peer, const PartHeader& h) {
  Request& r = request_at(h.receiver_req);
  if (h.flags & kPartFailed) {
    // The sender waits for one more fin: read the run here first.
    if (!mcm_.read_remote(peer, r.remote_addr + h.offset, {r.buf + h.offset, h.bytes})) {
      on_peer_failed(this, peer, "a single copy from its memory failed mid-message");
      return;
    }
    send_control(peer, FrameKind::fin, h.sender_req, 0);
  }
  part_in(r, h.bytes);
}

void Engine::defer_write(Request& s, int peer, std::uint64_t receiver_req, std::uint64_t remote_addr,
                         std::size_t offset, std::size_t bytes, bool run) {
  if (writes_.must_flush_before(peer)) flush_writes();
  writes_.push(peer, PendingWrite{&s, receiver_req, remote_addr, offset, bytes, run});
  copies_armed_ = true;
}

int Engine::flush_writes() {
  PendingWrite batch[kCopyBatch];
  int peer = -1;
  const std::size_t count = writes_.take(batch, peer);
  if (count == 0) return 0;
  ++copy_counts_.write_flushes;
  device::RemoteSource runs[kCopyBatch];
  for (std::size_t i = 0; i < count; ++i)
    runs[i] = {batch[i].remote_addr, {batch[i].s->buf + batch[i].offset, batch[i].bytes}};
  const std::size_t written = mcm_.write_remote_runs(peer, {runs, count});
  bool any_run = false;
  for (std::size_t i = 0; i < count; ++i) {
    const PendingWrite& p = batch[i];
    const bool ok = i < written || (i > written && mcm_.write_remote(peer, p.remote_addr, runs[i].local));
    // A failed write keeps the buffer for one more fin: the receiver reads the part itself.
    if (!ok) ++p.s->waiting;
    if (p.run) {
      any_run = true;
      ++copy_counts_.runs_written;
      copy_counts_.bytes_written += p.bytes;
      const PartHeader h{FrameKind::run_written, ok ? std::uint8_t{0} : kPartFailed, {}, id_of(p.s), p.receiver_req,
                         p.remote_addr, p.bytes, p.offset};
      send_part(peer, h);
    } else {
      ++copy_counts_.writes;
      send_control(peer, FrameKind::written, p.receiver_req, ok ? p.bytes : 0);
    }
  }
  if (any_run) {
    std::uint8_t& help = help_asked_[static_cast<std::size_t>(peer)];
    if (help == kHelpAsked) help = kHelpWrote;  // offer again once the answer ends
    else if (reads_.empty()) ask_help(peer);
  }
  return static_cast<int>(count);
}

void Engine::stream_rendezvous(Request& r, int peer, std::uint64_t sender_req) {
  r.offset = 0;
  r.shared_copy = false;
  send_control(peer, FrameKind::cts, sender_req, id_of(&r));
}

// Receiver: asks the sender to write the head into r.buf, reads the tail meanwhile.
void Engine::start_shared_copy(Request& r, int peer, std::uint64_t sender_req, std::uint64_t sender_addr) {
  const std::size_t head = shared_copy_head(r.total);
  r.shared_copy = true;
  r.remote_req = sender_req;
  r.remote_addr = sender_addr;
  r.offset = 0;
  const PartHeader h{FrameKind::write_part, 0, {}, sender_req, id_of(&r), id_of(r.buf), head, 0};
  send_part(peer, h);
  // Once the tail is here (flush_reads), the fin goes out: the sender may complete once its own
  // write is done, without waiting for a fin after its `written` came back: one control frame
  // less on its path (the next send leaves sooner: back-to-back bcasts, osu_bw windows).
  defer_read(r, peer, sender_req, sender_addr + head, head, r.total - head, /*shared_tail=*/true);
}

// Sender: writes the head the receiver asked for (at the end of the pass, with the other heads
// asked for in it), and says how much it wrote. A failed write keeps the buffer for one more
// fin: the receiver reads the head itself.
void Engine::handle_write_part(int peer, const PartHeader& h) {
  Request& s = request_at(h.sender_req);
  if (h.bytes > s.total) {
    ++s.waiting;
    send_control(peer, FrameKind::written, h.receiver_req, 0);
    return;
  }
  defer_write(s, peer, h.receiver_req, h.addr, 0, h.bytes, /*run=*/false);
}

// Receiver: the sender wrote `bytes` of the head (0 when its write failed: read the head too, then
// send the fin the sender waits for).
void Engine::handle_written(int peer, std::uint64_t receiver_req, std::size_t bytes) {
  // The tail's read comes first, as if it had been made when write_part went out.
  flush_reads();
  Request& r = request_at(receiver_req);
  const std::size_t head = shared_copy_head(r.total);
  if (!r.shared_copy) {  // streamed instead (the tail read failed); the data follows
    if (bytes < head) send_control(peer, FrameKind::fin, r.remote_req, 0);
    return;
  }
  if (bytes < head) {
    // The sender waits for the last data packet instead of this fin when the read fails too.
    if (!mcm_.read_remote(peer, r.remote_addr + bytes, {r.buf + bytes, head - bytes})) {
      stream_rendezvous(r, peer, r.remote_req);
      return;
    }
    send_control(peer, FrameKind::fin, r.remote_req, 0);
  }
  part_in(r, head);
}

void Engine::on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload,
                      device::ReadHint hint) {
  auto& e = *static_cast<Engine*>(ctx);
  const auto kind = static_cast<FrameKind>(std::to_integer<std::uint8_t>(header[0]));
  if (kind == FrameKind::eager_cached) [[likely]] {
    e.handle_eager(peer, e.received_envelope_[static_cast<std::size_t>(peer)], 0, 0, payload, hint);
    return;
  }
  if (kind == FrameKind::write_part || kind == FrameKind::write_run || kind == FrameKind::run_written) [[unlikely]] {
    PartHeader p;
    std::memcpy(&p, header.data(), sizeof p);
    if (kind == FrameKind::write_part) e.handle_write_part(peer, p);
    else if (kind == FrameKind::write_run) e.handle_write_run(peer, p);
    else e.handle_run_written(peer, p);
    return;
  }
  WireHeader h;
  std::memcpy(&h, header.data(), sizeof h);
  switch (h.kind) {
    case FrameKind::eager: {
      Envelope& env = e.received_envelope_[static_cast<std::size_t>(peer)];
      env = {h.context, h.source, h.tag};
      e.handle_eager(peer, env, h.flags, h.req, payload, hint);
      return;
    }
    case FrameKind::rts:
      e.received_envelope_[static_cast<std::size_t>(peer)] = {h.context, h.source, h.tag};
      e.handle_rts(peer, h, payload);
      return;
    case FrameKind::eager_cached:
    case FrameKind::write_part:
    case FrameKind::write_run:
    case FrameKind::run_written: break;
    case FrameKind::help: e.handle_help(peer); return;
    case FrameKind::written: e.handle_written(peer, h.req, h.aux); return;
    case FrameKind::cts:
      e.flush_writes();  // a queued head write of this send goes before its packets
      e.handle_cts(h);
      return;
    case FrameKind::data: e.handle_data(h, 0, payload, hint); return;
    case FrameKind::fin:
      e.flush_writes();  // the send completes only once its queued head write is done
      e.send_event_done(request_at(h.req));
      return;
    case FrameKind::sync_ack: e.send_event_done(request_at(h.req)); return;
    case FrameKind::fins: {
      e.flush_writes();
      const std::size_t n = std::min<std::size_t>(h.size, payload.size() / sizeof(std::uint64_t));
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t req;
        std::memcpy(&req, payload.data() + i * sizeof req, sizeof req);
        e.send_event_done(request_at(req));
      }
      return;
    }
  }
  base::fatal("frame of unknown kind %d from rank %d", int(h.kind), peer);
}

[[gnu::always_inline]] inline void Engine::handle_eager(int peer, const Envelope& env, std::uint8_t flags,
                                                        std::uint64_t sender_req, std::span<const std::byte> payload,
                                                        device::ReadHint hint) {
  heard_since_send_[static_cast<std::size_t>(peer)] = 1;
  if (Request* r = posted_.take(env.context, env.source, env.tag)) [[likely]] {
    r->status_source = env.source;
    r->status_tag = env.tag;
    r->peer = peer;
    const std::size_t n = std::min(payload.size(), r->bytes);
    place(*r, 0, payload.first(n), hint);
    r->truncated = payload.size() > r->bytes;
    r->total = payload.size();
    r->status_bytes = n;
    if (flags & kFlagSync) [[unlikely]]
      send_control(peer, FrameKind::sync_ack, sender_req, 0);
    complete(*r);
    return;
  }
  queue_eager(peer, env, flags, sender_req, payload, hint);
}

void Engine::queue_eager(int peer, const Envelope& env, std::uint8_t flags, std::uint64_t sender_req,
                         std::span<const std::byte> payload, device::ReadHint hint) {
  Unexpected* u = unexpected_.allocate();
  u->context = env.context;
  u->source = env.source;
  u->tag = env.tag;
  u->peer = peer;
  u->kind = FrameKind::eager;
  u->sync = (flags & kFlagSync) != 0;
  u->rts_flags = 0;
  u->size = payload.size();
  u->sender_req = sender_req;
  u->data = u->room_for(payload.size());
  copy_received(u->data, payload, hint);
  unexpected_.push(*u);
}

void Engine::handle_rts(int peer, const WireHeader& h, std::span<const std::byte> payload) {
  heard_since_send_[static_cast<std::size_t>(peer)] = 1;
  if (!(h.flags & kFlagLayout)) payload = {};
  if (Request* r = posted_.take(h.context, h.source, h.tag)) {
    r->status_source = h.source;
    r->status_tag = h.tag;
    start_rendezvous_recv(*r, peer, h.size, h.req, h.aux, payload, h.flags & (kFlagReadNow | kFlagWindow));
    return;
  }
  Unexpected* u = unexpected_.allocate();
  u->context = h.context;
  u->source = h.source;
  u->tag = h.tag;
  u->peer = peer;
  u->kind = FrameKind::rts;
  u->sync = false;
  u->rts_flags = h.flags & (kFlagReadNow | kFlagWindow);
  u->size = h.size;
  u->sender_req = h.req;
  u->sender_addr = h.aux;
  u->data = nullptr;
  u->data_len = payload.size();
  if (!payload.empty()) {  // the sender's layout, kept until a receive matches
    u->data = u->room_for(payload.size());
    std::memcpy(u->data, payload.data(), payload.size());
  }
  unexpected_.push(*u);
}

void Engine::handle_cts(const WireHeader& h) {
  Request& r = request_at(h.req);
  r.remote_req = h.aux;
  r.cts_arrived = true;
  if (!r.op_busy) {  // the rts has left already; otherwise on_send_op_done starts the data
    r.sending_data = true;
    pump_data(r);
  }
}

void Engine::on_frame_part(void* ctx, int peer, std::span<const std::byte> header, std::size_t part_offset,
                           std::span<const std::byte> payload) {
  auto& e = *static_cast<Engine*>(ctx);
  WireHeader h;
  std::memcpy(&h, header.data(), sizeof h);
  if (h.kind != FrameKind::data) base::fatal("frame part of kind %d from rank %d", int(h.kind), peer);
  e.handle_data(h, part_offset, payload);
}

void Engine::handle_data(const WireHeader& h, std::size_t part_offset, std::span<const std::byte> payload,
                         device::ReadHint hint) {
  Request& r = request_at(h.req);
  const std::size_t off = h.aux + part_offset;
  if (off < r.bytes) place(r, off, payload.first(std::min(payload.size(), r.bytes - off)), hint);
  r.offset += payload.size();
  if (r.offset >= r.total) complete(r);
}

bool Engine::read_single_copy(Request& r, int peer, std::size_t n, std::uint64_t sender_addr,
                              std::span<const std::byte> sender_layout) {
  if (!r.layout && sender_layout.empty()) return mcm_.read_remote(peer, sender_addr, {r.buf, n});
  if (r.layout && sender_layout.empty() && r.layout->mean_run() < kMinSingleCopyRun) {
    // Short runs: one contiguous read and a scatter beat a read that pins a page per run.
    std::unique_ptr<std::byte[]> bounce(new std::byte[n]);
    if (!mcm_.read_remote(peer, sender_addr, {bounce.get(), n})) return false;
    base::scatter(*r.layout, 0, {bounce.get(), n});
    return true;
  }
  base::Strided local_block, remote_block;
  const base::Layout local = r.layout ? *r.layout : base::contiguous_layout(r.buf, n, local_block);
  if (sender_layout.empty()) {
    const auto remote = base::contiguous_layout(reinterpret_cast<std::byte*>(sender_addr), n, remote_block);
    return mcm_.read_remote_layout(peer, remote, local, n);
  }
  LayoutWire w;
  std::memcpy(&w, sender_layout.data(), sizeof w);
  if (w.blocks > kMaxLayoutBlocks || sender_layout.size() != sizeof w + w.blocks * sizeof(base::Strided)) return false;
  base::Strided blocks[kMaxLayoutBlocks];
  std::memcpy(blocks, sender_layout.data() + sizeof w, w.blocks * sizeof(base::Strided));
  base::Layout remote;
  remote.base = reinterpret_cast<std::byte*>(w.base);
  remote.blocks = {blocks, static_cast<std::size_t>(w.blocks)};
  remote.repeat = w.repeat;
  remote.extent = static_cast<std::ptrdiff_t>(w.extent);
  remote.bytes_per_copy = w.bytes_per_copy;
  return mcm_.read_remote_layout(peer, remote, local, n);
}

void Engine::place_out_of_line(Request& r, std::size_t at, std::span<const std::byte> bytes, device::ReadHint hint) {
  if (r.layout) {
    if (!bytes.empty()) base::scatter(*r.layout, at, bytes);
  } else {
    copy_received(r.buf + at, bytes, hint);  // more than a short copy: place() took those
  }
}

void Engine::on_peer_failed(void* ctx, int peer, std::string_view why) {
  auto& e = *static_cast<Engine*>(ctx);
  if (e.peer_failed_) e.peer_failed_(e.peer_failed_ctx_, peer, why);
  else base::fatal("lost rank %d: %.*s", peer, int(why.size()), why.data());
}

}  // namespace railmpi::p2p
