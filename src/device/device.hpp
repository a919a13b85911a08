// The device interface: the only contract between the multi-method layer and an interconnect.
//
// A device moves *frames* to peers. A frame is a small header (opaque bytes, at most
// kMaxHeader) followed by a payload (opaque bytes, at most figures().max_payload). Frames to one
// peer arrive in the order they were sent. (Above the devices, the multi-method layer keeps that
// promise across several rails, except for frames the sender marked `placeable`: those may
// arrive out of order and in parts, see SendOp and FrameHandler::on_frame_part.) A device knows nothing of MPI: no tags, no
// communicators, no requests. Peers are named by their job-wide rank (0 .. job size - 1).
//
// Back-pressure contract (one for every device):
//   send() either transmits the frame at once (returns SendResult::done: header and payload (or
//   layout) may be reused immediately, on_done is NOT called), or keeps a pointer to the SendOp and returns
//   SendResult::queued. A queued op is finished later, inside poll() (or inside a later send()),
//   and then op.on_done(op) is called exactly once. Until then the caller keeps the SendOp alive
//   and the payload unchanged. send() never blocks and never fails: a peer that cannot be reached
//   is reported through FrameHandler::on_peer_failed.
//
// Re-entrancy: on_frame and on_done may call send() on the same device (for example to answer a
//   rendezvous request). They must not call poll().
//
// Threads: a device is used by one thread at a time (the progress engine serialises calls).
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/layout.hpp"

namespace railmpi::device {

inline constexpr std::size_t kMaxHeader = 64;
// Header bytes the layer above may use: the multi-method layer appends up to
// kMaxHeader - kMaxUserHeader bytes (its rail trailer) when a peer has several rails.
inline constexpr std::size_t kMaxUserHeader = 48;

// The communication marker: what kind of operation a frame belongs to. The rail policy (epc)
// stripes blocking and collective traffic and round-robins non-blocking traffic.
enum class Marker : std::uint8_t { blocking, nonblocking, collective };

// One frame to send. Owned by the caller; intrusive, so queuing it allocates nothing.
struct SendOp {
  // The first header_len bytes are sent (left uninitialised: a request on the stack of every
  // blocking call holds one, and zeroing 64 bytes nobody reads is measurable there).
  std::array<std::byte, kMaxHeader> header;
  std::uint32_t header_len = 0;
  const std::byte* payload = nullptr;
  std::size_t payload_len = 0;
  // A gathered payload: when set, the payload is the bytes [layout_offset, layout_offset +
  // payload_len) of the layout (in its order) and `payload` is unused. The device copies the runs
  // straight from where they are (iovecs, segment-wise copies): no packed copy is made. The
  // layout and its memory stay valid and unchanged until the op is finished, like a payload.
  const base::Layout* layout = nullptr;
  std::size_t layout_offset = 0;
  void (*on_done)(SendOp&) = nullptr;  // only for ops that were queued
  void* owner = nullptr;               // for the caller's use in on_done

  // Set by the layer above for the multi-method layer's rail scheduler (devices ignore them).
  Marker marker = Marker::blocking;
  // The receiver places this frame's payload itself (the header says where): the frame needs no
  // ordering with other frames, and the payload may be cut into parts, each delivered through
  // FrameHandler::on_frame_part with the same header and the part's offset in the payload.
  bool placeable = false;

  // Multi-method layer's bookkeeping (parts of a striped frame still in flight).
  std::uint32_t parts_pending = 0;

