// A single-producer single-consumer ring of 64-byte cells in shared memory.
//
// Memory of one ring (ring_memory_bytes()):
//   offset 0                : RingControl (one cache line; `head` is written by the consumer only)
//   offset kRingCellsOffset : cell_count cells of 64 bytes (cell_count a power of two, >= 64)
//
// A frame takes one or more consecutive cells, never wrapping: the first cell starts with a
// CellHeader (16 bytes) followed by the frame header and then the payload, all contiguous, so the
// consumer hands out spans that point into the ring. When a frame does not fit before the end of
// the ring, the producer places a skip marker in the remaining cells and writes the frame at cell 0.
//
// Publication: a frame is visible when the `seq` word of its first cell equals its absolute cell
// position + 1 (release store, after all its bytes). The consumer polls only that word of its next
// cell. A first cell's old seq word (an earlier lap's position + 1) can never look valid; a cell
// that was in the middle of an earlier frame holds payload bytes there, which could. So the
// producer remembers which cells hold payload at the seq word (one bit per cell) and clears the
// seq word of the cell that follows a frame, before publishing the frame, only when that cell is
// one of them (it is free: the producer keeps one spare cell). A stream of one-cell frames never
// touches a line but its own: the consumer's look at its next cell stays in its own cache instead
// of pulling a line the producer just wrote (one cross-core transfer less per small message).
//
// Flow control: the consumer counts consumed cells and publishes that count in RingControl::head
// in batches (every cell_count/8 cells); the producer keeps a cached copy of head and reloads it
// only when the ring looks full. No locks and no read-modify-write atomics.
//
// A frame is at most max_frame_cells() = cell_count/4 + 4 cells, so even with a skip and the
// unpublished batch the producer always finds room once the consumer has drained the ring.
//
// Window: a producer may start with a window of fewer cells than the ring (attach()): it then
// writes each lap only in the window's cells and skips to the next lap at the window's end (the
// consumer follows the skip marker as at the ring's end, and never learns the window). The
// window becomes the whole ring as soon as a frame does not fit or a lap of the window that
// carried a stream (note_stream(): frames written back to back, nothing heard from the consumer's
// side between) took less than kFastLap, and is kept at least twice any frame. Light traffic and
// ping-pongs thus stay in the first cells, whose pages are touched once and stay in the caches,
// and a stream gets the whole ring after one lap (there the producer seldom writes lines that the
// consumer still holds in its cache, and the whole ring's pages are touched once, early).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "base/cache_hint.hpp"
#include "base/short_copy.hpp"

