// The shm device: frames between ranks of one node through per-pair shared-memory rings.
//
// Each rank owns one POSIX shared-memory segment ("/railmpi-<job>-<rank>") that holds its
// INBOUND pair channels (pair_channel.hpp: a cell ring and a packet ring), one slot per job rank (the file is sparse: only rings of node-local peers are
// ever touched), plus a control page (doorbell futex, sleeping flag, CMA probe value).
// A rank writes to peer P in the slot of P's segment indexed by its own rank.
//
// Address card (local_address()): "<segment name>:<pid>:<hex address of CMA probe word>".
// connect() maps the control page and this rank's slot of every peer segment, calls
// bootstrap.barrier() exactly once, then shm_unlink()s its own segment, so nothing is left in
// /dev/shm whatever happens later.
//
// Pair lines (pair_line.hpp): every pair of ranks also shares a line of two cache lines, in the
// first page of the lower rank's channel to the higher one. A frame the line could carry (up to
// kPairLineBytes with its header) carries kWatching: its sender looks at that line until the next
// frame from the receiver arrives, and the receiver's next such message goes there when it holds
// the line's turn (a ping-pong hands the line back and forth instead of two ring cells). Every
// poll looks at the lines of up to kWatchedPeers watched peers, every kLineTick-th poll and the
// check before sleeping at all of them.
//
// Node region (node_region.hpp): with RAILMPI_NODE_COLL_LIMIT > 0 and at least one peer, the
// lowest rank of the node creates the node's shared region before that barrier and the others map
// it after it. Each of its kNodeSlots slots has room, per member, for ten 64-byte lines and two
// cells of RAILMPI_NODE_COLL_LIMIT bytes (rounded up to 64), plus 16 more such cells and
// kNodeSmallCellBytes for 256 small cells of 256 bytes: what the node-level collectives lay out
// in a slot (coll/node_collectives.hpp).
#pragma once

#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/settings.hpp"
#include "device/device.hpp"
#include "device/shm/both_ways_costs.hpp"
#include "device/shm/node_region.hpp"
#include "device/shm/pair_channel.hpp"
#include "device/shm/pair_line.hpp"
#include "device/shm/process_barrier.hpp"
#include "device/shm/segment.hpp"

namespace railmpi::device::shm {

// Page 0 of every segment. Fields written by one side only; sleeping and doorbell on their own
// cache lines (senders read `sleeping` on every send).
struct alignas(64) SegmentControl {
  std::uint64_t magic;
  std::uint64_t ring_bytes;       // packet ring of each pair channel
  std::uint64_t cell_ring_bytes;  // cell ring of each pair channel
  std::uint64_t probe_value;  // value of the owner's CMA probe word
  std::uint32_t job_size;
  std::uint32_t pid;
  std::int32_t cpu;  // the CPU the owner is bound to, -1 when it is not (set_cpu()); accessed atomically
  // kAsleep while the owner is (about to be) in FUTEX_WAIT, with kAsleepForRoom when it has
  // frames queued (it may wait for room in a ring too); kAwaiting while it yields in a wait
  // (begin_awaiting()); 0 otherwise.
  alignas(64) std::uint32_t sleeping;
  // The doorbell value when the owner began to sleep or to await, stored before `sleeping`
  // (unanswered_chain()).
  std::uint32_t asleep_bell;
  // The job rank the owner's wait is for (begin_awaiting()), -1 when it is for any.
  std::int32_t awaited;
  alignas(64) std::uint32_t doorbell;  // futex word: senders add 1 and wake the owner
  // What the owner measured at connect() before the start-up barrier, from which every rank of
  // the node derives the same figures (connect()): whether its single copies reached every
  // peer, and its fastest call in ns. `published` (stored last, release) says they are there.
  alignas(64) std::uint32_t published;
  std::uint32_t single_copy_reaches;
  std::uint64_t single_copy_call_ns;
};
inline constexpr std::uint32_t kAsleep = 1;
inline constexpr std::uint32_t kAsleepForRoom = 2;
inline constexpr std::uint32_t kAwaiting = 4;  // senders of frames ring the doorbell without a wake
static_assert(sizeof(SegmentControl) <= 4096);

// Packet ring size when RAILMPI_SHM_RING_BYTES is empty, for `node_ranks` ranks of the job on
// this node: the rings a rank writes to the others share 8 MiB, each a power of two from 256 KiB
// to 4 MiB. Two ranks stream 4-64 KiB messages up to twice as fast through 4 MiB rings as through
// 1 MiB ones (bench/osu_bw, osu_bibw; likely because the producer then rarely writes lines the
// consumer still holds in its cache), but 8 ranks on 2 cores passing 64 KiB around a ring took
// 0.075 s with 4 MiB rings and 0.051 s with 1 MiB (bench/oversub_loop; more memory to fault in
// and to keep in the caches). Not measured between: 4 and 5 ranks get 2 MiB.
// `shm_free`: bytes free on /dev/shm. Every pair's two channels (packet ring and cell ring, at most
// twice the ring each) of the node's ranks must fit in half of it: a ring page tmpfs has no room
// for is a SIGBUS when first touched (a container's /dev/shm is often 64 MB; 8 ranks under 16 MiB
// died so). Rings shrink for it, down to kSmallestRing.
std::size_t automatic_ring_bytes(int node_ranks, std::size_t shm_free = SIZE_MAX);
inline constexpr std::size_t kSmallestRing = 16 * 1024;
// Bytes free on /dev/shm (SIZE_MAX when unknown).
std::size_t dev_shm_free();

class ShmDevice final : public Device {
 public:
  ShmDevice(int my_rank, int job_size, std::string_view job_id, const base::Settings& settings);
  ~ShmDevice() override;

