#include "device/shm/shm_device.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <ctime>

#include "base/cpus.hpp"
#include "base/log.hpp"
#include "base/ticks.hpp"
#include "device/shm/futex.hpp"

namespace railmpi::device::shm {
namespace {

constexpr std::uint64_t kMagic = 0x52'61'69'6c'53'48'4d'31ULL;  // "RailSHM1"
constexpr std::size_t kControlBytes = 4096;
constexpr int kMaxFramesPerPeerPoll = 256;
constexpr auto kLivenessPeriod = std::chrono::milliseconds(100);
// Offset of a pair's line in the lower rank's channel: in the cell ring's control page, away from
// its head line (and that line's neighbour, which the hardware may fetch with it).
constexpr std::size_t kPairLineOffset = 256;
static_assert(kPairLineOffset % 64 == 0 && kPairLineOffset + sizeof(PairLine) <= kRingCellsOffset);

std::uint32_t load32(const std::uint32_t& w, std::memory_order mo) {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(w)).load(mo);
}
void store32(std::uint32_t& w, std::uint32_t v, std::memory_order mo) {
  std::atomic_ref<std::uint32_t>(w).store(v, mo);
}

std::size_t round_ring_bytes(std::size_t requested) {
  std::size_t r = 4096;
  const std::size_t cap = std::size_t(1) << 30;
  while (r * 2 <= requested && r < cap) r *= 2;
  return r;
}

std::string sanitize(std::string_view s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (out.size() > 200) out.resize(200);
  return out;
}

struct Card {
  std::string segment;
  std::uint64_t pid = 0;
  std::uint64_t probe_addr = 0;
};

bool parse_card(std::string_view text, Card& card) {
  auto c1 = text.find(':');
  if (c1 == std::string_view::npos) return false;
  auto c2 = text.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return false;
  card.segment = std::string(text.substr(0, c1));
  auto pid_text = text.substr(c1 + 1, c2 - c1 - 1);
  auto addr_text = text.substr(c2 + 1);
  auto r1 = std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), card.pid);
  auto r2 = std::from_chars(addr_text.data(), addr_text.data() + addr_text.size(),
                            card.probe_addr, 16);
  return r1.ec == std::errc() && r2.ec == std::errc() && !card.segment.empty();
}

}  // namespace

std::size_t automatic_ring_bytes(int node_ranks, std::size_t shm_free) {
  constexpr std::size_t kBudget = std::size_t(8) << 20, kSmallest = 256 * 1024, kLargest = 4 << 20;
  const std::size_t ranks = node_ranks > 1 ? std::size_t(node_ranks) : 1;
  const std::size_t peers = node_ranks > 1 ? std::size_t(node_ranks - 1) : 1;
  const std::size_t room = shm_free == SIZE_MAX ? SIZE_MAX : shm_free / 2 / ranks;  // per rank
  const auto fits_room = [&](std::size_t r) { return room == SIZE_MAX || 2 * r * peers <= room; };
  std::size_t r = kSmallest;
  while (r > kSmallestRing && !fits_room(r)) r /= 2;
  while (r * 2 <= kLargest && r * 2 * peers <= kBudget && fits_room(r * 2)) r *= 2;
  return r;
}

std::size_t dev_shm_free() {
  struct statvfs fs;
  if (::statvfs("/dev/shm", &fs) != 0) return SIZE_MAX;
  return static_cast<std::size_t>(fs.f_bavail) * fs.f_frsize;
}

ShmDevice::ShmDevice(int my_rank, int job_size, std::string_view job_id,
                     const base::Settings& settings)
    : my_rank_(my_rank),
      machine_cpus_(base::machine_cpus()),
      job_size_(job_size),
      job_id_(sanitize(job_id)),
      ring_bytes_(round_ring_bytes(settings.shm_ring_bytes != base::Settings::kAutomatic
                                       ? settings.shm_ring_bytes
                                       : automatic_ring_bytes(settings.local_size > 0 ? int(settings.local_size)
                                                                                       : job_size,
                                                              dev_shm_free()))),
      cell_ring_bytes_(std::min(round_ring_bytes(settings.shm_cell_ring_bytes), ring_bytes_)),
      max_payload_(channel_max_payload(ring_bytes_ / kCellBytes)),
      eager_setting_(settings.shm_eager_limit),
      eager_limit_(std::min(eager_setting_ == base::Settings::kAutomatic ? kEagerLimit : eager_setting_, max_payload_)),
      stream_eager_limit_(eager_limit_),
      exchange_eager_limit_(eager_limit_),
      node_cell_bytes_((settings.node_coll_limit + 63) / 64 * 64),
      cma_allowed_(settings.shm_cma),
      cma_min_setting_(settings.shm_cma_min),
      cma_call_ns_setting_(settings.shm_cma_call_ns),
      shared_copy_setting_(settings.shm_shared_copy_min),
      both_ways_setting_(settings.shm_both_ways_rings),
      verbose_(settings.verbose > 0),
      index_of_rank_(static_cast<std::size_t>(job_size > 0 ? job_size : 0), -1),
      local_size_(settings.local_size > 0 ? int(settings.local_size) : job_size),
      pair_line_(settings.shm_pair_line) {}

ShmDevice::~ShmDevice() { shutdown(); }

