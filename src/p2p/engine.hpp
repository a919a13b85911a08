// The point-to-point engine: protocols (eager, rendezvous with single copy or packets,
// synchronous) and matching, over the multi-method layer.
//
// Protocol choice per message, from the route's figures:
//   size <= eager_limit           -> eager frame (header + payload in one frame); a send that
//                                    streams: stream_eager_limit (a non-blocking one while an
//                                    earlier rendezvous to the peer is in flight, a window:
//                                    exchange_eager_limit), one with receives posted:
//                                    exchange_eager_limit
//   larger, route has single copy -> rts; receiver reads the sender's buffer, answers fin
//   and size >= single_copy_min      (also from single_copy_both_ways_min, eager sizes included,
//   or <= single_copy_whole_max      when either side streams both ways, unless the device says
//                                    its rings are faster now: both_ways_rings, then eager or
//                                    packets); the reads of one device pass from one peer go in
//                                    one batch (flush_copies), kReadChunk bytes a flush; a rank
//                                    done reading while its own sends wait for the peer's reads
//                                    offers help, and the peer hands it the last half of what it
//                                    has left to read, which the sender writes (see PartHeader)
//   larger, single copy, both     -> rts; receiver answers write_part, reads the second part,
//   buffers contiguous, size >=      the sender writes the first into the receiver's buffer and
//   shared_copy_min                  answers written; receiver answers fin once its part is
//                                    in (a second fin when the sender's write failed)
//   else                          -> rts; receiver answers cts; sender streams data packets of
//                                    packet_bytes (at most max_payload) straight into the user buffer
// Synchronous sends use the same paths; an eager synchronous send also waits for sync_ack.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "base/object_pool.hpp"
#include "base/short_copy.hpp"
#include "mcm/multi_method.hpp"
#include "p2p/copy_queue.hpp"
#include "p2p/matching.hpp"
#include "p2p/request.hpp"
#include "p2p/wire_header.hpp"

namespace railmpi::p2p {

// Envelope of a probed message, for status.
struct ProbeResult {
  int source = 0;
  int tag = 0;
  std::size_t bytes = 0;
};

class Engine {
 public:
  // header_cache: send repeated envelopes with a 4-byte header (RAILMPI_HEADER_CACHE).
  Engine(mcm::MultiMethod& mcm, bool header_cache);
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // What to do when a peer is lost (the runtime ends the job).
  void set_peer_failed_hook(void (*hook)(void* ctx, int peer, std::string_view why), void* ctx) {
    peer_failed_ = hook;
    peer_failed_ctx_ = ctx;
  }

  // Starts a send of `bytes` contiguous bytes to job rank `peer`. `source` is the sender's rank in
  // the communicator with context `context`. Completion is reported through r.complete. With a
  // `layout` (non-contiguous source, alive until completion) `buf` is unused and nothing is packed:
  // a receiver with single copy reads the runs directly (rendezvous, runs of a page or more);
  // otherwise the device gathers the eager frame or the data packets from the runs.
  void isend(Request& r, const void* buf, std::size_t bytes, int peer, int context, int source, int tag,
             SendMode mode, Marker marker, const base::Layout* layout = nullptr);