namespace railmpi::device::shm {

inline constexpr std::size_t kCellBytes = 64;
inline constexpr std::size_t kCellHeaderBytes = 16;
inline constexpr std::size_t kRingCellsOffset = 4096;  // cells start page aligned
inline constexpr std::uint8_t kSkipMarker = 0xFF;      // CellHeader::header_len of a skip

struct alignas(kCellBytes) Cell {
  std::byte bytes[kCellBytes];
};

struct CellHeader {
  std::uint64_t seq;          // absolute position + 1 once published; accessed atomically
  std::uint32_t payload_len;  // bytes of payload
  std::uint8_t header_len;    // bytes of frame header (<= 64), or kSkipMarker
  std::uint8_t flags;         // the writer's (kAnnounced: the payload is elsewhere, see pair_channel.hpp)
  std::uint8_t reserved[2];
};
static_assert(sizeof(CellHeader) == kCellHeaderBytes);

struct alignas(kCellBytes) RingControl {
  std::uint64_t head;  // cells consumed (published by the consumer); accessed atomically
};

// Bytes of shared memory one ring of `cell_count` cells needs.
constexpr std::size_t ring_memory_bytes(std::size_t cell_count) {
  return kRingCellsOffset + cell_count * kCellBytes;
}

// Cells one frame occupies.
constexpr std::size_t frame_cells(std::size_t header_len, std::size_t payload_len) {
  return (kCellHeaderBytes + header_len + payload_len + kCellBytes - 1) / kCellBytes;
}

constexpr std::size_t max_frame_cells(std::size_t cell_count) { return cell_count / 4 + 4; }

// Header + payload bytes that fit in one cell with its CellHeader: the short protocol's frames.
inline constexpr std::size_t kCellFrameBytes = kCellBytes - kCellHeaderBytes;

// Largest payload with a full 64-byte header that always fits: the ring bytes / 4.
constexpr std::size_t ring_max_payload(std::size_t cell_count) {
  return cell_count * kCellBytes / 4;
}
static_assert(frame_cells(64, ring_max_payload(64)) <= max_frame_cells(64));

// Cells of a producer's first window: `window` when it is smaller than the ring, else the ring.
constexpr std::size_t first_window(std::size_t window, std::size_t cell_count) {
  return window > 0 && window < cell_count ? window : cell_count;
}

namespace detail {
inline std::uint64_t load(const std::uint64_t& w, std::memory_order mo) {
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(w)).load(mo);
}
// GCC compiles an order that is not a constant as seq_cst (on x86 a locked `xchg`, which waits
// for every earlier store to reach the cache): the orders are spelled out so that a release
// store passed down through a function that was not inlined stays a plain move.
inline void store(std::uint64_t& w, std::uint64_t v, std::memory_order mo) {
  std::atomic_ref<std::uint64_t> a(w);
  switch (mo) {
    case std::memory_order_relaxed: a.store(v, std::memory_order_relaxed); break;
    case std::memory_order_seq_cst: a.store(v, std::memory_order_seq_cst); break;
    default: a.store(v, std::memory_order_release); break;
  }
}
inline CellHeader* header_of(Cell* c) { return reinterpret_cast<CellHeader*>(c); }
}  // namespace detail

// Hands a frame to f(header, payload, flags), or to f(header, payload) when f takes no flags.
template <class F>
void deliver_frame(F& f, std::span<const std::byte> header, std::span<const std::byte> payload, std::uint8_t flags) {
  if constexpr (std::is_invocable_v<F&, std::span<const std::byte>, std::span<const std::byte>, std::uint8_t>)
    f(header, payload, flags);
  else
    f(header, payload);
}

class RingProducer {
 public:
  // After a one-cell frame the producer starts taking the cell kWriteAhead cells on for writing
  // (PREFETCHW): the cell the consumer polls next (the one after the frame) is left alone, and
  // when the frames come back to back the store that fills a cell no longer waits for the line
  // to come from the consumer's core, which read it a lap ago. bench/lib_ab.sh, 2 ranks,
  // 2026-12-07, 30 interleaved rounds: osu_bw 1-32 B 1.66-2.09 the bandwidth, osu_bibw 1-32 B
  // 1.36-1.65; osu_bw and osu_bibw 64 B-64 KiB 0.92-1.11 (noise around 1); osu_latency 0-256 B
  // 0.99-1.00 the time, and on the cell rings alone (RAILMPI_SHM_PAIR_LINE=0) 0.98-1.03 (40
  // rounds). After every frame, multi-cell ones too: osu_bw 64-256 B 0.72-0.79 the bandwidth.
  static constexpr std::size_t kWriteAhead = 4;
  // A lap of the window in less time than this is a stream: the window becomes the whole ring.
  static constexpr std::chrono::microseconds kFastLap{500};

  RingProducer() = default;
  // `mem` is ring_memory_bytes(cell_count) bytes, zeroed when the ring is new. `window`: cells of
  // the first window (a power of two; 0 or cell_count or more: the whole ring).
  void attach(void* mem, std::size_t cell_count, std::size_t window = 0) {
    control_ = static_cast<RingControl*>(mem);
    cells_ = reinterpret_cast<Cell*>(static_cast<std::byte*>(mem) + kRingCellsOffset);
    count_ = cell_count;
    mask_ = cell_count - 1;
    max_cells_ = max_frame_cells(cell_count);
    window_ = first_window(window, cell_count);
    lap_start_ = {};
    lap_streamed_ = false;
    tail_ = 0;
    cached_head_ = 0;
    stale_.assign((cell_count + 63) / 64, 0);
  }
  bool attached() const { return cells_ != nullptr; }
  std::size_t cell_count() const { return count_; }
  std::size_t max_cells() const { return max_cells_; }
  std::size_t window() const { return window_; }