Figures ShmDevice::figures() const {
  Figures f;
  f.latency_us = 0.2;
  f.bandwidth_mbs = 10000;
  f.eager_limit = eager_limit_;
  f.stream_eager_limit = stream_eager_limit_;
  f.exchange_eager_limit = exchange_eager_limit_;
  f.max_payload = max_payload_;
  f.packet_bytes = ring_bytes_ / kPacketsPerRing;
  f.single_copy = single_copy_;
  f.single_copy_min = single_copy_min_;
  f.single_copy_both_ways_min = single_copy_both_ways_min_;
  f.both_ways_rings = both_ways_rings_;
  f.both_ways_rings_max = both_ways_rings_ ? std::min(kBothWaysRingsMax, max_payload_) : 0;
  f.both_ways_rings_eager_limit = std::min(kEagerLimit, max_payload_);
  f.both_ways_explore_every = time_copies_ ? both_ways_costs_.explore_every_flag() : nullptr;
  f.both_ways_explore_burst = BothWaysCosts::kExploreBurst;
  f.shared_copy_min = shared_copy_min_;
  f.single_copy_whole_max = single_copy_whole_max_;
  f.single_copy_call_us = single_copy_call_us_;
  return f;
}

std::string ShmDevice::local_address() {
  if (!segment_.valid()) {
    segment_name_ = "/railmpi-" + job_id_ + "-" + std::to_string(my_rank_);
    // The channels of the node's pairs are touched as traffic flows: refuse now what /dev/shm
    // cannot hold rather than die of SIGBUS later (automatic rings shrink for it already).
    const std::size_t free = dev_shm_free();
    const std::size_t ranks = local_size_ > 1 ? std::size_t(local_size_) : 1;
    if (free != SIZE_MAX && ranks * (ranks - 1) * slot_bytes() > free)
      base::fatal("shm device: /dev/shm has %zu bytes free, and the channels of %zu ranks on this node need %zu "
                  "(%zu-byte packet rings): give it more room (docker run --shm-size), set RAILMPI_SHM_RING_BYTES "
                  "smaller, or use RAILMPI_DEVICES=tcp",
                  free, ranks, ranks * (ranks - 1) * slot_bytes(), ring_bytes_);
    std::string error;
    segment_ = SharedMapping::create(segment_name_,
                                     kControlBytes + std::size_t(job_size_) * slot_bytes(), &error);
    if (!segment_.valid()) base::fatal("shm device: %s", error.c_str());
    unlinked_ = false;
    SegmentControl* c = my_ctrl();
    const pid_t pid = ::getpid();
    probe_word_ = kMagic ^ (std::uint64_t(pid) << 20) ^ reinterpret_cast<std::uintptr_t>(this);
    c->ring_bytes = ring_bytes_;
    c->cell_ring_bytes = cell_ring_bytes_;
    c->probe_value = probe_word_;
    c->job_size = static_cast<std::uint32_t>(job_size_);
    c->pid = static_cast<std::uint32_t>(pid);
    c->cpu = -1;
    std::atomic_ref<std::uint64_t>(c->magic).store(kMagic, std::memory_order_release);
#ifdef PR_SET_PTRACER
    // With Yama ptrace_scope=1 only ancestors may read our memory: let the peers do it.
    if (cma_allowed_) ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
  }
  char addr[32];
  auto r = std::to_chars(addr, addr + sizeof addr, reinterpret_cast<std::uintptr_t>(&probe_word_),
                         16);
  return segment_name_ + ":" + std::to_string(::getpid()) + ":" + std::string(addr, r.ptr);
}