  // The small-message hot path of a standard or ready send of contiguous bytes: when the route
  // takes the eager frame at once (mcm::MultiMethod::try_send_now), the message is sent and
  // complete on return (true); no request is used. False: nothing was sent, use isend().
  // Always inline, as are the calls to it (api's send_now and blocking_send) and from it
  // (mcm::MultiMethod::try_send_now), and on the receive side place(), complete() and
  // handle_eager() keep only their rare cases out of line: the one-way's software path is on its
  // critical path (16 ns more in handle_eager made osu_latency 13% slower). Callgrind, osu_latency
  // 8 B: 285 -> 251 instructions an MPI_Send, 189 -> 158 a ShmDevice::receive; bench/lib_ab.sh,
  // osu_latency 0-64 B, 4 x 300 rounds, whole runs: 0.95-0.96 the time (standard error 0.01).
  [[gnu::always_inline]] bool try_send_now(const void* buf, std::size_t bytes, int peer, int context, int source,
                                           int tag) {
    const device::Figures& fig = mcm_.figures(peer);
    if (bytes > fig.eager_limit || read_now(fig, bytes)) return false;
    const std::span<const std::byte> payload(static_cast<const std::byte*>(buf), bytes);
    Envelope& last = sent_envelope_[static_cast<std::size_t>(peer)];
    const Envelope envelope{context, source, tag};
    if (header_cache_ && last == envelope) {
      const CachedHeader h{FrameKind::eager_cached, {}};
      return mcm_.try_send_now(peer, std::as_bytes(std::span(&h, 1)), payload);
    }
    WireHeader h{};
    h.kind = FrameKind::eager;
    h.context = context;
    h.source = source;
    h.tag = tag;
    h.size = bytes;
    alignas(16) std::byte header[sizeof h];
    store_wire_header(header, h);
    if (!mcm_.try_send_now(peer, header, payload)) return false;
    last = envelope;
    return true;
  }

  // Makes `r` a completed send: the message went out through try_send_now().
  void complete_sent(Request& r, Marker marker);

  // Posts a receive for (context, source rank in comm or kAnySource, tag or kAnyTag). With a
  // `layout` (non-contiguous destination, alive until completion) the bytes land in it directly
  // and `buf` is unused.
  void irecv(Request& r, void* buf, std::size_t capacity, int context, int source, int tag, Marker marker,
             const base::Layout* layout = nullptr);

  // Removes a posted, unmatched receive. Returns false if it already matched.
  bool cancel_recv(Request& r);

  // Looks for a matching unexpected message (no progress made here).
  bool probe(int context, int source, int tag, ProbeResult& out) const;
  // As probe, but takes the message out of the queue so only mrecv() can receive it.
  Unexpected* mprobe(int context, int source, int tag, ProbeResult& out);
  // Receives a message taken by mprobe().
  void mrecv(Request& r, Unexpected* message, void* buf, std::size_t capacity,
             const base::Layout* layout = nullptr);

  std::size_t unexpected_count() const { return unexpected_.size(); }

  // Single copies of rendezvous messages (a receiver's whole read or a shared copy's tail, a
  // sender's shared-copy head) wait until the device pass that asked for them ends, then go in
  // one read_remote_runs() / write_remote_runs() per peer (one system call for a window of
  // messages instead of one each: osu_bibw's 64). The progress engine calls flush_copies() after
  // each device pass while *copies_armed() is true.
  const bool* copies_armed() const { return &copies_armed_; }
  static int flush_copies(void* ctx) { return static_cast<Engine*>(ctx)->flush_copies(); }
  int flush_copies() {
    copies_armed_ = false;
    return flush_reads() + flush_writes();
  }
  // Most single copies of one kind waiting for one flush.
  static constexpr std::size_t kCopyBatch = 64;
  // Most bytes one flush reads: the rest waits for the next flush, after a device pass, so that a
  // help from the peer is answered within one such read (5-7 ms at 10-13 GB/s; an osu_bibw
  // window of 16 MiB messages takes 70-110 ms). Not less: each process_vm_readv call costs more
  // than its bytes (2 ranks on a 2-vCPU AMD EPYC guest, osu_bibw 1 MiB, 2026-12-07: a flush a
  // message spent 186 ms in read calls against 120 for a flush a window, the same bytes, and ran
  // at 25-30 GB/s against 39-42; lib_ab.sh, 6-8 rounds, against a flush of everything queued:
  // 8 MiB 0.89-0.92 the bandwidth at 1-4 MiB, 64 MiB 1.02-1.11 at 1-16 MiB).
  static constexpr std::size_t kReadChunk = std::size_t{64} << 20;
  // Smallest run handed to a peer that asked for help (a round trip of control frames, a few
  // microseconds, against about 80 us of copying).
  static constexpr std::size_t kHelpRunMin = std::size_t{1} << 20;