  // Device-private bookkeeping; the caller leaves these alone.
  SendOp* next = nullptr;
  std::size_t progress = 0;
};

enum class SendResult : std::uint8_t { done, queued };

// Figures a device reports about itself; the multi-method layer chooses routes and protocol
// thresholds from them, never from the device's name.
struct Figures {
  double latency_us = 0;          // one-way small-frame latency estimate
  double bandwidth_mbs = 0;       // large-message bandwidth estimate (MB/s)
  std::size_t eager_limit = 0;    // largest payload the protocol layer should send eagerly
  // Largest payload sent eagerly in a stream: a send that follows one to the same peer with no
  // message from it in between (osu_bw's window); the eager_limit's is then a lone message (a
  // ping-pong, latency-bound). At most eager_limit counts as eager_limit.
  std::size_t stream_eager_limit = 0;
  // Largest payload sent eagerly by a send that is not part of a stream while this rank has
  // receives posted (it exchanges: osu_bibw's window, halo swaps), where both cores copy at once
  // anyway; the eager_limit's lone message then waits for nothing else. At most eager_limit
  // counts as eager_limit.
  std::size_t exchange_eager_limit = 0;
  std::size_t max_payload = 0;    // largest payload of one frame
  std::size_t packet_bytes = SIZE_MAX;  // preferred payload of rendezvous data packets (capped by max_payload)
  bool single_copy = false;       // read_remote() is available for this device's peers
  // Smallest rendezvous payload worth a single copy (when single_copy); smaller ones travel as
  // packets (the sender's and the receiver's cores copy at the same time).
  std::size_t single_copy_min = 0;
  // Smallest payload, eager sizes included, worth a single copy when a rank streams both ways: the
  // sender waits for large messages too, or the receiver streams a rendezvous message to the
  // sender (then each core copies only what comes in, once, instead of copying everything out
  // and in through the rings). SIZE_MAX: never.
  std::size_t single_copy_both_ways_min = SIZE_MAX;
  // Where the device says, now, whether its rings beat single copies for such messages of up to
  // both_ways_rings_max bytes (it measures both as they run; nullptr: never): then they go
  // through the rings instead, eager up to both_ways_rings_eager_limit and by packets above.
  const bool* both_ways_rings = nullptr;
  std::size_t both_ways_rings_max = 0;
  std::size_t both_ways_rings_eager_limit = 0;
  // Where the device says how often the sender should send such messages the other way, so that
  // it keeps measuring both: the last both_ways_explore_burst of every *both_ways_explore_every
  // (a power of two) such sends, in a row (nullptr: never).
  const unsigned* both_ways_explore_every = nullptr;
  unsigned both_ways_explore_burst = 0;
  // Smallest payload, one way, that the two cores copy together (when single_copy): the receiver
  // reads the second part with read_remote() while the sender writes the first part into the
  // receiver's buffer with write_remote(). SIZE_MAX: never.
  std::size_t shared_copy_min = SIZE_MAX;
  // Largest rendezvous payload, one way, that the receiver reads whole with one read_remote()
  // (when single_copy): below it the shared copy's extra round trip costs more than the half
  // copy it saves. 0: none.
  std::size_t single_copy_whole_max = 0;
  // Microseconds one read_remote() call of a few bytes took when the device timed it (0: not).
  double single_copy_call_us = 0;
};

// One run of a batched single copy: `local` here, as many bytes at `remote_addr` in the peer
// (Device::read_remote_runs: RemoteRun, into local; write_remote_runs: RemoteSource, from it).
struct RemoteRun {
  std::uint64_t remote_addr = 0;
  std::span<std::byte> local;
};
struct RemoteSource {
  std::uint64_t remote_addr = 0;
  std::span<const std::byte> local;
};

// How a received payload is best read, as the device knows its memory.
enum class ReadHint : std::uint8_t {
  any,       // in any order (a buffer of this process, or memory no one writes now)
  from_end,  // its writer may be writing just past its end (a shared ring's next frame): reading
             // forward pulls those lines away from the writer, so copy it from its end down
             // (base/descending_copy.hpp)
};

// Where received frames and failures go. Plain function pointers: no virtual call per frame.
struct FrameHandler {
  void* ctx = nullptr;
  // header and payload are valid only during the call.
  void (*on_frame)(void* ctx, int peer, std::span<const std::byte> header, std::span<const std::byte> payload,
                   ReadHint hint) = nullptr;
  // The peer is unreachable (connection reset, process gone). `why` names the cause (errno text).
  void (*on_peer_failed)(void* ctx, int peer, std::string_view why) = nullptr;
  // A part of a `placeable` frame, or a whole one that crossed a multi-rail route: `header` is
  // the sender's header, `payload` the bytes found at `part_offset` in the sender's payload.
  // The multi-method layer calls it, and so does the self device for a gathered placeable payload.
  void (*on_frame_part)(void* ctx, int peer, std::span<const std::byte> header, std::size_t part_offset,
                        std::span<const std::byte> payload) = nullptr;
};

// What the runtime tells a device about one peer it should serve.
struct PeerAddress {
  int rank = -1;            // job-wide rank
  int local_index = -1;     // index among the ranks of this node (shm); -1 when off node
  int pid = 0;              // process id (for single-copy reads)
  std::string address;      // what that peer's device returned from local_address()
};

// Start-up help the runtime gives a device (a job-wide barrier through PMI).
struct Bootstrap {
  void* ctx = nullptr;
  void (*barrier)(void* ctx) = nullptr;
};

class Device {
 public:
  virtual ~Device() = default;
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  virtual std::string_view name() const = 0;
  virtual Figures figures() const = 0;