void ShmDevice::connect(std::span<const PeerAddress> peers, Bootstrap bootstrap) {
  if (!segment_.valid()) local_address();
  const std::size_t cells = cell_ring_bytes_ / kCellBytes, packet_cells = ring_bytes_ / kCellBytes;
  const std::size_t window_bytes = std::min(packet_cells, kPacketWindowCells) * kCellBytes;
  const std::size_t window_prefault_bytes =
      2 * window_bytes * peers.size() <= kPrefaultedWindowsMax ? window_bytes : 0;
  peers_.clear();
  watched_.fill(nullptr);
  peers_.reserve(peers.size());
  for (const PeerAddress& pa : peers) {
    if (pa.rank < 0 || pa.rank >= job_size_ || pa.rank == my_rank_) {
      base::fatal("shm device: bad peer rank %d (job size %d, my rank %d)", pa.rank, job_size_,
                  my_rank_);
    }
    Card card;
    if (!parse_card(pa.address, card)) {
      base::fatal("shm device: bad address '%s' of rank %d", pa.address.c_str(), pa.rank);
    }
    Peer& p = peers_.emplace_back();
    p.rank = pa.rank;
    p.pid = pa.pid > 0 ? pa.pid : static_cast<pid_t>(card.pid);
    p.probe_addr = card.probe_addr;
    std::string error;
    p.ctrl_map = SharedMapping::open(card.segment, 0, kControlBytes, &error);
    if (!p.ctrl_map.valid()) base::fatal("shm device: rank %d: %s", pa.rank, error.c_str());
    p.ctrl = reinterpret_cast<SegmentControl*>(p.ctrl_map.data());
    if (std::atomic_ref<std::uint64_t>(p.ctrl->magic).load(std::memory_order_acquire) != kMagic ||
        p.ctrl->job_size != std::uint32_t(job_size_)) {
      base::fatal("shm device: segment %s of rank %d is not a RailMPI segment of this job",
                  card.segment.c_str(), pa.rank);
    }
    if (p.ctrl->ring_bytes != ring_bytes_ || p.ctrl->cell_ring_bytes != cell_ring_bytes_) {
      base::fatal("shm device: rank %d uses %llu-byte packet rings and %llu-byte cell rings, this rank %zu "
                  "and %zu (RAILMPI_SHM_RING_BYTES and RAILMPI_SHM_CELL_RING_BYTES must be the same on every rank)",
                  pa.rank, static_cast<unsigned long long>(p.ctrl->ring_bytes),
                  static_cast<unsigned long long>(p.ctrl->cell_ring_bytes), ring_bytes_, cell_ring_bytes_);
    }
    p.ring_map = SharedMapping::open(card.segment, slot_offset(my_rank_), slot_bytes(), &error);
    if (!p.ring_map.valid()) base::fatal("shm device: rank %d: %s", pa.rank, error.c_str());
    p.out.attach(p.ring_map.data(), cells, packet_cells);
    p.in.attach(segment_.data() + slot_offset(pa.rank), cells, packet_cells);
    // The pair line lies in the first page of the lower rank's channel to the higher one.
    const bool lower = my_rank_ < pa.rank;
    std::byte* lower_channel = lower ? p.ring_map.data() : segment_.data() + slot_offset(pa.rank);
    p.line.attach(reinterpret_cast<PairLine*>(lower_channel + kPairLineOffset), lower ? 0 : 1);
    // Both cell rings and the packet rings' control pages are mapped now (no page faults in the
    // first small messages), and on a node of few ranks the packet rings' first windows
    // (kPrefaultedWindowsMax); other packet ring pages come as traffic reaches them, so a big
    // packet ring or a node of many ranks does not cost resident memory up front.
    const std::size_t prefault_bytes = ring_memory_bytes(cells) + kRingCellsOffset + window_prefault_bytes;
    prefault(p.ring_map.data(), prefault_bytes);
    prefault(segment_.data() + slot_offset(pa.rank), prefault_bytes);
    index_of_rank_[std::size_t(pa.rank)] = static_cast<int>(peers_.size() - 1);
  }

  // Single copy: read each peer's probe word from its private memory, and time the calls; what
  // this rank found is published for the others (below, after the barrier).
  bool single_copy_reached = cma_allowed_;
  for (Peer& p : peers_) {
    if (!single_copy_reached) break;
    std::uint64_t value = 0;
    iovec local{&value, sizeof value};
    iovec remote{reinterpret_cast<void*>(p.probe_addr), sizeof value};
    ssize_t n = ::process_vm_readv(p.pid, &local, 1, &remote, 1, 0);
    if (n != static_cast<ssize_t>(sizeof value) || value != p.ctrl->probe_value) {
      if (n < 0) {
        base::log_info("shm device: single copy off (process_vm_readv from rank %d: %s)", p.rank,
                       std::strerror(errno));
      }
      single_copy_reached = false;
    }
  }
  const double single_copy_call_us = !single_copy_reached || peers_.empty() ? 1e9
                                     : cma_call_ns_setting_ != base::Settings::kAutomatic
                                         ? double(cma_call_ns_setting_) / 1000
                                         : time_single_copy_call(peers_.front());
  {
    SegmentControl* c = my_ctrl();
    c->single_copy_reaches = single_copy_reached ? 1 : 0;
    c->single_copy_call_ns = std::uint64_t(single_copy_call_us * 1000);
    std::atomic_ref<std::uint32_t>(c->published).store(1, std::memory_order_release);
  }

  // The node region: the node's lowest rank creates it now, the others map it after the barrier.
  int leader = my_rank_;
  for (const Peer& p : peers_) leader = std::min(leader, p.rank);
  const bool with_region = node_cell_bytes_ > 0 && !peers_.empty();
  const int members = static_cast<int>(peers_.size()) + 1;
  if (with_region && leader == my_rank_) {
    std::string error;
    node_region_ = NodeRegion::create(node_region_name(leader), members, kNodeSlots,
                                      node_slot_bytes(members), &error);
    if (!node_region_.valid()) base::fatal("shm device: %s", error.c_str());
  }

  if (bootstrap.barrier) bootstrap.barrier(bootstrap.ctx);
  if (with_region && leader != my_rank_) {
    std::string error;
    node_region_ = NodeRegion::open(node_region_name(leader), &error);
    if (!node_region_.valid()) base::fatal("shm device: %s", error.c_str());
    if (node_region_.members() != members ||
        node_region_.slot_bytes() != node_slot_bytes(members)) {
      base::fatal("shm device: the node region of rank %d does not match this rank's layout "
                  "(RAILMPI_NODE_COLL_LIMIT must be the same on every rank)", leader);
    }
  }
  // Every peer has mapped our segment: remove the name so nothing outlives the job.
  std::string error;
  if (!unlink_shared(segment_name_, &error)) base::log_error("shm device: %s", error.c_str());
  unlinked_ = true;

  // Every rank of the node derives its figures from the same inputs, which each rank measured
  // (or was given: RAILMPI_SHM_CMA_CALL_NS) and published before the barrier: single copy only
  // where it reached every peer of every rank, and the fastest call any rank timed (the timings
  // only err upwards: a rank's figure is its best of a few calls, slowed by whatever else ran
  // then). A figure that differed between two ranks would have them choose different algorithms
  // for the same collective call (the pair bcast or point-to-point by the eager limit, on an
  // oversubscribed node): wrong data or a hang (tests/mpi/figures_agree.c).
  bool ok = single_copy_reached;
  double call_us = single_copy_call_us;
  for (const Peer& p : peers_) {
    const std::atomic_ref<std::uint32_t> published(p.ctrl->published);
    while (published.load(std::memory_order_acquire) == 0) ::sched_yield();  // a bootstrap without a barrier
    ok = ok && p.ctrl->single_copy_reaches != 0;
    call_us = std::min(call_us, double(p.ctrl->single_copy_call_ns) / 1000);
  }
  single_copy_ = ok;
  single_copy_call_us_ = ok && !peers_.empty() ? call_us : 0;
  // Which rendezvous messages single copy moves. Automatic: every one on an oversubscribed node
  // (the pipelined copy needs both ranks running at once: with fewer cores than ranks each packet
  // would wait for a context switch), else none: with a core each, two cores copying through the
  // ring (which stays in the shared cache) beat one process_vm_readv at every size measured, 4 KiB
  // to 16 MiB, both ways (bench/shm_targets.sh ONLY=bw; 16 MiB 2x: a single copy of a message
  // larger than the cache is bound by one core's memory bandwidth, and concurrent reads in both
  // directions do not add up).
  // Both ways at once (the sender waits for large messages too, or the receiver streams a
  // rendezvous message of its own to the sender), each core copying only what comes in beats
  // both cores copying everything twice, from kBothWaysSingleCopyMin on: automatic, such messages
  // then go by single copy, eager sizes included. Not on an oversubscribed node: there every
  // rendezvous goes by single copy already, and an eager send completes without waiting for its
  // receiver to get a core. A set RAILMPI_SHM_CMA_MIN rules alone.
  if (cma_min_setting_ != base::Settings::kAutomatic) {
    single_copy_min_ = cma_min_setting_;
    single_copy_both_ways_min_ = kNoSingleCopy;
  } else if (node_oversubscribed()) {
    single_copy_min_ = 0;
    single_copy_both_ways_min_ = kNoSingleCopy;
  } else {
    single_copy_min_ = kNoSingleCopy;
    single_copy_both_ways_min_ = kBothWaysSingleCopyMin;
  }
  // One way, from kSharedCopyMin on, both cores copy with single copies instead of the rings: the
  // receiver reads one part, the sender writes the other (a two-process test, GB/s one reader /
  // shared halves: 64 KiB 14-17 / 17-19, 1 MiB 13-15 / 35-37, 4 MiB 10-11 / 20-21), where the
  // rings make both cores copy everything. Automatic with a core per rank and no
  // RAILMPI_SHM_CMA_MIN; a set RAILMPI_SHM_SHARED_COPY_MIN rules alone.
  if (shared_copy_setting_ != base::Settings::kAutomatic) {
    shared_copy_min_ = shared_copy_setting_;
  } else if (cma_min_setting_ == base::Settings::kAutomatic && !node_oversubscribed()) {
    shared_copy_min_ = kSharedCopyMin;
  } else {
    shared_copy_min_ = kNoSingleCopy;
  }
  // The automatic eager limits (see kEagerLimit): lower for sends that do not stream when the
  // shared copy takes what is above; streams stay eager to kEagerLimit. (A message both ways is
  // read whole from kBothWaysSingleCopyMin on, below every automatic eager limit.)
  if (eager_setting_ == base::Settings::kAutomatic) {
    const bool costly_call = single_copy_call_us_ >= kCostlySingleCopyCallUs;
    const bool shared_above = single_copy_ && shared_copy_min_ <= kSharedCopyEagerLimit + 1;
    stream_eager_limit_ = std::min(kEagerLimit, max_payload_);
    exchange_eager_limit_ = std::min(shared_above ? kSharedCopyEagerLimit : kEagerLimit, max_payload_);
    eager_limit_ = exchange_eager_limit_;
    // With the automatic shared copy, a lone message above kLoneEagerLimit and up to
    // kSingleCopyWholeMax is read whole by its receiver.
    if (shared_above && shared_copy_setting_ == base::Settings::kAutomatic) {
      // Where a process_vm_readv call costs much more than the 0.3 us these limits were measured
      // with, a lone message's read costs more than copying it in and out: eager up to the stream
      // limit then (kCostlySingleCopyCallUs).
      eager_limit_ = costly_call ? std::max(eager_limit_, std::min(kStreamEagerLimit, max_payload_))
                                 : std::min(kLoneEagerLimit, eager_limit_);
      single_copy_whole_max_ = kSingleCopyWholeMax;
      // and a stream is eager up to kStreamEagerLimit.
      stream_eager_limit_ = std::min(kStreamEagerLimit, stream_eager_limit_);
    } else if (node_oversubscribed() && cma_min_setting_ == base::Settings::kAutomatic && costly_call) {
      // Oversubscribed, every rendezvous is read whole; where that call is costly, messages up
      // to kOversubscribedCostlyEagerLimit go eagerly instead (kCostlySingleCopyCallUs). A set
      // RAILMPI_SHM_CMA_MIN keeps kEagerLimit.
      eager_limit_ = exchange_eager_limit_ = stream_eager_limit_ =
          std::min(kOversubscribedCostlyEagerLimit, max_payload_);
    }
  }
  // Messages both ways that single copies take (kBothWaysSingleCopyMin on) go through the rings
  // while the rings measure faster (BothWaysCosts), or always, or never (RAILMPI_SHM_BOTH_WAYS_RINGS).
  time_copies_ = false;
  both_ways_rings_ = nullptr;
  if (single_copy_ && single_copy_both_ways_min_ == kBothWaysSingleCopyMin) {
    if (both_ways_setting_ == base::Settings::kAutomatic) {
      time_copies_ = true;
      both_ways_rings_ = both_ways_costs_.rings_faster_flag();
    } else if (both_ways_setting_ != 0) {
      both_ways_rings_ = &kAlwaysRings;
    }
  }
  light_fence_ = register_for_process_barriers();
  connected_ = true;
  next_liveness_check_ = std::chrono::steady_clock::now() + kLivenessPeriod;
}