  // What the deferred single copies came to (RAILMPI_VERBOSE's report at MPI_Finalize).
  struct CopyCounts {
    std::uint64_t reads = 0;         // reads of whole messages or shared-copy tails, tried
    std::uint64_t read_flushes = 0;  // flushes that made them (one system call each, unless one failed)
    std::uint64_t fins_frames = 0;   // one fins frame for several reads
    std::uint64_t writes = 0;        // shared-copy heads this rank wrote as the sender, tried
    std::uint64_t write_flushes = 0;   // flushes of heads and runs (below)
    std::uint64_t helps_asked = 0;   // help frames sent (every read done, own sends still read)
    std::uint64_t runs_given = 0;    // runs of queued reads handed to the peer that asked
    std::uint64_t bytes_given = 0;
    std::uint64_t runs_written = 0;  // runs this rank wrote for the peer it asked, tried
    std::uint64_t bytes_written = 0;
  };
  const CopyCounts& copy_counts() const { return copy_counts_; }

 private:
  // A send of `bytes` that streams both ways (this rank waits for large messages too): isend()
  // offers it to the receiver's single copy, eager sizes included (Figures::single_copy_both_ways_min).
  bool read_now(const device::Figures& fig, std::size_t bytes) const {
    return bytes >= fig.single_copy_both_ways_min && fig.single_copy && posted_.large() > 0;
  }
  // Whether a send that streams both ways (read_now()) goes through the rings instead, as the
  // device says now (Figures::both_ways_rings); the last of every so many such sends take the
  // other way, in a row, as the device asks (Figures::both_ways_explore_every), so that it keeps
  // measuring both. The last, not the first: a few messages both ways (an exchange, not a
  // stream) go the way the device said before it measured (single copies).
  bool both_ways_by_rings(const device::Figures& fig, std::size_t bytes) {
    if (fig.both_ways_rings == nullptr || bytes > fig.both_ways_rings_max) return false;
    const bool rings = *fig.both_ways_rings;
    if (fig.both_ways_explore_every) {
      const unsigned every = *fig.both_ways_explore_every;
      if ((both_ways_sends_++ & (every - 1)) >= every - fig.both_ways_explore_burst) return !rings;
    }
    return rings;
  }
  unsigned both_ways_sends_ = 0;
  // Single copy of a matched rendezvous into the receive's destination; false: use cts + data.
  bool read_single_copy(Request& r, int peer, std::size_t n, std::uint64_t sender_addr,
                        std::span<const std::byte> sender_layout);
  // Copies received bytes to offset `at` of the receive's destination (buffer or layout), as the
  // device's hint says they are best read. A short copy into a buffer inline (an eager receive's
  // common case), the rest out of line.
  static void place(Request& r, std::size_t at, std::span<const std::byte> bytes,
                    device::ReadHint hint = device::ReadHint::any) {
    if (r.layout == nullptr && bytes.size() <= base::kShortCopyMax) [[likely]] {
      base::short_copy(r.buf + at, bytes.data(), bytes.size());
      return;
    }
    place_out_of_line(r, at, bytes, hint);
  }
  // place() for a layout, or for more bytes than a short copy.
  static void place_out_of_line(Request& r, std::size_t at, std::span<const std::byte> bytes,
                                device::ReadHint hint);
  static void on_frame(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload,
                       device::ReadHint hint);
  static void on_peer_failed(void* ctx, int peer, std::string_view why);
  static void on_frame_part(void* ctx, int peer, std::span<const std::byte> header, std::size_t part_offset,
                            std::span<const std::byte> payload);
  static void on_send_op_done(device::SendOp& op);
  static void on_control_done(device::SendOp& op);
  static void on_fins_done(device::SendOp& op);

