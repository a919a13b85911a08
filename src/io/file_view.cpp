#include "io/file_view.hpp"

#include <algorithm>

namespace railmpi::io {

FileView::FileView(std::uint64_t disp, std::vector<base::Strided> tile, std::int64_t extent)
    : disp_(disp), tile_(std::move(tile)) {
  layout_.base = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(disp_));
  layout_.blocks = tile_;
  layout_.repeat = std::numeric_limits<std::size_t>::max();
  layout_.extent = static_cast<std::ptrdiff_t>(extent);
  layout_.bytes_per_copy = 0;
  for (const base::Strided& b : tile_) layout_.bytes_per_copy += b.length * b.count;
  if (layout_.bytes_per_copy == 0) tile_.clear();  // nothing to see: treated as contiguous
}

FileView& FileView::operator=(const FileView& other) {
  if (this == &other) return *this;
  disp_ = other.disp_;
  tile_ = other.tile_;
  layout_ = other.layout_;
  layout_.blocks = tile_;
  layout_.base = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(disp_));
  return *this;
}

std::uint64_t FileView::file_offset(std::uint64_t position) const {
  if (contiguous()) return disp_ + position;
  std::uint64_t at = disp_;
  for_each_run(position, 1, [&at](std::uint64_t offset, std::uint64_t) {
    at = offset;
    return false;
  });
  return at;
}

std::uint64_t FileView::data_bytes_before(std::uint64_t offset) const {
  if (offset <= disp_) return 0;
  const std::uint64_t rel = offset - disp_;
  if (contiguous()) return rel;
  const auto extent = static_cast<std::uint64_t>(layout_.extent > 0 ? layout_.extent : 1);
  const std::uint64_t tiles = rel / extent, rem = rel % extent;
  std::uint64_t bytes = tiles * layout_.bytes_per_copy;
  for (const base::Strided& b : tile_) {
    for (std::size_t k = 0; k < b.count; ++k) {
      const std::int64_t start = b.offset + static_cast<std::int64_t>(k) * b.stride;
      if (start >= static_cast<std::int64_t>(rem)) continue;
      bytes += std::min<std::uint64_t>(b.length, rem - static_cast<std::uint64_t>(start));
    }
  }
  return bytes;
}

}  // namespace railmpi::io
