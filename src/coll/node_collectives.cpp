#include "coll/node_collectives.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "base/cache_hint.hpp"
#include "coll/collectives.hpp"
#include "p2p/wire_header.hpp"

namespace railmpi::coll {
namespace {

std::uint32_t load(const std::uint32_t& w, std::memory_order mo) {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(w)).load(mo);
}

constexpr unsigned kPollEvery = 32;
constexpr std::size_t kPageBytes = 4096;

// `seq` is at or past `target` (call numbers wrap around after 2^32 calls).
bool reached(std::uint32_t seq, std::uint32_t target) { return static_cast<std::int32_t>(seq - target) >= 0; }

// The first element of block b of a vector of `count` elements of `elem` bytes cut into n blocks
// (one per rank; count for b >= n), on a cache line where the element size allows.
std::size_t block_edge(std::size_t count, std::size_t elem, int b, int n) {
  const std::size_t align = elem <= 64 && 64 % elem == 0 ? 64 / elem : 1;
  return b >= n ? count : std::min(count, count * std::size_t(b) / std::size_t(n) / align * align);
}

}  // namespace

NodeCollectives::NodeCollectives(mcm::MultiMethod& mcm, Engine& engine, const base::Settings& settings)
    : mcm_(mcm),
      memory_(mcm.node_memory()),
      engine_(engine),
      limit_(settings.node_coll_limit),
      cell_((settings.node_coll_limit + 63) / 64 * 64),
      light_stores_(memory_.light_stores()),
      spin_(settings.spin_count),
      yield_(settings.yield_count),
      progress_(memory_.available() ? std::size_t(memory_.slots()) : 0) {}

bool NodeCollectives::usable(const core::Communicator& c, std::size_t bytes) {
  if (bytes > limit_ || !memory_.available() || c.is_inter() || c.size() < 2) return false;
  if (c.node_slot == core::Communicator::kNodeSlotUndecided) [[unlikely]] decide(c);
  if (c.node_slot < 0) return false;
  ++calls_;
  return true;
}

void NodeCollectives::decide(const core::Communicator& c) {
  const std::vector<int>& node = mcm_.node_ranks();
  const bool on_node = std::all_of(c.job_ranks.begin(), c.job_ranks.end(),
                                   [&](int r) { return std::binary_search(node.begin(), node.end(), r); });
  if (!on_node || slot_bytes(std::size_t(c.size()), cell_) > memory_.slot_bytes()) {
    c.node_slot = -1;  // every member sees the same: no agreement needed
    return;
  }
  // Rank 0 claims a slot for all members and tells them which (or -1: the region is full), and
  // from which size allreduce goes by blocks (a size every member must agree on).
  // Zeroed: every call number a reader compares with (flags, inline cells, small cells); one left
  // by an earlier communicator in the slot would otherwise pass for this one's.
  const std::size_t zeroed = std::size_t(c.size()) * kMemberLines * 64 + kSmallDepth * sizeof(SmallCell);
  std::int32_t agreed[2] = {-1, 0};
  if (c.rank == 0) {
    agreed[0] = memory_.claim(c.size(), zeroed);
    agreed[1] = engine_.progress().oversubscribed() ? kBlocksMinOversubscribed : kBlocksMin;
  }
  auto s = engine_.create(c);
  coll::bcast(*s, agreed, sizeof agreed, 0);
  engine_.run(std::move(s));
  c.node_slot = agreed[0];
  if (agreed[0] >= 0) {
    // Flags, inline and small cells, used from the first call on: mapped now rather than by a
    // page fault in each of the first 16 pages' first calls (10-100 us each on this machine).
    memory_.prefault(memory_.slot(agreed[0]).first(zeroed));
    progress_[std::size_t(agreed[0])] =
        Progress{0, 0, std::vector<std::uint32_t>(std::size_t(c.size()), 0), std::size_t(agreed[1])};
  }
}

void NodeCollectives::release(const core::Communicator& c) {
  if (c.node_slot >= 0) memory_.release(c.node_slot);
  c.node_slot = -1;
}

NodeCollectives::Call NodeCollectives::begin(const core::Communicator& c) {
  std::byte* base = memory_.slot(c.node_slot).data();
  const std::size_t n = std::size_t(c.size());
  Call k;
  k.flags = reinterpret_cast<Flag*>(base);
  k.inline_lines = reinterpret_cast<InlineLine*>(base + n * sizeof(Flag));
  k.small_cells = reinterpret_cast<SmallCell*>(base + n * kMemberLines * 64);
  k.bcast_cells = base + n * kMemberLines * 64 + kSmallDepth * sizeof(SmallCell);
  k.input_cells = k.bcast_cells + kDepth * cell_;
  k.cell = cell_;
  k.n = c.size();
  k.me = c.rank;
  k.progress = &progress_[std::size_t(c.node_slot)];
  k.seq = ++k.progress->seq;
  k.job_ranks = c.job_ranks.data();
  return k;
}