  // An eager frame with this envelope (the sender's request and the sync flag matter only to
  // synchronous sends): into the first matching posted receive, else queued as unexpected.
  void handle_eager(int peer, const Envelope& env, std::uint8_t flags, std::uint64_t sender_req,
                    std::span<const std::byte> payload, device::ReadHint hint);
  void queue_eager(int peer, const Envelope& env, std::uint8_t flags, std::uint64_t sender_req,
                   std::span<const std::byte> payload, device::ReadHint hint);
  void handle_rts(int peer, const WireHeader& h, std::span<const std::byte> payload);
  void handle_cts(const WireHeader& h);
  // A data frame, or the part of one that starts `part_offset` bytes into its payload.
  void handle_data(const WireHeader& h, std::size_t part_offset, std::span<const std::byte> payload,
                   device::ReadHint hint = device::ReadHint::any);

  // Receive side of a matched rendezvous.
  // `sender_layout`: the rts payload of a non-contiguous sender (empty: contiguous at sender_addr).
  void start_rendezvous_recv(Request& r, int peer, std::size_t size, std::uint64_t sender_req,
                             std::uint64_t sender_addr, std::span<const std::byte> sender_layout,
                             std::uint8_t rts_flags = 0);
  // A matched rendezvous not read whole in one single copy: the shared copy, or cts and packets.
  void rendezvous_without_read(Request& r, int peer, std::uint64_t sender_req, std::uint64_t sender_addr);
  // Queues a read of `bytes` at `remote_addr` into r.buf + offset for flush_reads(): all of r
  // (contiguous on both sides), or the tail of a shared copy (`shared_tail`). r.offset counts the
  // bytes in (read here or written by the sender); r completes when they reach r.status_bytes.
  void defer_read(Request& r, int peer, std::uint64_t sender_req, std::uint64_t remote_addr, std::size_t offset,
                  std::size_t bytes, bool shared_tail);
  // The queued reads, the first kReadChunk bytes of them: each read to its end answers fin, each
  // refused takes another path. A rank left with none asks for help (ask_help()).
  int flush_reads();
  // Counts `bytes` of receive r in; completes it when all are.
  void part_in(Request& r, std::size_t bytes) {
    r.offset += bytes;
    if (r.offset >= r.status_bytes) complete(r);
  }
  // Sender: queues the write of `bytes` of s from `offset` (the head of a shared copy, or a run
  // handed over by the receiver) for flush_writes().
  void defer_write(Request& s, int peer, std::uint64_t receiver_req, std::uint64_t remote_addr, std::size_t offset,
                   std::size_t bytes, bool run);
  // The queued writes: each head answers written (0 bytes when refused), each run run_written.
  int flush_writes();
  // Both ways, at the end of a window (see PartHeader): this rank read everything `peer` sent it
  // and waits for `peer` to read its sends: it offers to write some of them itself.
  void ask_help(int peer);
  // The peer offers: hand it the last half of the reads queued from it (runs of kHelpRunMin or
  // more), then kPartLast.
  void handle_help(int peer);
  // The peer hands a run of one of this rank's sends over, or ends its answer.
  void handle_write_run(int peer, const PartHeader& h);
  // The run is in (or the peer could not write it: read it here).
  void handle_run_written(int peer, const PartHeader& h);
  // Receiver: answer cts, the sender streams the message in data packets.
  void stream_rendezvous(Request& r, int peer, std::uint64_t sender_req);
  // Shared single copy (Figures::shared_copy_min; see PartHeader): the receiver's side and the
  // sender's answer; the receiver counts the parts in with part_in().
  void start_shared_copy(Request& r, int peer, std::uint64_t sender_req, std::uint64_t sender_addr);
  void handle_write_part(int peer, const PartHeader& h);
  void handle_written(int peer, std::uint64_t receiver_req, std::size_t bytes);
  // Sender: push data packets until the device queues one or all are out.
  void pump_data(Request& r);
  void send_control(int peer, FrameKind kind, std::uint64_t req, std::uint64_t aux);
  // A frame of a PartHeader alone (write_part, write_run, run_written).
  void send_part(int peer, const PartHeader& h);
  void deliver_unexpected(Request& r, Unexpected* u);
  void send_event_done(Request& r);
  // Marks r complete and runs its callback; packed bytes to free or a rendezvous send to count
  // down first go out of line (release()).
  void complete(Request& r) {
    if (r.packed != nullptr || r.rendezvous_send) [[unlikely]] release(r);
    r.complete = true;
    if (r.on_complete) r.on_complete(r);
  }
  void release(Request& r);

