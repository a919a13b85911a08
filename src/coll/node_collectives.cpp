#include "coll/node_collectives.hpp"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>

#include "coll/collectives.hpp"

namespace railmpi::coll {
namespace {

std::uint32_t load(const std::uint32_t& w, std::memory_order mo) {
  return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(w)).load(mo);
}

// `seq` is at or past `target` (call numbers wrap around after 2^32 calls).
bool reached(std::uint32_t seq, std::uint32_t target) { return static_cast<std::int32_t>(seq - target) >= 0; }

}  // namespace

NodeCollectives::NodeCollectives(mcm::MultiMethod& mcm, Engine& engine, const base::Settings& settings)
    : mcm_(mcm),
      memory_(mcm.node_memory()),
      engine_(engine),
      limit_(settings.node_coll_limit),
      cell_((settings.node_coll_limit + 63) / 64 * 64),
      spin_(settings.spin_count),
      yield_(settings.yield_count) {}

bool NodeCollectives::usable(const core::Communicator& c, std::size_t bytes) {
  if (bytes > limit_ || !memory_.available() || c.is_inter() || c.size() < 2) return false;
  if (c.node_slot == core::Communicator::kNodeSlotUndecided) [[unlikely]] decide(c);
  return c.node_slot >= 0;
}

void NodeCollectives::decide(const core::Communicator& c) {
  const std::vector<int>& node = mcm_.node_ranks();
  const bool on_node = std::all_of(c.job_ranks.begin(), c.job_ranks.end(),
                                   [&](int r) { return std::binary_search(node.begin(), node.end(), r); });
  const std::size_t n = std::size_t(c.size());
  if (!on_node || (1 + n) * sizeof(Line) + (2 + n) * cell_ > memory_.slot_bytes()) {
    c.node_slot = -1;  // every member sees the same: no agreement needed
    return;
  }
  // Rank 0 claims a slot for all members and tells them which (or -1: the region is full).
  std::int32_t slot = c.rank == 0 ? memory_.claim(c.size()) : -1;
  auto s = engine_.create(c);
  coll::bcast(*s, &slot, sizeof slot, 0);
  engine_.run(std::move(s));
  c.node_slot = slot;
  c.node_seq = 0;
}

void NodeCollectives::release(const core::Communicator& c) {
  if (c.node_slot >= 0) memory_.release(c.node_slot);
  c.node_slot = -1;
}

NodeCollectives::Cell NodeCollectives::begin(const core::Communicator& c) {
  std::byte* base = memory_.slot(c.node_slot).data();
  const std::size_t n = std::size_t(c.size());
  Cell k;
  k.release = reinterpret_cast<Line*>(base);
  k.arrive = k.release + 1;
  k.results = base + (1 + n) * sizeof(Line);
  k.inputs = k.results + 2 * cell_;
  k.cell = cell_;
  k.seq = ++c.node_seq;
  return k;
}

void NodeCollectives::post(Line& line, std::uint32_t value, std::size_t bytes) {
  line.bytes = bytes;
  std::atomic_ref<std::uint32_t>(line.seq).store(value, std::memory_order_seq_cst);
  // Pairs with the sleeper's increment and re-check in wait_for().
  if (load(line.sleepers, std::memory_order_seq_cst) != 0) [[unlikely]] mcm::NodeMemory::wake(&line.seq);
}

std::size_t NodeCollectives::largest(const Cell& k, int n) {
  std::size_t most = 0;
  for (int i = 0; i < n; ++i) most = std::max<std::size_t>(most, k.arrive[i].bytes);
  return most;
}