  std::string_view name() const override { return "shm"; }
  Figures figures() const override;
  std::string local_address() override;
  // CPUs the ranks on this machine share (mcm::MultiMethod::machine_cpus(); by default what this
  // process alone can tell, base::machine_cpus()); set before connect(), which decides with it.
  void set_machine_cpus(unsigned cpus) { machine_cpus_ = cpus; }
  void connect(std::span<const PeerAddress> peers, Bootstrap bootstrap) override;
  void set_handler(FrameHandler handler) override { handler_ = handler; }
  SendResult send(int peer, SendOp& op) override;
  // The small-message hot path: the frame is copied into the peer's ring now and true returned,
  // or nothing happens and false returns (frames of this peer are queued, its ring is full, the
  // payload exceeds max_payload, the peer failed or is not served): then the caller uses send().
  // No SendOp, no queue, no virtual call. Frames keep their order with send()'s: a frame goes
  // out here only when nothing of that peer waits in the queue.
  [[gnu::always_inline]] bool try_send_now(int peer, std::span<const std::byte> header,
                                           std::span<const std::byte> payload) {
    const int idx = index_of_rank_[static_cast<std::size_t>(peer)];
    if (idx < 0) [[unlikely]] return false;
    Peer& p = peers_[static_cast<std::size_t>(idx)];
    if (p.qhead != nullptr || p.failed || payload.size() > max_payload_) [[unlikely]] return false;
    if (p.peer_watches && PairLineEnd::fits(header.size(), payload.size()) && p.line.free()) {
      // A release store (a plain move), as in the rings. On the Intel guest a locked store had
      // measured better (osu_latency 0-32 B, 15 rounds: 0.95-1.02x the time of a locked store
      // everywhere against 1.00-1.06x); on the 2-vCPU AMD EPYC guest the locked store is the
      // one-way's last 10 ns (rdtsc) and the release store took 0.83-1.00 the time at 0-64 B in
      // fast-handoff rounds (lib_ab.sh PHASE=1, 16 and 10 rounds; medians 0.93-0.95), 0.91-1.05
      // and 0.96-1.01 in slower ones (2026-11-28).
      p.line.post(header, payload, p.out.cell_tail(), std::memory_order_release);
      ++line_posts_;
      p.peer_watches = false;
      watch(p);
      ring_doorbell(p);
      return true;
    }
    // A message the line could carry says that this rank now watches the line (a ping-pong's).
    const bool watching = pair_line_ && PairLineEnd::fits(header.size(), payload.size());
    const std::uint8_t flags = watching ? kWatching : 0;
    const bool written =
        header.size() + payload.size() <= kCellFrameBytes
            ? p.out.try_write_cell(header, payload, std::memory_order_release, flags)
            : p.out.try_write(header.data(), static_cast<std::uint32_t>(header.size()), payload.data(),
                              payload.size(), std::memory_order_release, flags);
    if (!written) [[unlikely]] return false;
    p.peer_watches = false;
    if (watching) watch(p);
    ring_doorbell(p);
    return true;
  }
  int poll() override;
  // poll() for one peer's ring and pair line only (job rank `peer`, served here): the wait of a
  // rank its CPU mate woke, whose message is there.
  int poll_peer(int peer);
  void wait(std::chrono::microseconds timeout) override;
  // Tells the node's ranks the CPU this rank is bound to (-1: none, or no longer).
  void set_cpu(int cpu);
  // Whether `peer` (a rank this device serves) is bound to the CPU this rank is bound to.
  bool shares_cpu(int peer) const;
  // How many of the peers are bound to the CPU this rank is bound to (0 when it is not bound).
  int cpu_mates() const;
  // How many of the peers sleep in the kernel now (their `sleeping` has kAsleep), a hint read
  // without a fence. Each rank's own line says it: no word of the node that every sleep and wake
  // would take for writing (8 ranks on 2 cores, the ring of bench/oversub_loop, a shared counter
  // around each sleep: bench/lib_ab.sh 16 rounds, 0.98 the time without it).
  int peers_asleep() const;
  // Whether every peer bound to this rank's CPU (at least one) sleeps or awaits with nothing come
  // since it began to (as unanswered_chain() reads them): a yield would hand the CPU only to a
  // rank that finds nothing. A hint read without a fence.
  bool cpu_mates_idle() const;
  // How many ranks, up to `most`, wait one for the next with nothing come since they began to:
  // `peer` sleeps (wait(), end_sleep()) or awaits (begin_awaiting()) and no frame has come to it
  // since, then so does the rank it awaits, and so on. Hints read without a fence: a stale answer
  // costs a wait that begins the other way.
  int unanswered_chain(int peer, int most) const;
  // Tells senders that this rank waits for job rank `awaited` (-1: any): a frame sent to it
  // rings its doorbell (no wake while it does not sleep), which unanswered_chain() reads.
  // end_awaiting() when the wait ends or goes to sleep (the rank it awaits stays told).
  void begin_awaiting(int awaited);
  // This rank's doorbell count: rung by every frame sent to it while it awaits or sleeps.
  std::uint32_t doorbell() const {
    return segment_.valid() ? std::atomic_ref<std::uint32_t>(my_ctrl()->doorbell).load(std::memory_order_acquire) : 0;
  }
  void end_awaiting();
  // wait() for a rank whose wake is to come from a rank bound to its own CPU (shares_cpu()): no
  // process barrier before the sleep. The two never run at once, and a context switch between
  // them is a full barrier: the waker sees `sleeping`, or the sleeper sees the frame, without the
  // barrier's interrupt to every other CPU running a rank (8 ranks on 2 cores passing a token,
  // bare processes: 1.6-1.9 us a hop without it, 2.9-4.0 with it). A frame from a rank on another
  // CPU may then come without a wake: the sleep ends at the timeout.
  void wait_for_cpu_mate(std::chrono::microseconds timeout);
  // wait() in two steps, for a waiter that re-checks a condition of its own in between (a
  // node-level collective's flag): begin_sleep() marks this rank asleep and returns the doorbell
  // value to wait on; the caller publishes that it sleeps, runs the process barrier, re-checks,
  // then end_sleep() sleeps until the doorbell rings (an arrival, or wake_if_asleep() from a rank
  // that changed the condition) or the timeout; cancel_sleep() when the re-check found it.
  std::uint32_t begin_sleep();
  void end_sleep(std::uint32_t bell, std::chrono::microseconds timeout);
  void cancel_sleep();
  // Rings `peer`'s doorbell when it sleeps (after a full fence).
  void wake_if_asleep(int peer);
  bool read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst) override;
  std::size_t read_remote_runs(int peer, std::span<const RemoteRun> runs) override;
  std::size_t write_remote_runs(int peer, std::span<const RemoteSource> runs) override;
  bool write_remote(int peer, std::uint64_t remote_addr, std::span<const std::byte> src) override;
  bool read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local,
                          std::size_t bytes) override;
  bool idle() const override { return queued_ == 0; }
  void shutdown() override;

  // The node's shared region; null without one (no local peer, or RAILMPI_NODE_COLL_LIMIT=0).
  const NodeRegion* node_region() const { return node_region_.valid() ? &node_region_ : nullptr; }
  NodeRegion* node_region() { return node_region_.valid() ? &node_region_ : nullptr; }
  static constexpr int kNodeSlots = 64;
  static constexpr std::size_t kNodeSmallCellBytes = 256 * 256;
  static constexpr std::size_t kNodeMemberLineBytes = (3 + 2 * 4) * 64;

  // Times the peers rang this rank's doorbell (woke it or would have), for tests.
  std::uint32_t doorbell_rings() const {
    return std::atomic_ref<std::uint32_t>(my_ctrl()->doorbell).load(std::memory_order_relaxed);
  }
  // Messages this rank sent through pair lines (for tests and the info of a run).
  std::uint64_t line_posts() const { return line_posts_; }
  // Name of this rank's segment (for tests).
  const std::string& segment_name() const { return segment_name_; }
  // Packet ring size in force (settings rounded down to a power of two, at least 4 KiB).
  std::size_t ring_bytes() const { return ring_bytes_; }
  // Cell ring size in force (likewise, at most ring_bytes()).
  std::size_t cell_ring_bytes() const { return cell_ring_bytes_; }
  // Rendezvous packets (figures().packet_bytes) are this fraction of the packet ring: with 16 packets in
  // flight the receiver copies one while the sender fills the next ones (1 MiB ring: 64 KiB
  // packets streamed 1.2-1.5x faster than 256 KiB ones, bench/osu_bw 1-16 MiB).
  static constexpr std::size_t kPacketsPerRing = 16;
  // The first windows of a rank's packet rings, both ways (what the rank writes and what it reads),
  // are mapped at start-up while they total at most this much; a node of more ranks touches them
  // as traffic reaches them. A page tmpfs gives a ring for the first time costs its writer 2-3 us
  // and its reader a fault too, and oversubscribed each one stalls every rank waiting down the
  // line: 8 ranks on 2 cores, the ring of bench/oversub_loop (64 KiB every 10th round), 5
  // interleaved runs 0.0228-0.0247 s against 0.0248-0.0259 without (faults in the job 1208
  // against 1662). A 2-rank hello's peak RSS 3.5 -> 4.0 MB, its start-up unchanged (14 ms).
  static constexpr std::size_t kPrefaultedWindowsMax = 4 * 1024 * 1024;
  // Never a single copy: figures().single_copy_min when the ring's pipelined copy takes every size.
  static constexpr std::size_t kNoSingleCopy = SIZE_MAX;
  // figures().single_copy_both_ways_min when automatic. With one process_vm_readv per message
  // (2026-11-25), osu_bibw GB/s through the rings / by single copies: 4 KiB 10-14 / 5-7, 8 KiB
  // 14-16 / 8-12, 16 KiB 12-18 / 12-14, 32 KiB 12-20 / 15-20, 64 KiB 9-15 / 23-37: 32 KiB then.
  // The receiver now reads a pass's messages in one call (p2p::Engine::flush_reads; the call's
  // fixed cost, about 0.3 us, once per window instead of once per message): lib_ab.sh, 5
  // interleaved rounds (2026-11-26), rings / single copies forced by settings: 5120 B 0.98,
  // 6144 B 1.18, 7168 B 1.22, 8 KiB 1.31-1.35, 16 KiB 1.73-1.77.
  // Kept where a call is costly too: on a 2-vCPU AMD EPYC guest (1.5 us a call, 2026-11-28) eager
  // 8 / 16 KiB both ways ran at 1.5-1.85x the single copies in some minutes and 0.24-0.31x in
  // others (osu_bibw, lib_ab.sh and rounds classified by a bare two-process ring's bandwidth,
  // which swung 2-5 / 12-19 GB/s with it), while the single copies stayed at 9-16 / 15-20 GB/s:
  // up to kBothWaysRingsMax the device now measures both as they run (BothWaysCosts) and says
  // which way is faster (Figures::both_ways_rings).
  static constexpr std::size_t kBothWaysSingleCopyMin = 6 * 1024;
  // The automatic eager limits (RAILMPI_SHM_EAGER_LIMIT empty): kSharedCopyEagerLimit for a send
  // that is not part of a stream when the shared copy takes every message above it (a lone one
  // then kLoneEagerLimit, below), kEagerLimit for a stream (a send that follows one to the same
  // peer with no message from it between, Figures::stream_eager_limit) and when it does not. 2 ranks, lib_ab.sh, medians of 5-11 interleaved
  // rounds (2026-11-26), with lone and stream limits 16 and 32 KiB against 32 KiB (-i 20, the
  // 4 MiB ring's pages touched before the timed runs): osu_latency 24000 B 4.05 -> 2.18 us,
  // 32 KiB 4.77 -> 2.69 (Open MPI 3.3-3.5, MPICH 3.6-4.4 in the same minutes); osu_bw 16-32 KiB
  // 0.91-1.10 (noise), 20000 / 24576 B 0.99 / 1.00 (with 16 KiB for streams too: 0.72 / 0.88);
  // osu_bibw 4-128 KiB 0.96-1.05. Lone 8 KiB against 16 KiB: osu_latency 10000 / 12000 / 16384 B
  // 0.91 / 0.82 / 0.78 (16 KiB 2.84 -> 2.21 us; Open MPI 2.3-2.5), 8193 B 1.00; osu_bw 8-16 KiB
  // 0.98-0.99. Oversubscribed, an eager send completes without waiting for its receiver to get a
  // core: kEagerLimit for every send.
  static constexpr std::size_t kEagerLimit = 32 * 1024;
  static constexpr std::size_t kSharedCopyEagerLimit = 8 * 1024;
  // figures().shared_copy_min when automatic (see RAILMPI_SHM_SHARED_COPY_MIN): every rendezvous
  // above the automatic eager limit. osu_bw, 2 ranks, GB/s rings / shared copy, 3 interleaved
  // runs: 68 KiB 15.0-16.3 / 19.5-21.0, 136 KiB 16.0-16.6 / 27.1-29.8; 64 KiB eager 14.5-18 /
  // 18.3-24.0, 32 KiB eager 12.3-17.6 / 12.9-15.7. lib_ab 5 rounds, eager limit 64K against 32K
  // with this: osu_bw 64 KiB 16.3 -> 22.8 GB/s, osu_latency 64 KiB 7.7 -> 3.5 us.
  static constexpr std::size_t kSharedCopyMin = kSharedCopyEagerLimit + 1;
  // With the automatic shared copy, a lone send (no stream, no receive posted: Figures::
  // eager_limit) is eager up to kLoneEagerLimit, and a rendezvous message up to
  // kSingleCopyWholeMax is read whole by the receiver (Figures::single_copy_whole_max), one
  // process_vm_readv instead of the shared copy's extra round trip; sends while receives are
  // posted keep kSharedCopyEagerLimit (Figures::exchange_eager_limit). 2 ranks, lib_ab.sh,
  // osu_latency -i 20, medians of 5 interleaved rounds (2026-11-26) against the lone 8 KiB
  // limit and the shared copy above: 6144 B 0.99, 7168 B 0.88, 8192 B 0.79 (1.84 -> 1.45 us),
  // 12000 B 0.86, 16384 B 0.94. osu_bibw with the lone limit for its sends too (rendezvous
  // read whole): 6400 / 7168 / 8192 B 0.93 / 0.97 / 0.97, hence the exchange limit.
  static constexpr std::size_t kLoneEagerLimit = 6 * 1024;
  // A process_vm_readv call of 8 bytes (the fastest of kSingleCopyCallTimings at connect(), about
  // 10 us in all, or RAILMPI_SHM_CMA_CALL_NS; a call that fails counts as costly) at or above
  // this makes a lone message eager up to kStreamEagerLimit instead of kLoneEagerLimit. The
  // limits above were measured where a call cost about 0.3 us; on a 2-vCPU
  // AMD EPYC guest (Firecracker) a call costs 1.5 us (1.55 at 64 B, 2.0 at 4 KiB, 3.0 at 16 KiB,
  // memcpy 0.06 and 0.31), and 2 ranks, lib_ab.sh, 6 interleaved rounds (2026-11-27), eager to
  // 16 KiB against the default: osu_latency 8 KiB 0.53 (2.85 -> 1.50 us), 16 KiB 0.81, 4 and
  // 32 KiB 1.00 and 0.98; eager to 32 KiB made 32 KiB 1.46x slower than the shared copy.
  static constexpr double kCostlySingleCopyCallUs = 0.8;
  // On an oversubscribed node with a costly call, the eager limit of every send (instead of
  // kEagerLimit): 8 ranks on 2 cores, the ring of bench/oversub_loop (64 KiB every 10th round),
  // eager to 64 KiB against the default, lib_ab.sh: 0.90 and 0.93 the time (6 and 8 rounds,
  // 2026-11-27, the AMD EPYC guest); on the Intel guest (0.3 us a call) it was 1.2x slower.
  static constexpr std::size_t kOversubscribedCostlyEagerLimit = 64 * 1024;
  static constexpr int kSingleCopyCallTimings = 8;
  static constexpr std::size_t kSingleCopyWholeMax = 16 * 1024;
  // With the automatic shared copy, a stream (Figures::stream_eager_limit) is eager up to
  // kStreamEagerLimit; above, the shared copy, as for a lone message. The shared copies of a
  // window go in batches (p2p::Engine::flush_reads/flush_writes): 2 ranks, lib_ab.sh, osu_bw,
  // 2026-11-26, the shared copy against a whole read of each message (the rule before, up to
  // 32 KiB): 7 rounds 17000 / 20000 / 24576 / 28000 / 32768 B 1.15 / 1.24 / 1.19 / 1.40 / 1.40
  // (32 KiB 16 -> 28 GB/s; 1.88 and 1.92 in two other runs), 16 KiB and 64-256 KiB 0.95-1.02;
  // osu_bw -b 16-64 KiB 0.96-1.19, osu_bibw 0.91-1.17, osu_latency 0.97-1.01, osu_bcast and
  // osu_allreduce 8-64 KiB on 2 and 4 ranks 0.80-1.04 (5 rounds). Below kStreamEagerLimit a
  // window's messages read whole measured 0.87-1.30 against eager at 8 KiB (four runs) and
  // 1.09-1.32 at 16 KiB, but a blocking stream (osu_bw -b: each send waits for its fin, then the
  // next is lone) 0.64 at 16 KiB: eager stays for blocking sends, while a window of non-blocking
  // ones goes by the exchange limit (p2p::Engine::isend), and above it by the shared copy, not
  // read whole (p2p::kFlagWindow; osu_bw 16 KiB 1.20-1.22x the whole read, 2026-11-27).
  static constexpr std::size_t kStreamEagerLimit = 16 * 1024;
  // Largest message both ways that goes through the rings while they measure faster than single
  // copies (Figures::both_ways_rings; above, the rings' lead was not measured).
  static constexpr std::size_t kBothWaysRingsMax = 64 * 1024;
  // Copies through the rings that are timed while both ways are measured: one in kTimedEvery.
  static constexpr unsigned kTimedEvery = 8;

 private:
  // More ranks on this node (this one and its shm peers) than cores this rank may run on.
  bool node_oversubscribed() const;
  // The peer's pid when single copy reaches it, else -1.
  int single_copy_pid(int peer) const;
  struct Peer {
    int rank = -1;
    pid_t pid = 0;
    bool failed = false;
    ChannelConsumer in;            // its channel in my segment
    ChannelProducer out;           // my channel in its segment
    SegmentControl* ctrl = nullptr;  // its control page
    SendOp* qhead = nullptr;       // ops waiting for room, in order
    SendOp* qtail = nullptr;
    // The pair line (pair_line.hpp). A short-protocol frame says (kWatching) that its sender looks
    // at the pair line until it receives the next frame from this rank: `watching` is that
    // promise of this rank toward the peer, `peer_watches` the peer's promise toward this rank
    // (its last frame said so, and nothing was sent to it since): then this rank's next tiny
    // message goes through the line.
    PairLineEnd line;
    bool watching = false;
    bool peer_watches = false;
    std::uint64_t probe_addr = 0;
    SharedMapping ctrl_map;
    SharedMapping ring_map;
  };
  // Microseconds the fastest of kSingleCopyCallTimings reads of `p`'s probe word took.
  double time_single_copy_call(const Peer& p) const;

  std::size_t slot_bytes() const {
    return channel_memory_bytes(cell_ring_bytes_ / kCellBytes, ring_bytes_ / kCellBytes);
  }
  std::size_t slot_offset(int rank) const { return 4096 + std::size_t(rank) * slot_bytes(); }
  SegmentControl* my_ctrl() const { return reinterpret_cast<SegmentControl*>(segment_.data()); }
  // wait() and wait_for_cpu_mate(): `barrier` false skips the process barrier.
  void sleep(std::chrono::microseconds timeout, bool barrier);
  // Wakes the peer if it sleeps, after this rank published a frame with a release store, or if it
  // sleeps with frames queued (`why` kAsleepForRoom) after this rank released room in a ring it
  // writes. Dekker pairing with the peer's wait(): store of `sleeping`, then a re-check of the
  // rings. The store-then-load order on this side is a compiler barrier when this process is
  // registered for the sleeper's process_barrier() (process_barrier.hpp), else a full fence.
  // Waking a peer that waits for something else for the room it got cost a context switch for
  // nothing on a shared core: 8 ranks on 2 cores passing 64 KiB eagerly around a ring (each
  // frame's release woke its writer, asleep until its next message came; perf sched timehist).
  void ring_doorbell(Peer& p, std::uint32_t why = kAsleep) const {
    if (light_fence_) [[likely]] {
      std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
      std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    const std::uint32_t state = std::atomic_ref<std::uint32_t>(p.ctrl->sleeping).load(std::memory_order_relaxed);
    if (state & why) [[unlikely]] {
      wake(p);
    } else if ((state & kAwaiting) && why == kAsleep) [[unlikely]] {
      std::atomic_ref<std::uint32_t>(p.ctrl->doorbell).fetch_add(1, std::memory_order_relaxed);
    }
  }
  static void wake(Peer& p);
  // This rank has promised `p` to look at their pair line (at most kWatchedPeers at once).
  void watch(Peer& p) {
    if (p.watching) return;
    p.watching = true;
    Peer*& slot = watched_[next_watch_++ % kWatchedPeers];
    if (slot != nullptr && slot != &p) slot->watching = false;  // its messages wait for a line tick
    slot = &p;
  }
  // Receives p's frames in order: its ring's and its pair line's. Returns the frames. Precondition:
  // a frame waits in p's ring (poll() delivers a pair-line message alone itself).
  int receive(Peer& p);
  int deliver_line(Peer& p);
  int poll_one(Peer& p, bool look_at_line);
  // Copies op's frame (payload, or its layout's runs) into p's ring; false when it does not fit now.
  // Times the copy now and then while both ways are measured (time_copies_).
  bool write_frame(Peer& p, const SendOp& op);
  bool write_frame_untimed(Peer& p, const SendOp& op);
  [[gnu::noinline]] bool write_frame_timed(Peer& p, const SendOp& op);
  // Whether this copy is timed: one in kTimedEvery (two tick reads, about 20 ns, against at
  // least 4 KiB copied).
  static bool take_sample(unsigned& count) { return ++count % kTimedEvery == 0; }
  int advance_queue(Peer& p);
  bool anything_to_do(std::memory_order mo);
  void check_peers_alive();
  void fail_peer(Peer& p, const std::string& why);
  std::string node_region_name(int leader) const;
  std::size_t node_slot_bytes(int members) const;

  int my_rank_;
  unsigned machine_cpus_;
  int job_size_;
  std::string job_id_;
  std::size_t ring_bytes_;
  std::size_t cell_ring_bytes_;
  std::size_t max_payload_;
  std::size_t eager_setting_;  // RAILMPI_SHM_EAGER_LIMIT (base::Settings::kAutomatic: chosen at connect)
  std::size_t eager_limit_;
  std::size_t stream_eager_limit_;
  std::size_t exchange_eager_limit_;
  std::size_t node_cell_bytes_;  // RAILMPI_NODE_COLL_LIMIT rounded up to 64 (0: no node region)
  bool cma_allowed_;
  std::size_t cma_min_setting_;    // RAILMPI_SHM_CMA_MIN (base::Settings::kAutomatic: chosen at connect)
  std::size_t cma_call_ns_setting_;  // RAILMPI_SHM_CMA_CALL_NS (base::Settings::kAutomatic: timed at connect)
  std::size_t single_copy_min_ = kNoSingleCopy;
  std::size_t single_copy_both_ways_min_ = kNoSingleCopy;
  std::size_t shared_copy_setting_;  // RAILMPI_SHM_SHARED_COPY_MIN (base::Settings::kAutomatic: chosen at connect)
  std::size_t shared_copy_min_ = kNoSingleCopy;
  std::size_t single_copy_whole_max_ = 0;
  bool single_copy_ = false;
  std::size_t both_ways_setting_;  // RAILMPI_SHM_BOTH_WAYS_RINGS
  bool verbose_;
  // Both ways measured (RAILMPI_SHM_BOTH_WAYS_RINGS automatic): copies in and out of the rings
  // and single copies are timed, and Figures::both_ways_rings points at the verdict.
  bool time_copies_ = false;
  BothWaysCosts both_ways_costs_;
  const bool* both_ways_rings_ = nullptr;
  static constexpr bool kAlwaysRings = true;
  unsigned ring_in_samples_ = 0;
  unsigned ring_out_samples_ = 0;
  double single_copy_call_us_ = 0;  // the fastest of kSingleCopyCallTimings calls (0: not timed)
  // This process is registered for the sleepers' process_barrier(): ring_doorbell() needs no CPU
  // fence.
  bool light_fence_ = false;
  bool connected_ = false;
  bool unlinked_ = true;
  bool shut_down_ = false;
  std::size_t queued_ = 0;
  std::string segment_name_;
  SharedMapping segment_;
  NodeRegion node_region_;
  std::vector<Peer> peers_;
  std::vector<int> index_of_rank_;  // job rank -> index in peers_, -1 when not served
  int local_size_ = 1;              // ranks of the job on this node (RAILMPI_LOCAL_SIZE, else the job's)
  FrameHandler handler_{};
  bool pair_line_;  // RAILMPI_SHM_PAIR_LINE
  // Peers whose pair line every poll looks at; every kLineTick-th poll looks at all of them (a
  // peer that stopped being watched may still have posted: it waits that long at most).
  static constexpr std::size_t kWatchedPeers = 4;
  static constexpr unsigned kLineTick = 64;
  std::array<Peer*, kWatchedPeers> watched_{};
  unsigned next_watch_ = 0;
  unsigned line_tick_ = 0;
  std::uint64_t line_posts_ = 0;
  std::chrono::steady_clock::time_point next_liveness_check_{};
  alignas(64) std::uint64_t probe_word_ = 0;  // read by peers with process_vm_readv
};

}  // namespace railmpi::device::shm