void NodeCollectives::arrive(const Call& k, std::size_t bytes) {
  Flag& f = k.flags[k.me];
  if (bytes != kNoBytes) f.bytes[k.seq % kDepth] = static_cast<std::uint32_t>(bytes);
  // Pairs with the sleeper's increment, process barrier and re-check in wait_for(). The fence of a
  // seq_cst store stalls this rank until the others' copies of the line are gone: 2 ranks,
  // osu_barrier 0.48 us with it and 0.32 without, 8 B bcast 0.11 and 0.07 (Open MPI 0.54, 0.14;
  // medians of 5-7 interleaved runs). The sleeper's barrier costs 1.4 us or more per sleep slice.
  if (light_stores_) [[likely]] {
    std::atomic_ref<std::uint32_t>(f.seq).store(k.seq, std::memory_order_release);
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    std::atomic_ref<std::uint32_t>(f.seq).store(k.seq, std::memory_order_seq_cst);
  }
  if (load(f.sleepers, std::memory_order_seq_cst) != 0) [[unlikely]] wake_sleepers(k);
}

// Who sleeps on this rank's flag is not known, only that someone does: every member of the call
// that sleeps gets its doorbell rung (one asleep for another reason re-checks and sleeps again).
void NodeCollectives::wake_sleepers(const Call& k) {
  for (int i = 0; i < k.n; ++i)
    if (i != k.me) mcm_.wake_if_asleep(k.job_ranks[i]);
}

void NodeCollectives::mate_first(const Call& k, std::uint32_t target) {
  progress::Engine& progress = engine_.progress();
  if (!progress.oversubscribed() || k.n == 2) return;
  int mates = 0;
  for (int i = 0; i < k.n; ++i) {
    if (i == k.me || !mcm_.shares_cpu(k.job_ranks[i])) continue;
    ++mates;
    wait_rank(k, i, target);
  }
  if (mates == 0) return;
  // The others run on other CPUs: poll their flags, the devices every kPollEvery rounds.
  const auto until = progress::Engine::Clock::now() + kCrossCpuSpin;
  for (unsigned round = 1;; ++round) {
    bool all = true;
    for (int i = 0; i < k.n; ++i) {
      std::uint32_t& seen = k.progress->seen[std::size_t(i)];
      if (i == k.me || reached(seen, target)) continue;
      const std::uint32_t v = load(k.flags[i].seq, std::memory_order_acquire);
      if (reached(v, target)) {
        seen = v;
      } else {
        all = false;
      }
    }
    if (all) return;
    base::spin_pause();
    if (round % kPollEvery == 0) {
      progress.poll();
      if (progress::Engine::Clock::now() > until) return;
    }
  }
}

void NodeCollectives::wait_all(const Call& k, std::uint32_t target) {
  Progress& p = *k.progress;
  if (reached(p.synced, target)) return;
  mate_first(k, target);
  std::uint32_t least_ahead = ~std::uint32_t{0};  // of every other rank, past target
  for (int i = 0; i < k.n; ++i) {
    if (i == k.me) continue;
    wait_rank(k, i, target);
    least_ahead = std::min(least_ahead, p.seen[std::size_t(i)] - target);
  }
  p.synced = target + least_ahead;
}

void NodeCollectives::wait_rank(const Call& k, int rank, std::uint32_t target) {
  std::uint32_t& seen = k.progress->seen[std::size_t(rank)];
  if (!reached(seen, target)) seen = wait_for(k.flags[rank], target);
}