  // Phase 1 of start-up: create listening sockets / segments; return this rank's address text
  // (no spaces or '=' characters) for its business card.
  virtual std::string local_address() = 0;
  // Phase 2, after every rank's card is known: the peers this device will serve (never self).
  // May call bootstrap.barrier() (every rank of the job calls connect() with the same
  // number of barriers, so a device must call it the same number of times on every rank, even
  // when it has no peers).
  virtual void connect(std::span<const PeerAddress> peers, Bootstrap bootstrap) = 0;

  virtual void set_handler(FrameHandler handler) = 0;

  virtual SendResult send(int peer, SendOp& op) = 0;

  // Delivers arrived frames, advances queued sends. Returns the number of events handled
  // (frames delivered + ops finished); 0 means nothing happened.
  virtual int poll() = 0;

  // Blocks the calling thread until a frame may have arrived or `timeout` passes. Devices that
  // cannot block return at once. Used by the progress engine after spinning.
  virtual void wait(std::chrono::microseconds timeout) = 0;

  // Single copy: reads dst.size() bytes at `remote_addr` in peer's address space. Only when
  // figures().single_copy. Returns false on failure (the caller falls back to a copy protocol).
  virtual bool read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst) {
    return false;
  }
  // Many single copies from one peer in one call: runs[i].local.size() bytes at
  // runs[i].remote_addr into runs[i].local, in order. Returns how many runs were read whole, from
  // the first (fewer than runs.size() on a failure: the caller handles the rest another way). A
  // device whose copy costs a system call makes one for many runs (per-call costs paid once).
  virtual std::size_t read_remote_runs(int peer, std::span<const RemoteRun> runs) {
    std::size_t done = 0;
    while (done < runs.size() && read_remote(peer, runs[done].remote_addr, runs[done].local)) ++done;
    return done;
  }
  // The same the other way: runs[i].local into the peer at runs[i].remote_addr.
  virtual std::size_t write_remote_runs(int peer, std::span<const RemoteSource> runs) {
    std::size_t done = 0;
    while (done < runs.size() && write_remote(peer, runs[done].remote_addr, runs[done].local)) ++done;
    return done;
  }
  // Single copy the other way: writes src into the peer's address space at `remote_addr`. Only
  // when figures().single_copy. Returns false on failure.
  virtual bool write_remote(int peer, std::uint64_t remote_addr, std::span<const std::byte> src) { return false; }
  // The general form: copies the first `bytes` bytes of the layout `remote` (addresses in the
  // peer's address space) into the layout `local` (addresses here). Either may be non-contiguous.
  virtual bool read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local,
                                  std::size_t bytes) {
    return false;
  }

  // True when no send is queued (used at finalize to flush).
  virtual bool idle() const = 0;

  // Ends all connections. After this, no failure is reported. Called after a job-wide barrier.
  virtual void shutdown() = 0;
};

}  // namespace railmpi::device
