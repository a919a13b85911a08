// Where the bytes of a non-contiguous buffer are: a value every layer can walk without knowing
// what the bytes mean (the datatype layer builds layouts from committed derived datatypes; the
// protocol and device layers copy into and out of them directly, with no staging copy).
//
// A layout is `repeat` copies of a list of strided blocks, copy k shifted by k * extent bytes
// from `base`. A strided block is `count` runs of `length` bytes, the first at `offset`, the next
// ones `stride` bytes apart. The layout's bytes, in order, are the message's bytes.
// Addresses are computed as integers, so `base` may be null with absolute offsets (MPI_BOTTOM).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace railmpi::base {

struct Strided {
  std::ptrdiff_t offset = 0;
  std::size_t length = 0;  // bytes per run
  std::size_t count = 1;   // runs
  std::ptrdiff_t stride = 0;
};

struct Layout {
  std::byte* base = nullptr;
  std::span<const Strided> blocks;
  std::size_t repeat = 0;
  std::ptrdiff_t extent = 0;
  std::size_t bytes_per_copy = 0;  // sum of length * count over blocks

  std::size_t bytes() const { return bytes_per_copy * repeat; }
  // Mean bytes of one contiguous run (adjacent runs are not merged, so this is a lower bound).
  std::size_t mean_run() const {
    std::size_t runs = 0;
    for (const Strided& b : blocks) runs += b.length ? b.count : 0;
    return runs ? bytes_per_copy / runs : 0;
  }
};

// One strided block from `p` as a layout (the block must outlive it; the extent spans its runs).
inline Layout strided_layout(std::byte* p, const Strided& block) {
  Layout l;
  l.base = p;
  l.blocks = {&block, 1};
  l.repeat = 1;
  l.bytes_per_copy = block.length * block.count;
  l.extent = block.count ? static_cast<std::ptrdiff_t>(block.count - 1) * block.stride +
                               static_cast<std::ptrdiff_t>(block.length)
                         : 0;
  return l;
}

// A contiguous run of n bytes as a layout (its one block lives in `block`).
inline Layout contiguous_layout(std::byte* p, std::size_t n, Strided& block) {
  block = Strided{0, n, 1, 0};
  return strided_layout(p, block);
}

// Walks a layout's bytes in order as contiguous runs, starting at any byte position.
class LayoutCursor {
 public:
  LayoutCursor(const Layout& layout, std::size_t position);

  // The next contiguous run of at most `max` bytes (empty at the end of the layout).
  std::span<std::byte> next(std::size_t max);
  bool done() const { return copy_ >= layout_->repeat; }

  // Hands the next runs, at most `max` bytes in all, to take(start, bytes) in order until take
  // returns false (that run is not consumed: the cursor stays on it) or `max` bytes are consumed.
  // Returns the bytes consumed. The same runs as next(), but one address computation per block
  // rather than per run (short runs: the walk costs little next to the copy).
  template <class Take>
  std::size_t walk(std::size_t max, Take&& take) {
    std::size_t done = 0;
    while (done < max) {
      skip_empty_blocks();
      if (copy_ >= layout_->repeat) break;
      const Strided& b = layout_->blocks[block_];
      std::uintptr_t run_start = run_address();
      while (run_ < b.count) {
        const std::size_t n = std::min(max - done, b.length - within_);
        if (!take(reinterpret_cast<std::byte*>(run_start + within_), n)) return done;
        done += n;
        within_ += n;
        if (within_ < b.length) return done;  // `max` ends inside this run
        within_ = 0;
        ++run_;
        run_start += static_cast<std::uintptr_t>(b.stride);
        if (done == max) return done;
      }
    }
    return done;
  }

 private:
  void skip_empty_blocks();
  // Address of the first byte of the current run.
  std::uintptr_t run_address() const;

  const Layout* layout_;
  std::size_t copy_ = 0;   // which copy
  std::size_t block_ = 0;  // which block of the copy
  std::size_t run_ = 0;    // which run of the block
  std::size_t within_ = 0; // bytes of the run already walked
};

// Copies `from` into the layout's bytes [at, at + from.size()) (clipped at the layout's end).
// Returns the bytes copied.
std::size_t scatter(const Layout& layout, std::size_t at, std::span<const std::byte> from);
// Copies the layout's bytes [at, at + to.size()) into `to` (clipped). Returns the bytes copied.
std::size_t gather(const Layout& layout, std::size_t at, std::span<std::byte> to);

}  // namespace railmpi::base