std::uint32_t NodeCollectives::wait_for(Flag& flag, std::uint32_t target) {
  std::uint32_t v = load(flag.seq, std::memory_order_acquire);
  if (reached(v, target)) return v;
  progress::Engine& progress = engine_.progress();
  // Spinning reads only the flag; the devices are polled every kPollEvery reads (a pass over
  // them costs far more than one read, and would stretch the spin a waiting rank is allowed).
  // A pause between reads: 2 ranks, osu_barrier -i 50, 5 interleaved runs, 0.21-0.23 -> 0.15-0.21
  // us (median 0.22 -> 0.16; a bare two-process flag barrier takes 0.155). In spin_until() (the
  // inline cells of allreduce, bcast's small cell) it measured no gain (allreduce 64-128 B 0.30-0.42
  // -> 0.35-0.53 us, 4 runs): none there.
  for (unsigned i = 0; i < spin_; ++i) {
    if (i % kPollEvery == kPollEvery - 1) progress.poll();
    if (reached(v = load(flag.seq, std::memory_order_acquire), target)) return v;
    base::spin_pause();
  }
  if (progress.spin_time().count() > 0) {
    const auto until = progress::Engine::Clock::now() + progress.spin_time();
    do {
      for (unsigned i = 0; i < kPollEvery; ++i) {
        if (reached(v = load(flag.seq, std::memory_order_acquire), target)) return v;
      }
      progress.poll();
    } while (progress::Engine::Clock::now() < until);
  }
  // With a core per rank the yields last kAwakeAfterArrival at least, as a point-to-point wait's
  // do (a rank keeping its core from another program polls instead, and its yield_ polls alone
  // would end within microseconds in a sleep that costs a wake-up).
  // An arrival (a one-sided request, a rendezvous handshake) starts the budget again, as in a
  // point-to-point wait: a rank that is sent to while it waits here stays awake.
  auto stay_awake = [&](auto& v) {
    auto awake_until = progress.oversubscribed()
                           ? progress::Engine::Clock::time_point{}
                           : progress::Engine::Clock::now() + progress::Engine::kAwakeAfterArrival;
    for (unsigned i = 0; i < yield_ || progress::Engine::Clock::now() < awake_until; ++i) {
      (void)progress.yield_core();  // keeps yielding when crowded (see the header)
      const int events = progress.poll();
      if (reached(v = load(flag.seq, std::memory_order_acquire), target)) return true;
      if (events > 0) {
        i = 0;
        if (!progress.oversubscribed())
          awake_until = progress::Engine::Clock::now() + progress::Engine::kAwakeAfterArrival;
      }
    }
    return false;
  };
  if (stay_awake(v)) return v;
  // Sleep on this rank's doorbell, which both the arriving rank (wake_sleepers()) and any
  // point-to-point arrival ring: a rank waiting here answers one-sided requests and rendezvous
  // handshakes at once, not at the end of a slice (a passive-target MPI_Put to a rank in
  // MPI_Barrier, osu_rma put_lat: 140 us a put when the sleep was on the flag alone, in slices of
  // up to 2 ms). The doorbell is read before the flag is re-checked, so a ring after the check
  // ends the sleep.
  auto slice = std::chrono::microseconds(50);
  std::atomic_ref<std::uint32_t> sleepers(flag.sleepers);
  for (;;) {
    const std::uint32_t bell = mcm_.begin_sleep();
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    mcm::NodeMemory::sleeper_fence();  // the arriving rank's store may have had no fence
    const std::uint32_t now = load(flag.seq, std::memory_order_seq_cst);
    if (!reached(now, target)) mcm_.end_sleep(bell, slice);
    else mcm_.cancel_sleep();
    sleepers.fetch_sub(1, std::memory_order_relaxed);
    if (reached(v = load(flag.seq, std::memory_order_acquire), target)) return v;
    if (progress.poll() > 0) {
      if (stay_awake(v)) return v;
      slice = std::chrono::microseconds(50);
    } else if (slice < std::chrono::microseconds(2000)) {
      slice *= 2;
    }
    if (reached(v = load(flag.seq, std::memory_order_acquire), target)) return v;
  }
}

template <class Ready>
bool NodeCollectives::spin_until(Ready ready) {
  for (unsigned i = 0; i < spin_; ++i) {
    if (ready()) return true;
    if (i % kPollEvery == kPollEvery - 1) engine_.progress().poll();
  }
  return ready();
}

bool NodeCollectives::wait_word(const Call& k, const std::uint32_t& word, int rank, std::uint32_t target,
                                 std::size_t lines_after) {
  const auto* line = reinterpret_cast<const std::byte*>(&word);
  const auto shows = [&] {
    for (std::size_t j = 1; j <= lines_after; ++j) base::fetch_line(line + 64 * j);
    return load(word, std::memory_order_acquire) == target;
  };
  if (spin_until(shows)) return true;
  wait_rank(k, rank, target);
  return shows();
}

void NodeCollectives::put_inline(const Call& k, const void* in, std::size_t bytes) {
  InlineLine* line = k.inline_cell(k.me);
  const auto* src = static_cast<const std::byte*>(in);
  for (std::size_t j = 0, at = 0; j < inline_lines(bytes); ++j, at += kInlinePart) {
    line[j].bytes = static_cast<std::uint32_t>(bytes);
    if (bytes > at) std::memcpy(line[j].data, src + at, std::min(kInlinePart, bytes - at));
    std::atomic_ref<std::uint32_t>(line[j].seq).store(k.seq, std::memory_order_release);
  }
  arrive(k, kNoBytes);
}