  // Copies the frame in and publishes it; false when there is not enough free space now.
  // `publish` orders the final seq store (the shm device passes release and orders it before its
  // look at the peer's sleep flag itself: ShmDevice::ring_doorbell).
  // Precondition: header_len <= 64 and frame_cells(header_len, payload_len) <= max_frame_cells().
  bool try_write(const std::byte* header, std::uint32_t header_len, const std::byte* payload,
                 std::size_t payload_len,
                 std::memory_order publish = std::memory_order_release) {
    return try_write_with(header, header_len, payload_len,
                          [payload](std::byte* to, std::size_t n) { std::memcpy(to, payload, n); }, publish);
  }

  // try_write() of a frame that fits one cell (header_len + payload_len <= kCellFrameBytes):
  // the short protocol, on a ring attached without a window. One cell never wraps, the copies are
  // a few moves; nothing else is written but the next cell's seq word when that cell is stale
  // (after a longer frame), and nothing else read but the consumer's head when the cached copy
  // says the ring is full.
  bool try_write_cell(std::span<const std::byte> header, std::span<const std::byte> payload,
                      std::memory_order publish = std::memory_order_release, std::uint8_t flags = 0) {
    if (!have_room(2, std::memory_order_acquire)) return false;
    const std::uint64_t pos = tail_;
    Cell* c = &cells_[pos & mask_];
    CellHeader* ch = detail::header_of(c);
    ch->payload_len = static_cast<std::uint32_t>(payload.size());
    ch->header_len = static_cast<std::uint8_t>(header.size());
    ch->flags = flags;
    std::byte* p = c->bytes + kCellHeaderBytes;
    base::chunk_copy(p, header.data(), header.size());
    base::short_copy(p + header.size(), payload.data(), payload.size());
    // The cell at tail_ is never marked stale (see clear_if_stale), so only the next one is looked at.
    clear_if_stale(pos + 1);
    detail::store(ch->seq, pos + 1, publish);
    tail_ = pos + 1;
    base::fetch_line_to_write(&cells_[(pos + kWriteAhead) & mask_]);
    return true;
  }

  // As try_write, but the payload is produced in place: fill(to, payload_len) writes the payload
  // bytes straight into the cells (a gather from non-contiguous memory needs no staging copy).
  // fill is called only when payload_len > 0 and the frame fits. `flags` is handed to the consumer.
  // A null `header` leaves header_len bytes unwritten (padding; try_write passes it on).
  template <class Fill>
  bool try_write_with(const std::byte* header, std::uint32_t header_len, std::size_t payload_len, Fill&& fill,
                      std::memory_order publish = std::memory_order_release, std::uint8_t flags = 0) {
    const std::size_t k = frame_cells(header_len, payload_len);
    const std::size_t idx = tail_ & mask_;
    const std::size_t skip = skip_before(k);
    if (!have_room(skip + k + 1, std::memory_order_acquire)) {
      grow();
      return false;
    }

    const std::uint64_t pos = tail_ + skip;  // position of the frame's first cell
    Cell* first = &cells_[pos & mask_];
    CellHeader* ch = detail::header_of(first);
    ch->payload_len = static_cast<std::uint32_t>(payload_len);
    ch->header_len = static_cast<std::uint8_t>(header_len);
    ch->flags = flags;
    std::byte* p = first->bytes + kCellHeaderBytes;
    if (header) base::chunk_copy(p, header, header_len);
    if (payload_len) fill(p + header_len, payload_len);
    // The cell after this frame becomes the consumer's next look-up: make sure it reads "empty".
    const std::uint64_t next = pos + k;
    const std::size_t at = pos & mask_;
    set_stale(at, false);
    mark_stale(at + 1, at + k);
    clear_if_stale(next);
    if (skip == 0) {
      detail::store(ch->seq, pos + 1, publish);
    } else {
      if (window_ < count_) [[unlikely]] lapped();
      detail::store(ch->seq, pos + 1, std::memory_order_release);
      CellHeader* sk = detail::header_of(&cells_[idx]);
      sk->payload_len = 0;
      sk->header_len = kSkipMarker;
      set_stale(idx, false);
      detail::store(sk->seq, tail_ + 1, publish);
    }
    tail_ = next;
    if (k == 1) base::fetch_line_to_write(&cells_[(next + kWriteAhead) & mask_]);
    return true;
  }