  struct ControlOp {
    device::SendOp op;
    Engine* engine = nullptr;
  };
  ControlOp* control_op();
  // Sends c (its header set, no payload); it goes back to the pool once the device is done with it.
  void send_control_op(int peer, ControlOp* c);
  // A fins frame (wire_header.hpp) and its payload, alive until the device has sent it.
  struct FinsOp {
    device::SendOp op;
    Engine* engine = nullptr;
    std::array<std::uint64_t, kCopyBatch> reqs;
  };
  // Tells `peer` that its sends of requests `reqs` were read: one fin, or one fins frame for
  // several (a batch of single copies read in one call: osu_bibw's window, 64 fins a window each
  // way before). 2 ranks on a 2-vCPU AMD EPYC guest (2026-12-07), lib_ab.sh against a fin each,
  // 12 interleaved rounds: osu_bibw 8 KiB 20.0-21.7 GB/s against 17.3-18.5 (every round), 64 KiB
  // 42-45 against 40-42; osu_bw 4-512 KiB 1.00-1.15, 1-4 MiB 0.97-0.98 (8 rounds).
  void send_fins(int peer, std::span<const std::uint64_t> reqs);

  mcm::MultiMethod& mcm_;
  bool header_cache_;
  std::vector<Envelope> sent_envelope_;      // per peer: envelope of the last full eager/rts sent
  std::vector<Envelope> received_envelope_;  // per peer: envelope of the last full eager/rts received
  std::vector<std::uint32_t> rendezvous_sends_;  // per peer: rendezvous sends not complete yet
  // Per peer: a message (eager or rts) came from it since the last isend() to it; 0: that send
  // streams (Figures::stream_eager_limit).
  std::vector<std::uint8_t> heard_since_send_;
  struct PendingRead {
    Request* r;
    std::uint64_t sender_req;
    std::uint64_t remote_addr;
    std::size_t offset;
    std::size_t bytes;
    bool shared_tail;
    bool started;  // a flush read its first bytes (a later failure has no other path)
  };
  struct PendingWrite {
    Request* s;
    std::uint64_t receiver_req;
    std::uint64_t remote_addr;
    std::size_t offset;
    std::size_t bytes;
    bool run;  // a run handed over (write_run), not a shared copy's head
  };
  CopyQueue<PendingRead, kCopyBatch> reads_;
  CopyQueue<PendingWrite, kCopyBatch> writes_;
  bool copies_armed_ = false;
  // Per peer: whether a help is out, not answered yet (kPartLast), and whether runs were written
  // since it went out (then the answer's end offers again).
  static constexpr std::uint8_t kHelpNone = 0, kHelpAsked = 1, kHelpWrote = 2;
  std::vector<std::uint8_t> help_asked_;
  CopyCounts copy_counts_;
  PostedQueue posted_;
  UnexpectedQueue unexpected_;
  base::ObjectPool<ControlOp> control_ops_;
  base::ObjectPool<FinsOp> fins_ops_;
  void (*peer_failed_)(void*, int, std::string_view) = nullptr;
  void* peer_failed_ctx_ = nullptr;
};

}  // namespace railmpi::p2p