std::size_t NodeCollectives::get_inline(const Call& k, int rank, std::byte* out, std::size_t bytes) {
  const InlineLine* line = k.inline_cell(rank);
  // Every line this rank expects is polled at once, so that they travel in parallel.
  const std::size_t lines = inline_lines(bytes);
  const auto there = [&] {
    bool all = true;
    for (std::size_t j = 0; j < lines; ++j) all &= load(line[j].seq, std::memory_order_acquire) == k.seq;
    return all;
  };
  if (!there()) [[unlikely]] {
    // Past the spin, the flag; then the lines the rank wrote are there (it writes fewer than this
    // rank expects when it passes fewer bytes, and none when it passes its input cell: more than
    // kInlineMax, an error that is reported as a truncation).
    if (!spin_until(there)) wait_rank(k, rank, k.seq);
    if (load(line[0].seq, std::memory_order_acquire) != k.seq) {
      std::memset(out, 0, bytes);
      return k.bytes_of(rank);
    }
  }
  const std::size_t sent = line[0].bytes, got = std::min(sent, bytes);
  for (std::size_t j = 0, at = 0; at < got; ++j, at += kInlinePart)
    std::memcpy(out + at, line[j].data, std::min(kInlinePart, got - at));
  if (got < bytes) std::memset(out + got, 0, bytes - got);
  return sent;
}

std::size_t NodeCollectives::combine_inline(const Call& k, void* out, std::size_t count, const Reducer& op) {
  const std::size_t bytes = count * op.elem;
  alignas(64) std::byte acc[kInlineMax];
  alignas(64) std::byte x[kInlineMax];
  mate_first(k, k.seq);
  std::size_t most = get_inline(k, k.n - 1, acc, bytes);
  for (int i = k.n - 2; i >= 0; --i) {
    most = std::max(most, get_inline(k, i, x, bytes));
    op(x, acc, count);
  }
  if (bytes) std::memcpy(out, acc, bytes);
  // Every rank's line showed this call: every rank entered it.
  Progress& p = *k.progress;
  if (!reached(p.synced, k.seq)) p.synced = k.seq;
  return most;
}

void NodeCollectives::map_once(bool& mapped, std::span<std::byte> cells, std::size_t bytes) {
  if (bytes <= kPageBytes || mapped) [[likely]] return;
  memory_.prefault(cells);
  mapped = true;
}

std::size_t NodeCollectives::largest(const Call& k) {
  std::uint32_t most = 0;
  for (int i = 0; i < k.n; ++i) most = std::max(most, k.bytes_of(i));
  return std::size_t(most);
}

void NodeCollectives::combine(const Call& k, void* out, std::size_t count, const Reducer& op) {
  std::memcpy(out, k.input(k.n - 1), count * op.elem);
  for (int i = k.n - 2; i >= 0; --i) op(k.input(i), out, count);
}

NodeCollectives::Result NodeCollectives::barrier(const core::Communicator& c) {
  if (!usable(c, 0)) return Result::not_taken;
  const Call k = begin(c);
  arrive(k, kNoBytes);
  wait_all(k, k.seq);
  return Result::done;
}

bool NodeCollectives::anyone_waits(const Call& k) {
  for (int i = 0; i < k.n; ++i) {
    if (i != k.me && reached(load(k.flags[i].seq, std::memory_order_relaxed), k.seq)) return true;
  }
  return false;
}