  // True when a frame of this size could be written now; reloads head with `mo`
  // (seq_cst for the sleep re-check).
  bool can_write(std::uint32_t header_len, std::size_t payload_len, std::memory_order mo) {
    const std::size_t k = frame_cells(header_len, payload_len);
    const std::size_t skip = skip_before(k);
    cached_head_ = detail::load(control_->head, mo);
    return tail_ + skip + k + 1 - cached_head_ <= count_;
  }

  // True when a frame of this size fits now; reloads head (acquire) only when the cached copy
  // says it does not (then the window grows). A frame that fits stays fitting until this
  // producer writes.
  bool fits(std::uint32_t header_len, std::size_t payload_len) {
    const std::size_t k = frame_cells(header_len, payload_len);
    const std::size_t skip = skip_before(k);
    if (have_room(skip + k + 1, std::memory_order_acquire)) return true;
    grow();
    return false;
  }

  std::uint64_t tail() const { return tail_; }

  // The frame written next follows the last one with nothing from the consumer's side between:
  // this lap carries a stream (see the file comment).
  void note_stream() { lap_streamed_ = true; }

 private:
  // Cells to skip before a frame of k cells at tail_: the rest of the lap when the frame would not
  // end inside the window (first widened to twice the frame, so that a drained ring takes it).
  std::size_t skip_before(std::size_t k) {
    while (window_ < count_ && 2 * (k + 1) > window_) window_ *= 2;
    const std::size_t idx = tail_ & mask_;
    return idx + k > window_ ? count_ - idx : 0;
  }
  void grow() { window_ = count_; }
  // The producer starts a new lap of a window smaller than the ring.
  void lapped() {
    const auto now = std::chrono::steady_clock::now();
    if (now - lap_start_ < kFastLap && lap_streamed_) grow();
    lap_start_ = now;
    lap_streamed_ = false;
  }

  bool have_room(std::size_t cells, std::memory_order mo) {
    if (tail_ + cells - cached_head_ <= count_) return true;
    cached_head_ = detail::load(control_->head, mo);
    return tail_ + cells - cached_head_ <= count_;
  }

  // Cell index `c` holds payload bytes at its seq word (it was not the first cell of its frame).
  void set_stale(std::size_t c, bool stale) {
    const std::uint64_t bit = std::uint64_t(1) << (c % 64);
    if (stale) stale_[c / 64] |= bit;
    else stale_[c / 64] &= ~bit;
  }
  // Cells [from, to) (indices, to <= count_) all hold payload bytes at their seq words.
  void mark_stale(std::size_t from, std::size_t to) {
    while (from < to) {
      const std::size_t word = from / 64, lo = from % 64;
      const std::size_t hi = std::min<std::size_t>(64, lo + (to - from));
      const std::uint64_t bits = (hi == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hi) - 1) &
                                 ~((std::uint64_t(1) << lo) - 1);
      stale_[word] |= bits;
      from += hi - lo;
    }
  }
  void clear_if_stale(std::uint64_t position) {
    const std::size_t c = position & mask_;
    if (stale_[c / 64] & (std::uint64_t(1) << (c % 64))) [[unlikely]] {
      detail::store(detail::header_of(&cells_[c])->seq, 0, std::memory_order_relaxed);
      set_stale(c, false);
    }
  }

  RingControl* control_ = nullptr;
  Cell* cells_ = nullptr;
  std::size_t count_ = 0;
  std::size_t mask_ = 0;
  std::size_t max_cells_ = 0;
  std::size_t window_ = 0;  // cells written in each lap (see the file comment)
  std::chrono::steady_clock::time_point lap_start_{};
  bool lap_streamed_ = false;  // note_stream() since the lap started
  std::vector<std::uint64_t> stale_;  // one bit per cell, see set_stale()
  std::uint64_t tail_ = 0;         // next cell position to write
  std::uint64_t cached_head_ = 0;  // last head value read from the consumer
};

