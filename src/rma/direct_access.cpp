// One-sided operations on a window whose every rank's memory this process maps (DirectAccess):
// copies between the origin's buffer and the target's region, run by run through both layouts;
// accumulates, fetches and compare-and-swap under the target's lock word, so that they are atomic
// against each other as MPI requires (MPI-3.1 11.7.1), whichever rank issues them.
#include <sched.h>

#include <atomic>
#include <cstring>

#include "base/cache_hint.hpp"
#include "core/datatype.hpp"
#include "core/reduce_op.hpp"
#include "rma/window.hpp"

namespace railmpi::rma {
namespace {

// Bytes of a buffer as a layout (a contiguous one as one run in `block`).
base::Layout as_layout(const Buffer& b, base::Strided& block) {
  return b.layout ? *b.layout : base::contiguous_layout(b.ptr, b.bytes, block);
}

// Calls f(from, to, n) over the first `bytes` bytes of two layouts, in runs cut where either
// layout's run ends (runs of one predefined type's elements stay whole elements).
template <class F>
void zip(const base::Layout& from, const base::Layout& to, std::size_t bytes, F&& f) {
  base::LayoutCursor a(from, 0), b(to, 0);
  std::span<std::byte> ra, rb;
  for (std::size_t done = 0; done < bytes;) {
    if (ra.empty()) ra = a.next(bytes - done);
    if (rb.empty()) rb = b.next(bytes - done);
    if (ra.empty() || rb.empty()) return;
    const std::size_t n = std::min(ra.size(), rb.size());
    f(ra.data(), rb.data(), n);
    ra = ra.subspan(n);
    rb = rb.subspan(n);
    done += n;
  }
}

// The region as one contiguous run from `base`, or nullptr.
std::byte* single_run(std::byte* base, const base::Layout& l) {
  return l.repeat == 1 && l.blocks.size() == 1 && l.blocks[0].count == 1 ? base + l.blocks[0].offset : nullptr;
}

}  // namespace

void Window::complete_now(p2p::Request* done) {
  if (!done) return;
  done->complete = true;
  if (done->on_complete) done->on_complete(*done);
}

std::byte* Window::direct_region(int target, const Region& where) const {
  std::byte* base = direct() ? direct_.bases[std::size_t(target)]
                             : reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(targets_[std::size_t(rank_)].base));
  return base + where.offset;
}

void Window::direct_put(int target, const Buffer& origin, const Region& where) {
  if (std::byte* to = single_run(direct_region(target, where), where.layout); to && !origin.layout) [[likely]] {
    std::memcpy(to, origin.ptr, origin.bytes);
    return;
  }
  base::Strided block;
  base::Layout to = where.layout;
  to.base = direct_region(target, where);
  zip(as_layout(origin, block), to, origin.bytes, [](std::byte* in, std::byte* out, std::size_t n) {
    std::memcpy(out, in, n);
  });
}

void Window::direct_get(int target, const Buffer& origin, const Region& where) {
  if (std::byte* from = single_run(direct_region(target, where), where.layout); from && !origin.layout) [[likely]] {
    std::memcpy(origin.ptr, from, origin.bytes);
    return;
  }
  base::Strided block;
  base::Layout from = where.layout;
  from.base = direct_region(target, where);
  zip(from, as_layout(origin, block), origin.bytes, [](std::byte* in, std::byte* out, std::size_t n) {
    std::memcpy(out, in, n);
  });
}

// The lock of a target's accumulates: held for one operation's loads and stores. A rank that
// finds it taken spins a little, then yields (its holder may be waiting for this core).
void Window::lock_target(int target) {
  if (!direct()) return;  // this rank's own memory: nothing else runs meanwhile
  std::atomic_ref<std::uint32_t> word(*direct_.locks[std::size_t(target)]);
  for (unsigned spins = 0; word.exchange(1, std::memory_order_acquire) != 0;) {
    while (word.load(std::memory_order_relaxed) != 0) {
      if (++spins < 64) base::spin_pause();
      else sched_yield();
    }
  }
}

void Window::unlock_target(int target) {
  if (!direct()) return;
  std::atomic_ref<std::uint32_t>(*direct_.locks[std::size_t(target)]).store(0, std::memory_order_release);
}

// MPI_Win_lock on the target's epoch word: a shared lock counts itself in unless the word holds
// kExclusive, an exclusive one swaps 0 for it. Waits as any MPI wait does (polling, yielding, then
// sleeping in slices: an unlock sends nothing that would wake a sleeper).
void Window::direct_lock(int target, bool exclusive) {
  std::atomic_ref<std::uint32_t> word(*direct_.epoch_locks[std::size_t(target)]);
  auto try_lock = [&] {
    std::uint32_t v = word.load(std::memory_order_relaxed);
    if (exclusive) return v == 0 && word.compare_exchange_strong(v, DirectAccess::kExclusive, std::memory_order_acquire);
    return !(v & DirectAccess::kExclusive) && word.compare_exchange_strong(v, v + 1, std::memory_order_acquire);
  };
  if (try_lock()) [[likely]] return;
  engine_.progress().wait_until(try_lock);
}

void Window::direct_unlock(int target) {
  std::atomic_ref<std::uint32_t> word(*direct_.epoch_locks[std::size_t(target)]);
  if (word.load(std::memory_order_relaxed) == DirectAccess::kExclusive) word.store(0, std::memory_order_release);
  else word.fetch_sub(1, std::memory_order_release);
}

void Window::direct_accumulate(int target, const Buffer& origin, const Buffer* result, const Region& where,
                               const Reduction& red) {
  const bool no_op = core::is_no_op(red.op);
  const core::ReduceFn fn = no_op ? nullptr : core::find_reduce(red.op, red.elem_type);
  if (std::byte* at = single_run(direct_region(target, where), where.layout);
      at && !origin.layout && !(result && result->layout)) [[likely]] {
    lock_target(target);
    if (result) std::memcpy(result->ptr, at, result->bytes);
    if (fn) fn(origin.ptr, at, origin.bytes / red.elem_size);
    unlock_target(target);
    return;
  }
  base::Layout region = where.layout;
  region.base = direct_region(target, where);
  const std::size_t bytes = result ? result->bytes : origin.bytes;
  base::Strided origin_block, result_block;
  lock_target(target);
  if (result)
    zip(region, as_layout(*result, result_block), bytes,
        [](std::byte* in, std::byte* out, std::size_t n) { std::memcpy(out, in, n); });
  if (fn) {
    const std::size_t elem = red.elem_size;
    zip(as_layout(origin, origin_block), region, origin.bytes,
        [&](std::byte* in, std::byte* inout, std::size_t n) { fn(in, inout, n / elem); });
  }
  unlock_target(target);
}

void Window::direct_compare_and_swap(int target, const std::byte* origin, const std::byte* compare,
                                     std::byte* result, std::uint64_t offset, std::size_t elem_size) {
  base::Layout none;
  std::byte* where = direct_region(target, Region{offset, none});
  lock_target(target);
  std::memcpy(result, where, elem_size);
  if (std::memcmp(where, compare, elem_size) == 0) std::memcpy(where, origin, elem_size);
  unlock_target(target);
}

}  // namespace railmpi::rma
