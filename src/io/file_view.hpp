// A file view as bytes: where the data bytes a process sees through its view lie in the file.
// The view starts `disp` bytes into the file and tiles the file with copies of one filetype, copy
// k `extent` bytes after copy k-1; a copy's data bytes are the runs of its layout (offsets from
// the copy's start, in increasing order, as MPI requires of a filetype). Data byte p of the view
// is byte p of that endless sequence of runs. Knows nothing of MPI datatypes: the API layer gives
// the filetype's layout.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/layout.hpp"

namespace railmpi::io {

class FileView {
 public:
  // The whole file as bytes from offset 0 (the view a file opens with).
  FileView() = default;
  // Bytes of the file from `disp` on, in order (a contiguous filetype).
  explicit FileView(std::uint64_t disp) : disp_(disp) {}
  // `tile`: the runs of one filetype (offsets from the copy's start, non-decreasing);
  // `extent`: bytes from one copy to the next.
  FileView(std::uint64_t disp, std::vector<base::Strided> tile, std::int64_t extent);
  FileView(const FileView& other) { *this = other; }
  FileView& operator=(const FileView& other);

  std::uint64_t disp() const { return disp_; }
  bool contiguous() const { return tile_.empty(); }
  // Data bytes of one copy of the filetype (0 for a contiguous view).
  std::size_t tile_bytes() const { return layout_.bytes_per_copy; }
  // Mean bytes of a run of one copy (the largest value for a contiguous view): how many accesses
  // of the file a transfer through the view would take, one per run.
  std::uint64_t mean_run() const {
    return contiguous() ? std::numeric_limits<std::uint64_t>::max() : std::max<std::uint64_t>(1, layout_.mean_run());
  }

  // Mean bytes of the holes between two runs of one copy (0 for a contiguous view): what
  // reading a stretch of the file whole costs more than reading its runs.
  std::uint64_t mean_gap() const {
    if (contiguous() || layout_.bytes_per_copy == 0) return 0;
    const std::uint64_t runs = std::max<std::uint64_t>(1, layout_.bytes_per_copy / mean_run());
    const auto extent = static_cast<std::uint64_t>(std::max<std::ptrdiff_t>(layout_.extent, 0));
    return extent > layout_.bytes_per_copy ? (extent - layout_.bytes_per_copy) / runs : 0;
  }

  // Calls run(file_offset, bytes) for the runs of data bytes [position, position + length) of
  // the view, in order; adjacent runs are merged. Stops early when run() returns false.
  template <class Run>
  void for_each_run(std::uint64_t position, std::uint64_t length, Run&& run) const {
    if (length == 0) return;
    if (contiguous()) {
      run(disp_ + position, length);
      return;
    }
    base::LayoutCursor cursor(layout_, static_cast<std::size_t>(position));
    std::uint64_t start = 0, bytes = 0;
    while (length > 0) {
      const auto r = cursor.next(static_cast<std::size_t>(std::min<std::uint64_t>(length, kMaxRun)));
      if (r.empty()) break;
      const auto at = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(r.data()));
      if (bytes > 0 && start + bytes == at) {
        bytes += r.size();
      } else {
        if (bytes > 0 && !run(start, bytes)) return;
        start = at;
        bytes = r.size();
      }
      length -= r.size();
    }
    if (bytes > 0) run(start, bytes);
  }

  // The file offset of data byte `position` of the view.
  std::uint64_t file_offset(std::uint64_t position) const;
  // Data bytes of the view that lie before file offset `offset` (a file of `offset` bytes shows
  // this many through the view).
  std::uint64_t data_bytes_before(std::uint64_t offset) const;

 private:
  static constexpr std::uint64_t kMaxRun = std::uint64_t{1} << 40;
  std::uint64_t disp_ = 0;
  std::vector<base::Strided> tile_;  // empty: contiguous
  base::Layout layout_;               // tile_ repeated without end from disp_
};

}  // namespace railmpi::io