NodeCollectives::Result NodeCollectives::bcast(const core::Communicator& c, void* buf, std::size_t bytes, int root) {
  if (!usable(c, bytes)) return Result::not_taken;
  if (c.size() == 2 && bytes > kPairBcastLimit) {
    const int peer = c.job_ranks[std::size_t(1 - c.rank)];
    const device::Figures& f = mcm_.figures(peer);
    if (pair_copies(f, bytes)) {
      ++pair_calls_;
      return pair_bcast(begin(c), peer, buf, bytes, root);
    }
    if (f.single_copy && bytes > f.eager_limit && bytes >= f.single_copy_min) return Result::not_taken;
  }
  const Call k = begin(c);
  SmallCell& small = k.small_cell();
  const std::atomic_ref<std::uint32_t> ready(small.ready);
  map_once(k.progress->bcast_cells_mapped, {k.bcast_cells, kDepth * k.cell}, bytes);
  if (k.me == root) {
    const bool in_small = bytes <= kSmallBcastMax;
    // The last reader of the cells this call writes is done with them. A root held back waits
    // until half of them are free: it then reads the others' flags once in depth/2 calls
    // instead of at each call while it runs a whole depth ahead.
    const std::uint32_t depth = in_small ? kSmallDepth : kDepth;
    if (!reached(k.progress->synced, k.seq - (depth - 1))) wait_all(k, k.seq - depth / 2);
    if (in_small) {
      // The lines past the first, then the first's: the line of the call number, which a
      // waiting receiver reads, is fetched by the root once, not once for the data and again
      // for the call number. 2 ranks, osu_bcast of 10000 calls, medians of 7 interleaved runs:
      // 64 B 0.22 -> 0.10 us, 128 B 0.23 -> 0.10.
      constexpr std::size_t kFirstLineData = 64 - offsetof(SmallCell, data);
      const auto* src = static_cast<const std::byte*>(buf);
      if (bytes > kFirstLineData) std::memcpy(small.data + kFirstLineData, src + kFirstLineData, bytes - kFirstLineData);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      small.bytes = static_cast<std::uint32_t>(bytes);
      if (bytes) std::memcpy(small.data, src, std::min(bytes, kFirstLineData));
      std::atomic_ref<std::uint32_t>(small.seq).store(k.seq, std::memory_order_release);
      arrive(k, kNoBytes);
      return Result::done;
    }
    // The first piece goes before the call number, which carries its size: the receivers find
    // it there at once, and the small cell's line is written once more for each later piece.
    // When no other member has entered the call yet, none waits to copy pieces as they come:
    // the data goes whole (a receiver that follows the root piece by piece makes both fetch
    // lines from each other: 2 ranks through the region, osu_bcast, medians of 7 interleaved
    // runs, 16 KiB 1.06 -> 0.98 us, 32 KiB 2.28 -> 1.86, 64 KiB 4.54 -> 3.53; 4 ranks, 8-64 KiB
    // 0.91-0.97 of before).
    std::byte* cell = k.bcast_cell();
    const auto* src = static_cast<const std::byte*>(buf);
    const std::size_t first = bytes > kBcastChunk && !anyone_waits(k) ? bytes : std::min(kBcastChunk, bytes);
    std::memcpy(cell, src, first);
    small.bytes = static_cast<std::uint32_t>(bytes);
    ready.store(static_cast<std::uint32_t>(first), std::memory_order_relaxed);
    std::atomic_ref<std::uint32_t>(small.seq).store(k.seq, std::memory_order_release);
    arrive(k, kNoBytes);
    for (std::size_t at = first; at < bytes; at += kBcastChunk) {
      const std::size_t n = std::min(kBcastChunk, bytes - at);
      std::memcpy(cell + at, src + at, n);
      ready.store(static_cast<std::uint32_t>(at + n), std::memory_order_release);
    }
    return Result::done;
  }
  arrive(k, kNoBytes);
  // The root stores the call number in the small cell before it sets its flag: always there then.
  // A bcast whose data runs past the cell's first line: the spin reads the other lines too, so
  // that they travel while the first does (one line's transfer instead of two in a row). 2 ranks,
  // osu_bcast, medians of 9 interleaved runs, two runs: 64 B 0.14 -> 0.10 and 0.12 -> 0.13 us,
  // 128 B 0.17 -> 0.08 and 0.14 -> 0.09 (a root runs up to kSmallDepth calls ahead, and then
  // the lines are there before the receiver looks: no spin, no change).
  if (load(small.seq, std::memory_order_acquire) != k.seq) {
    static_assert(offsetof(SmallCell, seq) < 64 && sizeof(SmallCell) % 64 == 0);
    const std::size_t lines = bytes <= kSmallBcastMax ? (offsetof(SmallCell, data) + bytes + 63) / 64 : 1;
    wait_word(k, small.seq, root, k.seq, lines - 1);
  }
  const std::size_t sent = small.bytes;
  const std::size_t got = std::min(bytes, sent);
  if (sent <= kSmallBcastMax) {
    if (got) std::memcpy(buf, small.data, got);
  } else {
    // The root is writing the cell now: copy each piece once it is there.
    const std::byte* cell = k.bcast_cell();
    std::size_t done = 0;
    unsigned idle = 0;
    while (done < got) {
      const std::size_t have = std::min<std::size_t>(ready.load(std::memory_order_acquire), got);
      if (have > done) {
        std::memcpy(static_cast<std::byte*>(buf) + done, cell + done, have - done);
        done = have;
        idle = 0;
      } else if (++idle >= spin_) {
        idle = 0;
        (void)engine_.progress().yield_core();  // the root shares this core (more ranks than cores)
      }
    }
  }
  return sent > bytes ? Result::truncated : Result::done;
}

