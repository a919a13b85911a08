// One-sided operations on a window whose every rank's memory this process maps (DirectAccess):
// copies between the origin's buffer and the target's region, run by run through both layouts;
// accumulates, fetches and compare-and-swap under the target's lock word, so that they are atomic
// against each other as MPI requires (MPI-3.1 11.7.1), whichever rank issues them.
#include <atomic>
#include <cstring>

#include "core/datatype.hpp"
#include "core/reduce_op.hpp"
#include "rma/epoch_lock.hpp"
#include "rma/region_walk.hpp"
#include "rma/window.hpp"

namespace railmpi::rma {
namespace {

// Bytes of a buffer as a layout (a contiguous one as one run in `block`).
base::Layout as_layout(const Buffer& b, base::Strided& block) {
  return b.layout ? *b.layout : base::contiguous_layout(b.ptr, b.bytes, block);
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

void Window::lock_target(int target) {
  if (direct()) OperationLock::lock(*direct_.locks[std::size_t(target)]);  // own memory: nothing else runs meanwhile
}

void Window::unlock_target(int target) {
  if (direct()) OperationLock::unlock(*direct_.locks[std::size_t(target)]);
}

// MPI_Win_lock on the target's epoch word (EpochLock). Waits as any MPI wait does (polling,
// yielding, then sleeping in slices: an unlock sends nothing that would wake a sleeper).
void Window::direct_lock(int target, bool exclusive) {
  std::uint32_t& word = *direct_.epoch_locks[std::size_t(target)];
  if (EpochLock::try_lock(word, exclusive)) [[likely]] return;
  engine_.progress().wait_until([&] { return EpochLock::try_lock(word, exclusive); });
}

void Window::direct_unlock(int target) { EpochLock::unlock(*direct_.epoch_locks[std::size_t(target)]); }

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