double ShmDevice::time_single_copy_call(const Peer& p) const {
  double best = 1e9;
  for (int i = 0; i < kSingleCopyCallTimings; ++i) {
    std::uint64_t value = 0;
    iovec local{&value, sizeof value};
    iovec remote{reinterpret_cast<void*>(p.probe_addr), sizeof value};
    const auto t0 = std::chrono::steady_clock::now();
    const ssize_t n = ::process_vm_readv(p.pid, &local, 1, &remote, 1, 0);
    const auto t1 = std::chrono::steady_clock::now();
    if (n != static_cast<ssize_t>(sizeof value)) return best;
    best = std::min(best, std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  return best;
}

std::size_t ShmDevice::node_slot_bytes(int members) const {
  return std::size_t(members) * (kNodeMemberLineBytes + 2 * node_cell_bytes_) + 16 * node_cell_bytes_ +
         kNodeSmallCellBytes;
}

std::string ShmDevice::node_region_name(int leader) const {
  return "/railmpi-" + job_id_ + "-node-" + std::to_string(leader);
}

void ShmDevice::wake(Peer& p) {
  std::atomic_ref<std::uint32_t>(p.ctrl->doorbell).fetch_add(1, std::memory_order_seq_cst);
  futex_wake_all(&p.ctrl->doorbell);
}

// Release publication: ring_doorbell() then orders it before the peer's sleep flag is read.
inline bool ShmDevice::write_frame(Peer& p, const SendOp& op) {
  // Copies in are timed only while the rings carry the stream (BothWaysCosts::ring_in).
  if (time_copies_ && op.payload_len >= BothWaysCosts::kSmallestTimed && both_ways_costs_.rings_faster()) [[unlikely]] {
    if (take_sample(ring_in_samples_)) return write_frame_timed(p, op);
  }
  return write_frame_untimed(p, op);
}

bool ShmDevice::write_frame_timed(Peer& p, const SendOp& op) {
  const std::uint64_t t0 = base::ticks();
  const bool written = write_frame_untimed(p, op);
  if (written) both_ways_costs_.ring_in(op.payload_len, base::ticks() - t0);
  return written;
}

inline bool ShmDevice::write_frame_untimed(Peer& p, const SendOp& op) {
  if (op.layout == nullptr) [[likely]]
    return p.out.try_write(op.header.data(), op.header_len, op.payload, op.payload_len, std::memory_order_release);
  // A gathered payload: its runs are copied segment-wise straight into the cells.
  return p.out.try_write_with(
      op.header.data(), op.header_len, op.payload_len,
      [&op](std::byte* to, std::size_t n) { base::gather(*op.layout, op.layout_offset, {to, n}); },
      std::memory_order_release);
}

SendResult ShmDevice::send(int peer, SendOp& op) {
  const int idx = (peer >= 0 && peer < job_size_) ? index_of_rank_[std::size_t(peer)] : -1;
  if (idx < 0) [[unlikely]] {
    if (handler_.on_peer_failed) {
      handler_.on_peer_failed(handler_.ctx, peer, "rank is not served by the shm device");
    }
    return SendResult::done;
  }
  Peer& p = peers_[std::size_t(idx)];
  if (op.header_len > kMaxHeader || op.payload_len > max_payload_) [[unlikely]] {
    base::fatal("shm device: frame too large (header %u, payload %zu, max payload %zu)",
                op.header_len, op.payload_len, max_payload_);
  }
  if (p.failed) [[unlikely]] return SendResult::done;  // already reported
  p.peer_watches = false;  // it stops watching when this frame arrives
  if (p.qhead == nullptr && write_frame(p, op)) [[likely]] {
    ring_doorbell(p);
    return SendResult::done;
  }
  op.next = nullptr;
  op.progress = 0;
  if (p.qtail) {
    p.qtail->next = &op;
  } else {
    p.qhead = &op;
  }
  p.qtail = &op;
  ++queued_;
  return SendResult::queued;
}

int ShmDevice::advance_queue(Peer& p) {
  int events = 0;
  while (SendOp* op = p.qhead) {
    if (!write_frame(p, *op)) break;
    ring_doorbell(p);
    p.qhead = op->next;
    if (!p.qhead) p.qtail = nullptr;
    op->next = nullptr;
    --queued_;
    ++events;
    if (op->on_done) op->on_done(*op);  // may call send(): the queue is consistent here
  }
  return events;
}

// A frame from p says whether p now watches the pair line; receiving anything from p ends this
// rank's promise to watch. Both are set before the handler runs: it may send to p.
[[gnu::always_inline]] inline int ShmDevice::deliver_line(Peer& p) {
  p.watching = false;
  p.peer_watches = pair_line_;
  p.line.deliver([&](std::span<const std::byte> h, std::span<const std::byte> pl) {
    handler_.on_frame(handler_.ctx, p.rank, h, pl, ReadHint::any);
  });
  return 1;
}

int ShmDevice::receive(Peer& p) {
  int lines = 0;
  auto r = p.in.drain(
      [&](std::span<const std::byte> h, std::span<const std::byte> pl, std::uint8_t flags) {
        // A message posted on the line before this frame was written comes first.
        if (p.line.pending()) [[unlikely]] {
          if (p.line.due(p.in.cell_head())) lines += deliver_line(p);
        }
        p.watching = false;
        p.peer_watches = pair_line_ && (flags & kWatching);
        const ReadHint hint = (flags & kWriterAhead) ? ReadHint::from_end : ReadHint::any;
        if (time_copies_ && pl.size() >= BothWaysCosts::kSmallestTimed) [[unlikely]] {
          if (take_sample(ring_out_samples_)) {
            const std::uint64_t t0 = base::ticks();
            handler_.on_frame(handler_.ctx, p.rank, h, pl, hint);
            both_ways_costs_.ring_out(pl.size(), base::ticks() - t0);
            return;
          }
        }
        handler_.on_frame(handler_.ctx, p.rank, h, pl, hint);
      },
      kMaxFramesPerPeerPoll);
  if (p.line.pending() && p.line.due(p.in.cell_head())) lines += deliver_line(p);
  if (r.released) ring_doorbell(p, kAsleepForRoom);  // the peer may sleep waiting for room
  if (r.frames + lines > 0) p.out.heard();
  return r.frames + lines;
}

// One peer's frames: its ring's (receive()), or a message alone on its pair line, looked at when
// `look_at_line` (the line is read only while this rank watches it, and at line ticks).
[[gnu::always_inline]] inline int ShmDevice::poll_one(Peer& p, bool look_at_line) {
  if (p.in.ready()) [[unlikely]]
    return receive(p);
  if (look_at_line && p.line.pending() && p.line.due(p.in.cell_head())) {
    // The pair line alone: a ping-pong's message, handled here rather than in receive(): a call
    // and a second test of the ring less on the one-way's path, about 25 instructions (callgrind,
    // osu_latency 8 B); bench/lib_ab.sh osu_latency 0-64 B, 2 x 300 rounds: 0.946 and 1/1.048 the
    // time (standard error 0.005-0.008). Due unless ring frames written before it are not
    // visible yet.
    const int n = deliver_line(p);
    p.out.heard();
    return n;
  }
  // A two-line message's second line comes now; only from a peer this rank awaits an answer
  // from (watching), so that an idle peer's poll stays on its ring's cell and, at line ticks,
  // the line's first half.
  if (p.watching) p.line.touch_second_line();
  return 0;
}

int ShmDevice::poll() {
  int events = 0;
  if (handler_.on_frame) {
    const bool tick = ++line_tick_ % kLineTick == 0;
    for (Peer& p : peers_) events += poll_one(p, p.watching || tick);
  }
  if (queued_) {
    for (Peer& p : peers_) {
      if (p.qhead) events += advance_queue(p);
    }
  }
  return events;
}

int ShmDevice::poll_peer(int peer) {
  const int idx = (peer >= 0 && peer < job_size_) ? index_of_rank_[std::size_t(peer)] : -1;
  if (idx < 0 || !handler_.on_frame) return 0;
  return poll_one(peers_[std::size_t(idx)], true);
}

bool ShmDevice::anything_to_do(std::memory_order mo) {
  for (Peer& p : peers_) {
    if (p.in.ready(mo) || p.line.pending(mo)) return true;
    if (p.qhead && p.out.can_write(p.qhead->header_len, p.qhead->payload_len, mo)) return true;
  }
  return false;
}

void ShmDevice::fail_peer(Peer& p, const std::string& why) {
  if (p.failed) return;
  p.failed = true;
  if (handler_.on_peer_failed) handler_.on_peer_failed(handler_.ctx, p.rank, why);
  // Queued ops to a dead peer are finished (dropped) so their owners can release them.
  while (SendOp* op = p.qhead) {
    p.qhead = op->next;
    if (!p.qhead) p.qtail = nullptr;
    op->next = nullptr;
    --queued_;
    if (op->on_done) op->on_done(*op);
  }
}

void ShmDevice::check_peers_alive() {
  for (Peer& p : peers_) {
    if (p.failed) continue;
    if (::kill(p.pid, 0) != 0 && errno == ESRCH) {
      fail_peer(p, "rank " + std::to_string(p.rank) + " (pid " + std::to_string(p.pid) +
                       ") is gone");
    }
  }
}

void ShmDevice::set_cpu(int cpu) {
  if (!segment_.valid()) local_address();
  std::atomic_ref<std::int32_t>(my_ctrl()->cpu).store(cpu, std::memory_order_relaxed);
}

bool ShmDevice::shares_cpu(int peer) const {
  const int idx = (peer >= 0 && peer < job_size_) ? index_of_rank_[std::size_t(peer)] : -1;
  if (idx < 0 || !segment_.valid()) return false;
  const Peer& p = peers_[std::size_t(idx)];
  if (p.failed || p.ctrl == nullptr) return false;
  const int mine = std::atomic_ref<std::int32_t>(my_ctrl()->cpu).load(std::memory_order_relaxed);
  return mine >= 0 && std::atomic_ref<std::int32_t>(p.ctrl->cpu).load(std::memory_order_relaxed) == mine;
}

bool ShmDevice::cpu_mates_idle() const {
  if (!segment_.valid()) return false;
  const int mine = std::atomic_ref<std::int32_t>(my_ctrl()->cpu).load(std::memory_order_relaxed);
  if (mine < 0) return false;
  int mates = 0;
  for (const Peer& p : peers_) {
    if (p.failed || p.ctrl == nullptr || std::atomic_ref<std::int32_t>(p.ctrl->cpu).load(std::memory_order_relaxed) != mine)
      continue;
    if ((load32(p.ctrl->sleeping, std::memory_order_acquire) & (kAsleep | kAwaiting)) == 0) return false;
    if (load32(p.ctrl->asleep_bell, std::memory_order_relaxed) != load32(p.ctrl->doorbell, std::memory_order_relaxed))
      return false;
    ++mates;
  }
  return mates > 0;
}

int ShmDevice::unanswered_chain(int peer, int most) const {
  int n = 0;
  for (int rank = peer; n < most && rank >= 0 && rank < job_size_ && rank != my_rank_; ++n) {
    const int idx = index_of_rank_[std::size_t(rank)];
    if (idx < 0) break;
    const Peer& p = peers_[std::size_t(idx)];
    if (p.failed || p.ctrl == nullptr) break;
    if ((load32(p.ctrl->sleeping, std::memory_order_acquire) & (kAsleep | kAwaiting)) == 0) break;
    if (load32(p.ctrl->asleep_bell, std::memory_order_relaxed) != load32(p.ctrl->doorbell, std::memory_order_relaxed))
      break;
    rank = std::atomic_ref<std::int32_t>(p.ctrl->awaited).load(std::memory_order_relaxed);
  }
  return n;
}

void ShmDevice::begin_awaiting(int awaited) {
  if (!segment_.valid()) return;
  SegmentControl* c = my_ctrl();
  std::atomic_ref<std::int32_t>(c->awaited).store(awaited, std::memory_order_relaxed);
  store32(c->asleep_bell, load32(c->doorbell, std::memory_order_relaxed), std::memory_order_relaxed);
  store32(c->sleeping, kAwaiting, std::memory_order_release);
}

void ShmDevice::end_awaiting() {
  if (segment_.valid()) store32(my_ctrl()->sleeping, 0, std::memory_order_relaxed);
}

int ShmDevice::cpu_mates() const {
  if (!segment_.valid()) return 0;
  const int mine = std::atomic_ref<std::int32_t>(my_ctrl()->cpu).load(std::memory_order_relaxed);
  if (mine < 0) return 0;
  int n = 0;
  for (const Peer& p : peers_) {
    n += !p.failed && p.ctrl && std::atomic_ref<std::int32_t>(p.ctrl->cpu).load(std::memory_order_relaxed) == mine;
  }
  return n;
}

int ShmDevice::peers_asleep() const {
  if (!segment_.valid()) return 0;
  int n = 0;
  for (const Peer& p : peers_) {
    n += !p.failed && p.ctrl && (load32(p.ctrl->sleeping, std::memory_order_relaxed) & kAsleep) != 0;
  }
  return n;
}

void ShmDevice::wait(std::chrono::microseconds timeout) { sleep(timeout, true); }

void ShmDevice::wait_for_cpu_mate(std::chrono::microseconds timeout) { sleep(timeout, false); }

void ShmDevice::sleep(std::chrono::microseconds timeout, bool barrier) {
  if (!connected_ || shut_down_ || timeout.count() <= 0) return;
  auto now = std::chrono::steady_clock::now();
  if (now >= next_liveness_check_) {
    check_peers_alive();
    next_liveness_check_ = now + kLivenessPeriod;
  }
  if (anything_to_do(std::memory_order_acquire)) return;
  SegmentControl* c = my_ctrl();
  const std::uint32_t bell = load32(c->doorbell, std::memory_order_seq_cst);
  store32(c->asleep_bell, bell, std::memory_order_relaxed);
  store32(c->sleeping, queued_ > 0 ? kAsleep | kAsleepForRoom : kAsleep, std::memory_order_seq_cst);
  // The peers publish with release stores and read `sleeping` after a fence that may be only a
  // compiler barrier (ring_doorbell): this side's barrier covers their CPUs (and the seq_cst
  // store above this one's). Not needed when the waker shares this CPU (wait_for_cpu_mate()).
  if (barrier) process_barrier();
  if (!anything_to_do(std::memory_order_seq_cst)) {
    auto until_check = std::chrono::duration_cast<std::chrono::microseconds>(
        next_liveness_check_ - now);
    if (until_check.count() < 1) until_check = std::chrono::microseconds(1);
    futex_wait(&c->doorbell, bell, std::min(timeout, until_check));
  }
  store32(c->sleeping, 0, std::memory_order_relaxed);
}

std::uint32_t ShmDevice::begin_sleep() {
  SegmentControl* c = my_ctrl();
  std::atomic_ref<std::int32_t>(c->awaited).store(-1, std::memory_order_relaxed);  // a flag of any rank
  const std::uint32_t bell = load32(c->doorbell, std::memory_order_seq_cst);
  store32(c->asleep_bell, bell, std::memory_order_relaxed);
  store32(c->sleeping, queued_ > 0 ? kAsleep | kAsleepForRoom : kAsleep, std::memory_order_seq_cst);
  return bell;
}

void ShmDevice::end_sleep(std::uint32_t bell, std::chrono::microseconds timeout) {
  SegmentControl* c = my_ctrl();
  const auto now = std::chrono::steady_clock::now();
  if (connected_ && !shut_down_ && timeout.count() > 0 && !anything_to_do(std::memory_order_seq_cst)) {
    auto until_check = std::chrono::duration_cast<std::chrono::microseconds>(next_liveness_check_ - now);
    if (until_check.count() < 1) until_check = std::chrono::microseconds(1);
    futex_wait(&c->doorbell, bell, std::min(timeout, until_check));
  }
  store32(c->sleeping, 0, std::memory_order_relaxed);
  if (connected_ && !shut_down_ && std::chrono::steady_clock::now() >= next_liveness_check_) {
    check_peers_alive();
    next_liveness_check_ = std::chrono::steady_clock::now() + kLivenessPeriod;
  }
}

void ShmDevice::cancel_sleep() { store32(my_ctrl()->sleeping, 0, std::memory_order_relaxed); }

void ShmDevice::wake_if_asleep(int peer) {
  const int idx = peer >= 0 && peer < job_size_ ? index_of_rank_[std::size_t(peer)] : -1;
  if (idx < 0) return;
  Peer& p = peers_[std::size_t(idx)];
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (std::atomic_ref<std::uint32_t>(p.ctrl->sleeping).load(std::memory_order_relaxed) & kAsleep) wake(p);
}

// The CPUs the machine's ranks share, not this rank's own mask (a bound rank sees one CPU).
bool ShmDevice::node_oversubscribed() const {
  return base::oversubscribed(static_cast<int>(peers_.size()) + 1, machine_cpus_);
}

int ShmDevice::single_copy_pid(int peer) const {
  if (!single_copy_) return -1;
  const int idx = (peer >= 0 && peer < job_size_) ? index_of_rank_[std::size_t(peer)] : -1;
  return idx < 0 ? -1 : peers_[std::size_t(idx)].pid;
}

namespace {

// Copies `bytes` between `local` here and `remote_addr` in process `pid` with `call`
// (process_vm_readv or process_vm_writev), resuming after a partial copy or a signal.
template <class Call>
bool copy_with_peer(Call call, pid_t pid, std::byte* local, std::uint64_t remote_addr, std::size_t bytes) {
  std::size_t done = 0;
  while (done < bytes) {
    iovec here{local + done, bytes - done};
    iovec there{reinterpret_cast<void*>(remote_addr + done), bytes - done};
    const ssize_t n = call(pid, &here, 1, &there, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

bool ShmDevice::read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst) {
  const pid_t pid = single_copy_pid(peer);
  return pid >= 0 && copy_with_peer(::process_vm_readv, pid, dst.data(), remote_addr, dst.size());
}

namespace {

// Up to kRunsPerCall runs per process_vm_readv / process_vm_writev: the call's fixed cost
// (finding the peer's task and checking access, about 0.3 us here) is paid once per batch instead
// of once per message. The kernel copies whole iovec pairs in order and stops at the first it
// cannot. Returns the runs copied whole, from the first.
template <class Call, class Run>
std::size_t copy_runs_with_peer(Call call, pid_t pid, std::span<const Run> runs) {
  constexpr std::size_t kRunsPerCall = 64;
  iovec local_iov[kRunsPerCall], remote_iov[kRunsPerCall];
  std::size_t done = 0;
  while (done < runs.size()) {
    const std::size_t count = std::min(kRunsPerCall, runs.size() - done);
    std::size_t want = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const Run& run = runs[done + i];
      // process_vm_writev only reads the local iovec's bytes
      local_iov[i] = iovec{const_cast<std::byte*>(run.local.data()), run.local.size()};
      remote_iov[i] = iovec{reinterpret_cast<void*>(run.remote_addr), run.local.size()};
      want += run.local.size();
    }
    const ssize_t got = call(pid, local_iov, count, remote_iov, count, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return done;
    if (static_cast<std::size_t>(got) == want) {
      done += count;
      continue;
    }
    // A partial copy: the runs covered whole count; the caller copies the rest its own way.
    std::size_t covered = 0;
    for (std::size_t i = 0; i < count && covered + runs[done].local.size() <= static_cast<std::size_t>(got); ++i) {
      covered += runs[done].local.size();
      ++done;
    }
    return done;
  }
  return done;
}

}  // namespace

std::size_t ShmDevice::read_remote_runs(int peer, std::span<const RemoteRun> runs) {
  const pid_t pid = single_copy_pid(peer);
  if (pid < 0) return 0;
  if (!time_copies_) return copy_runs_with_peer(::process_vm_readv, pid, runs);
  // Every call is timed: two reads of the tick clock against at least 1.5 us a call.
  const std::uint64_t t0 = base::ticks();
  const std::size_t done = copy_runs_with_peer(::process_vm_readv, pid, runs);
  const std::uint64_t took = base::ticks() - t0;
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < done; ++i) bytes += runs[i].local.size();
  both_ways_costs_.single_copy(bytes, took);
  return done;
}

std::size_t ShmDevice::write_remote_runs(int peer, std::span<const RemoteSource> runs) {
  const pid_t pid = single_copy_pid(peer);
  return pid < 0 ? 0 : copy_runs_with_peer(::process_vm_writev, pid, runs);
}

bool ShmDevice::write_remote(int peer, std::uint64_t remote_addr, std::span<const std::byte> src) {
  const pid_t pid = single_copy_pid(peer);
  // process_vm_writev only reads the local iovec's bytes
  return pid >= 0 && copy_with_peer(::process_vm_writev, pid, const_cast<std::byte*>(src.data()), remote_addr,
                                    src.size());
}

namespace {

// Up to `max_runs` runs of `layout` from byte `at`, at most `limit` bytes in all. Returns the bytes.
std::size_t collect_runs(const base::Layout& layout, std::size_t at, std::size_t limit, iovec* iov, int max_runs,
                         int& runs) {
  base::LayoutCursor cursor(layout, at);
  std::size_t total = 0;
  runs = 0;
  while (runs < max_runs && total < limit) {
    const auto run = cursor.next(limit - total);
    if (run.empty()) break;
    iov[runs++] = iovec{run.data(), run.size()};
    total += run.size();
  }
  return total;
}

}  // namespace

// One process_vm_readv per batch of runs on both sides: the kernel walks the two lists itself, so
// a non-contiguous message costs one copy, like a contiguous one (no pack, no unpack).
bool ShmDevice::read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local,
                                   std::size_t bytes) {
  const pid_t pid = single_copy_pid(peer);
  if (pid < 0) return false;
  constexpr int kRunsPerCall = 128;
  iovec local_iov[kRunsPerCall], remote_iov[kRunsPerCall];
  std::size_t done = 0;
  while (done < bytes) {
    int nl = 0, nr = 0;
    const std::size_t want = collect_runs(local, done, bytes - done, local_iov, kRunsPerCall, nl);
    const std::size_t have = collect_runs(remote, done, want, remote_iov, kRunsPerCall, nr);
    if (want == 0 || have == 0) return false;  // a layout is shorter than `bytes`
    const ssize_t got = ::process_vm_readv(pid, local_iov, static_cast<unsigned long>(nl), remote_iov,
                                           static_cast<unsigned long>(nr), 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<std::size_t>(got);  // a partial read restarts from the first byte not copied
  }
  return true;
}

void ShmDevice::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  if (verbose_ && time_copies_) {
    const BothWaysCosts& c = both_ways_costs_;
    base::log_info("shm: both ways, rings %.0f ticks a KiB in + %.0f out, single copies %.0f: the %s now (%llu switches)",
                   c.ring_in_ticks_per_kib(), c.ring_out_ticks_per_kib(), c.single_copy_ticks_per_kib(),
                   c.rings_faster() ? "rings" : "single copies", static_cast<unsigned long long>(c.switches()));
  }
  if (!unlinked_ && !segment_name_.empty()) unlink_shared(segment_name_, nullptr);
  unlinked_ = true;
  for (Peer& p : peers_) {
    p.ctrl = nullptr;
    p.ctrl_map.unmap();
    p.ring_map.unmap();
  }
  peers_.clear();
  watched_.fill(nullptr);
  std::fill(index_of_rank_.begin(), index_of_rank_.end(), -1);
  segment_.unmap();
  node_region_ = NodeRegion();
  queued_ = 0;
  connected_ = false;
}

}  // namespace railmpi::device::shm