NodeCollectives::Result NodeCollectives::pair_bcast(const Call& k, int peer, void* buf, std::size_t bytes, int root) {
  const int other = 1 - k.me;
  const bool is_root = k.me == root;
  // Call s: each rank's buffer address and byte count in the first line of its inline cell.
  wait_all(k, k.seq - 1);  // the other finished reading this rank's inline cell of call seq-2
  const std::uint64_t addr = reinterpret_cast<std::uint64_t>(buf);
  const InlineLine& theirs = swap_line(k, static_cast<std::uint32_t>(bytes), {&addr, 1}, "bcast");
  std::uint64_t their_addr = 0;
  std::memcpy(&their_addr, theirs.data, sizeof their_addr);
  const std::size_t sent = is_root ? bytes : theirs.bytes;  // the root's count
  const std::size_t got = std::min(sent, is_root ? std::size_t(theirs.bytes) : bytes);
  const std::size_t head = p2p::shared_copy_head(got);  // what the root writes, as in point-to-point
  auto* data = static_cast<std::byte*>(buf);
  // Call s+1: the root writes the head into the receiver's buffer while the receiver reads the
  // tail from the root's; each says in its inline cell's first line whether its copy worked.
  Call part = k;
  part.seq = ++k.progress->seq;
  const bool ok = is_root ? head == 0 || mcm_.write_remote(peer, their_addr, {data, head})
                          : got == head || mcm_.read_remote(peer, their_addr + head, {data + head, got - head});
  const bool their_ok = swap_line(part, ok ? 1 : 0, {}, "bcast").bytes != 0;
  if (ok && their_ok) return sent > bytes ? Result::truncated : Result::done;
  // A refused single copy (a security policy, a seccomp filter): the part it missed goes by the
  // other single copy when that one worked, else through the region's bcast cell. Call s+2: done.
  Call fix = part;
  fix.seq = ++k.progress->seq;
  const bool root_ok = is_root ? ok : their_ok, receiver_ok = is_root ? their_ok : ok;
  if (receiver_ok) {  // the root's write was refused: the receiver reads the head too
    if (!is_root && !mcm_.read_remote(peer, their_addr, {data, head}))
      base::fatal("node bcast: single copy from rank %d refused after it worked", other);
  } else if (root_ok) {  // the receiver's read was refused: the root writes the tail too
    if (is_root && !mcm_.write_remote(peer, their_addr + head, {data + head, got - head}))
      base::fatal("node bcast: single copy to rank %d refused after it worked", other);
  } else {  // both refused: through the cell of call s+1 (every rank entered it)
    map_once(k.progress->bcast_cells_mapped, {k.bcast_cells, kDepth * k.cell}, got);
    if (is_root) std::memcpy(part.bcast_cell(), data, got);
    arrive(fix, kNoBytes);
    wait_rank(fix, other, fix.seq);
    if (!is_root) std::memcpy(data, part.bcast_cell(), got);
    fix.seq = ++k.progress->seq;  // the root keeps the cell until the receiver copied it
  }
  arrive(fix, kNoBytes);
  wait_rank(fix, other, fix.seq);
  return sent > bytes ? Result::truncated : Result::done;
}

NodeCollectives::Result NodeCollectives::reduce(const core::Communicator& c, const void* sendbuf, void* recvbuf,
                                                std::size_t count, const Reducer& op, int root) {
  const std::size_t bytes = count * op.elem;
  if (!op.fn || !usable(c, bytes)) return Result::not_taken;
  const Call k = begin(c);
  if (bytes <= kInlineMax) {
    wait_all(k, k.seq - 1);  // every reader of this rank's inline cell finished call seq-2
    put_inline(k, sendbuf, bytes);
    if (k.me != root) return Result::done;
    return combine_inline(k, recvbuf, count, op) > bytes ? Result::truncated : Result::done;
  }
  map_once(k.progress->input_cells_mapped, {k.input_cells, std::size_t(k.n) * 2 * k.cell}, bytes);
  wait_all(k, k.seq - 1);  // every reader of this rank's input cell finished call seq-2
  if (bytes) std::memcpy(k.input(k.me), sendbuf, bytes);
  arrive(k, bytes);
  if (k.me != root) return Result::done;
  wait_all(k, k.seq);
  if (bytes) combine(k, recvbuf, count, op);
  return largest(k) > bytes ? Result::truncated : Result::done;
}

NodeCollectives::Result NodeCollectives::allreduce(const core::Communicator& c, const void* sendbuf, void* recvbuf,
                                                   std::size_t count, const Reducer& op) {
  const std::size_t bytes = count * op.elem;
  if (!op.fn || !usable(c, bytes)) return Result::not_taken;
  const Call k = begin(c);
  if (bytes <= kInlineMax) {
    wait_all(k, k.seq - 1);  // every reader of this rank's inline cell finished call seq-2
    put_inline(k, sendbuf, bytes);
    return combine_inline(k, recvbuf, count, op) > bytes ? Result::truncated : Result::done;
  }
  map_once(k.progress->input_cells_mapped, {k.input_cells, std::size_t(k.n) * 2 * k.cell}, bytes);
  wait_all(k, k.seq - 1);  // every reader of this rank's input cell finished call seq-2
  if (k.n == 2 && bytes >= kPairAllreduceMin) {
    const int peer = c.job_ranks[std::size_t(1 - c.rank)];
    const device::Figures& f = mcm_.figures(peer);
    if (pair_copies(f, bytes)) {
      ++pair_calls_;
      return pair_allreduce(k, peer, sendbuf, recvbuf, count, op);
    }
  }
  if (bytes >= k.progress->blocks_min) return allreduce_blocks(k, sendbuf, recvbuf, count, op);
  if (bytes) std::memcpy(k.input(k.me), sendbuf, bytes);
  arrive(k, bytes);
  wait_all(k, k.seq);
  if (bytes) combine(k, recvbuf, count, op);
  return largest(k) > bytes ? Result::truncated : Result::done;
}

