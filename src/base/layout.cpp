#include "base/layout.hpp"

#include <algorithm>
#include <cstring>

namespace railmpi::base {

LayoutCursor::LayoutCursor(const Layout& layout, std::size_t position) : layout_(&layout) {
  if (layout.bytes_per_copy == 0) {
    copy_ = layout.repeat;
    return;
  }
  copy_ = position / layout.bytes_per_copy;
  std::size_t rem = position % layout.bytes_per_copy;
  if (copy_ >= layout.repeat) return;
  for (block_ = 0; block_ < layout.blocks.size(); ++block_) {
    const Strided& b = layout.blocks[block_];
    const std::size_t bytes = b.length * b.count;
    if (rem < bytes) {
      run_ = rem / b.length;
      within_ = rem % b.length;
      return;
    }
    rem -= bytes;
  }
  // rem == 0 after the last block cannot happen (rem < bytes_per_copy).
}

void LayoutCursor::skip_empty_blocks() {
  while (copy_ < layout_->repeat) {
    if (block_ == layout_->blocks.size()) {
      block_ = 0;
      ++copy_;
      continue;
    }
    const Strided& b = layout_->blocks[block_];
    if (run_ < b.count && b.length > 0) return;
    ++block_;
    run_ = 0;
    within_ = 0;
  }
}

std::uintptr_t LayoutCursor::run_address() const {
  const Strided& b = layout_->blocks[block_];
  return reinterpret_cast<std::uintptr_t>(layout_->base) +
         static_cast<std::uintptr_t>(static_cast<std::ptrdiff_t>(copy_) * layout_->extent + b.offset +
                                     static_cast<std::ptrdiff_t>(run_) * b.stride);
}

std::span<std::byte> LayoutCursor::next(std::size_t max) {
  skip_empty_blocks();
  if (copy_ >= layout_->repeat || max == 0) return {};
  const Strided& b = layout_->blocks[block_];
  const std::uintptr_t address = run_address() + within_;
  const std::size_t n = std::min(max, b.length - within_);
  within_ += n;
  if (within_ == b.length) {
    within_ = 0;
    ++run_;
  }
  return {reinterpret_cast<std::byte*>(address), n};
}

std::size_t scatter(const Layout& layout, std::size_t at, std::span<const std::byte> from) {
  LayoutCursor cursor(layout, at);
  const std::byte* in = from.data();
  return cursor.walk(from.size(), [&in](std::byte* run, std::size_t n) {
    std::memcpy(run, in, n);
    in += n;
    return true;
  });
}

std::size_t gather(const Layout& layout, std::size_t at, std::span<std::byte> to) {
  LayoutCursor cursor(layout, at);
  std::byte* out = to.data();
  return cursor.walk(to.size(), [&out](std::byte* run, std::size_t n) {
    std::memcpy(out, run, n);
    out += n;
    return true;
  });
}

}  // namespace railmpi::base