class RingConsumer {
 public:
  // A frame of several cells: the loads of its cells after the first (of its first kPrefetchCells
  // cells) start when the frame is seen, and overlap the handler's parsing and matching instead of
  // waiting, one after the other, for the copy of the payload (lib_ab.sh, 2 ranks, 21 interleaved
  // rounds: osu_latency 128 / 256 / 1024 B 0.91 / 0.93 / 0.95 the time without; osu_bw 32 B to
  // 1 KiB, 15 rounds, 0.99-1.07 the bandwidth). Prefetching the cells for writing on the
  // producer's side instead cost: 128 B to 1 KiB 1.14-1.21 the time.
  static constexpr std::size_t kPrefetchCells = 8;
  RingConsumer() = default;
  // `window`: the producer's first window (RingProducer::attach), 0 for none. The consumer then
  // publishes head every window/4 cells at least, so that the producer can start the window's
  // next lap while the consumer finishes the last one.
  void attach(void* mem, std::size_t cell_count, std::size_t window = 0) {
    control_ = static_cast<RingControl*>(mem);
    cells_ = reinterpret_cast<Cell*>(static_cast<std::byte*>(mem) + kRingCellsOffset);
    count_ = cell_count;
    mask_ = cell_count - 1;
    batch_ = std::min(cell_count / 8, first_window(window, cell_count) / 4);
    head_ = 0;
    published_ = 0;
  }
  bool attached() const { return cells_ != nullptr; }

  // True when the next cell holds a published frame (or skip marker). One load of one line.
  bool ready(std::memory_order mo = std::memory_order_acquire) const {
    return detail::load(detail::header_of(&cells_[head_ & mask_])->seq, mo) == head_ + 1;
  }

  struct DrainResult {
    int frames = 0;
    bool released = false;  // head was published (the producer may have got room)
  };

  // Delivers up to max_frames frames to f(header_span, payload_span), or to
  // f(header_span, payload_span, flags) when f takes the frame's flags too. The spans point into
  // the ring and stay valid only during the call. Cells are released after f returns.
  template <class F>
  DrainResult drain(F&& f, int max_frames) {
    DrainResult r;
    while (r.frames < max_frames) {
      const std::size_t idx = head_ & mask_;
      Cell* c = &cells_[idx];
      CellHeader* ch = detail::header_of(c);
      if (detail::load(ch->seq, std::memory_order_acquire) != head_ + 1) break;
      const std::uint8_t hlen = ch->header_len;
      if (hlen == kSkipMarker) {
        head_ += count_ - idx;
      } else {
        const std::uint32_t plen = ch->payload_len;
        const std::size_t k = frame_cells(hlen, plen);
        for (std::size_t j = 1; j < std::min<std::size_t>(k, kPrefetchCells); ++j) base::fetch_line(c + j);
        const std::byte* p = c->bytes + kCellHeaderBytes;
        const std::span<const std::byte> header(p, hlen), payload(p + hlen, plen);
        deliver_frame(f, header, payload, ch->flags);
        head_ += k;
        ++r.frames;
      }
      if (head_ - published_ >= batch_) {
        // The caller then checks the producer's sleep flag (Dekker pairing: see
        // ShmDevice::ring_doorbell, which orders this store before that load).
        detail::store(control_->head, head_, std::memory_order_release);
        published_ = head_;
        r.released = true;
      }
    }
    return r;
  }

  std::uint64_t head() const { return head_; }

  // True when the frame at position `pos` (at most one lap past head()) is published.
  bool published(std::uint64_t pos) const {
    return detail::load(detail::header_of(&cells_[pos & mask_])->seq, std::memory_order_relaxed) == pos + 1;
  }

 private:
  RingControl* control_ = nullptr;
  Cell* cells_ = nullptr;
  std::size_t count_ = 0;
  std::size_t mask_ = 0;
  std::size_t batch_ = 0;
  std::uint64_t head_ = 0;       // next cell position to read
  std::uint64_t published_ = 0;  // last value stored in control_->head
};

}  // namespace railmpi::device::shm