const NodeCollectives::InlineLine& NodeCollectives::swap_line(const Call& k, std::uint32_t bytes,
                                                             std::span<const std::uint64_t> words, const char* what) {
  const int other = 1 - k.me;
  InlineLine& mine = k.inline_cell(k.me)[0];
  const InlineLine& theirs = k.inline_cell(other)[0];
  mine.bytes = bytes;
  if (!words.empty()) std::memcpy(mine.data, words.data(), words.size_bytes());
  std::atomic_ref<std::uint32_t>(mine.seq).store(k.seq, std::memory_order_release);
  arrive(k, kNoBytes);
  if (!wait_word(k, theirs.seq, other, k.seq))
    base::fatal("node %s: rank %d of a 2-rank communicator took another path in call %u (a count on the other side "
                "of the single-copy threshold?)",
                what, other, k.seq);
  return theirs;
}

NodeCollectives::Result NodeCollectives::pair_allreduce(const Call& k, int peer, const void* sendbuf, void* recvbuf,
                                                        std::size_t count, const Reducer& op) {
  const int other = 1 - k.me;
  const std::size_t elem = op.elem;
  // Call s: each rank's send and receive buffer addresses and element count in the first line of
  // its inline cell (whose readers finished call s-2: the caller waited for call s-1).
  const std::uint64_t addrs[2] = {reinterpret_cast<std::uint64_t>(sendbuf), reinterpret_cast<std::uint64_t>(recvbuf)};
  const InlineLine& theirs = swap_line(k, static_cast<std::uint32_t>(count * elem), addrs, "allreduce");
  std::uint64_t their_addrs[2];
  std::memcpy(their_addrs, theirs.data, sizeof their_addrs);
  const std::size_t their_bytes = theirs.bytes;
  // Both ranks cut the elements both passed (counts that differ are an error: reported below).
  const std::size_t n = std::min(count, their_bytes / elem);
  const std::size_t lo = block_edge(n, elem, k.me, 2) * elem, hi = block_edge(n, elem, k.me + 1, 2) * elem;
  const std::size_t their_lo = block_edge(n, elem, other, 2) * elem,
                    their_hi = block_edge(n, elem, other + 1, 2) * elem;
  const auto* in = static_cast<const std::byte*>(sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  // This rank's block, x0 op x1: the other's input read into this rank's input cell (whose
  // readers finished call s-2; in place, reading it straight into the receive buffer would
  // overwrite this rank's own input), or, for rank 0 out of place, into the receive buffer.
  bool read_ok = true, write_ok = true;
  if (hi > lo) {
    const std::size_t len = hi - lo, elems = len / elem;
    if (k.me == 0 && out != in) {
      read_ok = mcm_.read_remote(peer, their_addrs[0] + lo, {out + lo, len});
      if (read_ok) op(in + lo, out + lo, elems);  // x0 op x1 into x1's copy
    } else {
      std::byte* theirs_in = k.input(k.me);
      read_ok = mcm_.read_remote(peer, their_addrs[0] + lo, {theirs_in, len});
      if (read_ok && k.me == 0) {
        op(in + lo, theirs_in, elems);
        std::memcpy(out + lo, theirs_in, len);
      } else if (read_ok) {
        if (out != in) std::memcpy(out + lo, in + lo, len);
        op(theirs_in, out + lo, elems);
      }
    }
    // The other's receive buffer there is free: it holds nothing the other reads in this call
    // (in place, its input for this block, which this rank has read).
    write_ok = read_ok && mcm_.write_remote(peer, their_addrs[1] + lo, {out + lo, len});
  }
  // Call s+1: each rank says in its inline cell whether its copies worked; seeing the other's
  // also tells this rank that the other's result is in its receive buffer and that the other has
  // read this rank's input.
  Call done = k;
  done.seq = ++k.progress->seq;
  const InlineLine& their_ok = swap_line(done, (read_ok ? 1u : 0u) | (write_ok ? 2u : 0u), {}, "allreduce");
  bool read[2], wrote[2];
  read[k.me] = read_ok;
  wrote[k.me] = write_ok;
  read[other] = (their_ok.bytes & 1u) != 0;
  wrote[other] = (their_ok.bytes & 2u) != 0;
  if (!(read[0] && read[1] && wrote[0] && wrote[1]))
    pair_allreduce_refused(done, read, wrote, sendbuf, recvbuf, lo, hi, their_lo, their_hi, op);
  return their_bytes > count * elem ? Result::truncated : Result::done;
}

void NodeCollectives::pair_allreduce_refused(const Call& k, const bool (&read_ok)[2], const bool (&write_ok)[2],
                                             const void* sendbuf, void* recvbuf, std::size_t lo, std::size_t hi,
                                             std::size_t their_lo, std::size_t their_hi, const Reducer& op) {
  const int me = k.me, other = 1 - me;
  const auto* in = static_cast<const std::byte*>(sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  // Call s+2, input cells (every rank entered call s+1, so their readers are done): the other's
  // block of this rank's input when the other could not read it (no one wrote into this rank's
  // receive buffer there: in place, the input is whole), and this rank's result when it could not
  // write it.
  Call give = k;
  give.seq = ++k.progress->seq;
  if (!read_ok[other] && their_hi > their_lo) std::memcpy(give.input(me) + their_lo, in + their_lo, their_hi - their_lo);
  if (read_ok[me] && !write_ok[me] && hi > lo) std::memcpy(give.input(me) + lo, out + lo, hi - lo);
  arrive(give, kNoBytes);
  wait_rank(give, other, give.seq);
  if (read_ok[other] && !write_ok[other] && their_hi > their_lo)
    std::memcpy(out + their_lo, give.input(other) + their_lo, their_hi - their_lo);
  // Call s+3: this rank's block, when it could not read the other's input, from the other's cell
  // of call s+2 (x0 op x1, as in pair_allreduce()), and back to the other in this rank's cell.
  Call back = give;
  back.seq = ++k.progress->seq;
  if (!read_ok[me] && hi > lo) {
    const std::size_t len = hi - lo, elems = len / op.elem;
    std::byte* result = back.input(me) + lo;
    if (me == 0) {
      std::memcpy(result, give.input(other) + lo, len);
      op(in + lo, result, elems);
    } else {
      std::memcpy(result, in + lo, len);
      op(give.input(other) + lo, result, elems);
    }
    std::memcpy(out + lo, result, len);
  }
  arrive(back, kNoBytes);
  wait_rank(back, other, back.seq);
  if (!read_ok[other] && their_hi > their_lo)
    std::memcpy(out + their_lo, back.input(other) + their_lo, their_hi - their_lo);
  // The other reads this rank's cell of call s+3 until it enters call s+4: the next call that
  // writes it (s+5) waits for that.
}

NodeCollectives::Result NodeCollectives::allreduce_blocks(const Call& k, const void* sendbuf, void* recvbuf,
                                                          std::size_t count, const Reducer& op) {
  const std::size_t elem = op.elem, bytes = count * elem;
  // Block b: elements [edge(b), edge(b + 1)).
  const auto edge = [&](int b) { return block_edge(count, elem, b, k.n); };
  const auto* in = static_cast<const std::byte*>(sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  const std::size_t lo = edge(k.me) * elem, hi = edge(k.me + 1) * elem;
  // Phase 1: every block but this rank's own into its input cell.
  std::byte* cell = k.input(k.me);
  if (lo) std::memcpy(cell, in, lo);
  if (hi < bytes) std::memcpy(cell + hi, in + hi, bytes - hi);
  arrive(k, bytes);
  wait_all(k, k.seq);
  // This rank's block, x0 op (x1 op (... x(n-1))), into its cell of the next call number (whose
  // readers finished call seq-1: waited for above).
  Call r = k;
  r.seq = ++k.progress->seq;
  std::byte* result = r.input(k.me) + lo;
  const auto x = [&](int i) { return (i == k.me ? in : k.input(i)) + lo; };
  if (hi > lo) {
    std::memcpy(result, x(k.n - 1), hi - lo);
    for (int i = k.n - 2; i >= 0; --i) op(x(i), result, (hi - lo) / elem);
    std::memcpy(out + lo, result, hi - lo);
  }
  // Phase 2: the other blocks from their ranks' results.
  arrive(r, kNoBytes);
  wait_all(r, r.seq);
  for (int b = 0; b < k.n; ++b) {
    if (b == k.me) continue;
    const std::size_t b_lo = edge(b) * elem, b_hi = edge(b + 1) * elem;
    if (b_hi > b_lo) std::memcpy(out + b_lo, r.input(b) + b_lo, b_hi - b_lo);
  }
  return largest(k) > bytes ? Result::truncated : Result::done;
}

}  // namespace railmpi::coll