void NodeCollectives::wait_for(Line& line, std::uint32_t target) {
  if (reached(load(line.seq, std::memory_order_acquire), target)) return;
  progress::Engine& progress = engine_.progress();
  for (unsigned i = 0; i < spin_; ++i) {
    progress.poll();
    if (reached(load(line.seq, std::memory_order_acquire), target)) return;
  }
  for (unsigned i = 0; i < yield_; ++i) {
    sched_yield();
    progress.poll();
    if (reached(load(line.seq, std::memory_order_acquire), target)) return;
  }
  // Sleep in slices: point-to-point traffic does not wake this futex, so poll between slices.
  auto slice = std::chrono::microseconds(50);
  std::atomic_ref<std::uint32_t> sleepers(line.sleepers);
  for (;;) {
    sleepers.fetch_add(1, std::memory_order_seq_cst);
    const std::uint32_t now = load(line.seq, std::memory_order_seq_cst);
    if (!reached(now, target)) mcm::NodeMemory::wait(&line.seq, now, slice);
    sleepers.fetch_sub(1, std::memory_order_relaxed);
    if (reached(load(line.seq, std::memory_order_acquire), target)) return;
    if (progress.poll() > 0) {
      slice = std::chrono::microseconds(50);
    } else if (slice < std::chrono::microseconds(2000)) {
      slice *= 2;
    }
    if (reached(load(line.seq, std::memory_order_acquire), target)) return;
  }
}

void NodeCollectives::combine(const Cell& k, int n, void* out, std::size_t count, const Reducer& op) {
  std::memcpy(out, k.input(n - 1), count * op.elem);
  for (int i = n - 2; i >= 0; --i) op(k.input(i), out, count);
}

NodeCollectives::Result NodeCollectives::barrier(const core::Communicator& c) {
  if (!usable(c, 0)) return Result::not_taken;
  const Cell k = begin(c);
  const int n = c.size();
  post(k.arrive[c.rank], k.seq, 0);
  if (c.rank == 0) {
    for (int i = 1; i < n; ++i) wait_for(k.arrive[i], k.seq);
    post(*k.release, k.seq, 0);
  } else {
    wait_for(*k.release, k.seq);
  }
  return Result::done;
}

NodeCollectives::Result NodeCollectives::bcast(const core::Communicator& c, void* buf, std::size_t bytes, int root) {
  if (!usable(c, bytes)) return Result::not_taken;
  const Cell k = begin(c);
  const int n = c.size();
  post(k.arrive[c.rank], k.seq, bytes);
  if (c.rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) wait_for(k.arrive[i], k.seq - 1);
    if (bytes) std::memcpy(k.result(), buf, bytes);
    post(*k.release, k.seq, bytes);
  } else {
    wait_for(*k.release, k.seq);
    const std::size_t got = std::min<std::size_t>(bytes, k.release->bytes);
    if (got) std::memcpy(buf, k.result(), got);
  }
  return outcome(k, bytes);
}

NodeCollectives::Result NodeCollectives::reduce(const core::Communicator& c, const void* sendbuf, void* recvbuf,
                                                std::size_t count, const Reducer& op, int root) {
  const std::size_t bytes = count * op.elem;
  if (!op.fn || !usable(c, bytes)) return Result::not_taken;
  const Cell k = begin(c);
  const int n = c.size();
  if (bytes) std::memcpy(k.input(c.rank), sendbuf, bytes);
  post(k.arrive[c.rank], k.seq, bytes);
  if (c.rank == root) {
    for (int i = 0; i < n; ++i)
      if (i != root) wait_for(k.arrive[i], k.seq);
    if (bytes) combine(k, n, recvbuf, count, op);
    post(*k.release, k.seq, largest(k, n));
  } else {
    wait_for(*k.release, k.seq);  // the root has read this rank's input cell
  }
  return outcome(k, bytes);
}

NodeCollectives::Result NodeCollectives::allreduce(const core::Communicator& c, const void* sendbuf, void* recvbuf,
                                                   std::size_t count, const Reducer& op) {
  const std::size_t bytes = count * op.elem;
  if (!op.fn || !usable(c, bytes)) return Result::not_taken;
  const Cell k = begin(c);
  const int n = c.size();
  if (bytes) std::memcpy(k.input(c.rank), sendbuf, bytes);
  post(k.arrive[c.rank], k.seq, bytes);
  if (c.rank == 0) {
    for (int i = 1; i < n; ++i) wait_for(k.arrive[i], k.seq);
    if (bytes) combine(k, n, k.result(), count, op);
    post(*k.release, k.seq, largest(k, n));
  } else {
    wait_for(*k.release, k.seq);
  }
  if (bytes) std::memcpy(recvbuf, k.result(), bytes);
  return outcome(k, bytes);
}

}  // namespace railmpi::coll
