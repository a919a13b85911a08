// Walking the bytes of a window region and of an origin buffer together, run by run (either may be
// a non-contiguous layout): the copies and reductions of one-sided operations.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <span>

#include "base/layout.hpp"

namespace railmpi::rma {

// Whether the layout is one contiguous run.
inline bool is_single_run(const base::Layout& l) {
  return l.repeat == 1 && l.blocks.size() == 1 && l.blocks[0].count == 1;
}

// The start of the layout's only run, taking `base` for the layout's base; nullptr when it has
// several.
inline std::byte* single_run(std::byte* base, const base::Layout& l) {
  return is_single_run(l) ? base + l.blocks[0].offset : nullptr;
}

// Calls f(from, to, n) over the first `bytes` bytes of two layouts, in order, in pieces cut where
// either layout's run ends (two layouts of one predefined type's elements give whole elements).
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

// Copies contiguous bytes into a layout's runs, in order.
inline void scatter(const base::Layout& to, std::span<const std::byte> in) {
  base::Strided block;
  zip(base::contiguous_layout(const_cast<std::byte*>(in.data()), in.size(), block), to, in.size(),
      [](std::byte* a, std::byte* b, std::size_t n) { std::memcpy(b, a, n); });
}

// Copies the first `bytes` bytes of a layout's runs into contiguous bytes.
inline void gather(const base::Layout& from, std::byte* out, std::size_t bytes) {
  base::Strided block;
  zip(from, base::contiguous_layout(out, bytes, block), bytes,
      [](std::byte* a, std::byte* b, std::size_t n) { std::memcpy(b, a, n); });
}

}  // namespace railmpi::rma
