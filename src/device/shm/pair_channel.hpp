// One direction of a pair of ranks: a small ring of 64-byte cells and a larger packet ring.
//
// Frames of up to kInlineFrameCells cells (header and payload; short and small eager messages)
// go into the cell ring whole. A larger frame (eager messages from about 1 KiB, rendezvous
// packets) puts its payload in the packet ring first and then its header in the cell ring, in a
// cell flagged kAnnounced: the consumer polls only the cell ring, and on an announced cell takes
// the packet ring's next frame as the payload. Frames keep one order (the cell ring's), and the
// cell ring stays small enough to live in the caches (256 KiB by default, prefaulted), while bulk
// data streams through the packet ring (1-4 MiB by default, automatic_ring_bytes()) without
// pushing the small-message cells out: latency of a 0-byte message after a bandwidth phase, and
// both directions at once with 32-64 KiB messages, gain from that.
//
// Both rings are RingProducer/RingConsumer pairs (ring.hpp); an announced frame is written only
// when it fits in both, so a packet is never published without its announcement. The packet ring
// starts with a window of kPacketWindowCells (ring.hpp): until a stream fills it or laps it
// quickly, packets stay in its first 256 KiB, so a rank touches few of the ring's pages for the
// first time (3 us a page on this machine) and the packets stay in the caches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "base/log.hpp"
#include "device/shm/ring.hpp"

namespace railmpi::device::shm {

// Cells a frame may take in the cell ring (header, payload and CellHeader): 1 KiB.
inline constexpr std::size_t kInlineFrameCells = 16;
// First window of a packet ring (producer side): 256 KiB.
inline constexpr std::size_t kPacketWindowCells = 4096;
// Bytes left unwritten after a packet's CellHeader, so that its payload starts on the next cache
// line: a copy into a line-aligned destination runs whole lines, where one starting 16 bytes in
// splits every store over two lines (a bare producer/consumer pair copying 4 KiB blocks through
// a 4 MiB ring, 3 interleaved runs: 42-47 GB/s aligned, 11-28 with the 16-byte offset; 8 KiB
// 46-50 against 22-46). bench/lib_ab.sh against the 16-byte offset, fast-handoff minutes, 2 ranks,
// 8 rounds: osu_bw 2/8/16 KiB 1.16/1.08/1.05, 1/4/32/64 KiB 0.99-1.03; osu_bibw 1-64 KiB
// 0.99-1.09; osu_latency 1-64 KiB 0.95-1.03. A 4 KiB payload takes 65 cells either way; any
// payload at most one more.
inline constexpr std::uint32_t kPacketPad = kCellBytes - kCellHeaderBytes;
// CellHeader::flags of a cell whose frame's payload is the packet ring's next frame.
inline constexpr std::uint8_t kAnnounced = 1;
// CellHeader::flags the device hands through (shm_device.hpp: the writer watches the pair line).
inline constexpr std::uint8_t kWatching = 2;
// CellHeader::flags of an announcement written in a stream: nothing came from the consumer's
// side since the last packet (ChannelProducer::heard()), so more packets may follow at once.
inline constexpr std::uint8_t kStreamed = 4;
// Added by ChannelConsumer::drain (never written): a packet written in a stream whose next
// frame the producer had not published yet, so it may be writing the packet ring just past this
// payload. Such a payload is best copied from its end down (base/descending_copy.hpp); a packet
// not in a stream (a ping-pong's) is read while its writer waits, and forward copies ran faster
// there (osu_latency 1-16 KiB 1.03-1.07 the time copied downwards).
inline constexpr std::uint8_t kWriterAhead = 8;

// True when the frame goes into the cell ring whole.
constexpr bool inline_frame(std::size_t header_len, std::size_t payload_len) {
  return frame_cells(header_len, payload_len) <= kInlineFrameCells;
}

// Largest payload of a pair channel whose packet ring has `packet_cells` cells.
constexpr std::size_t channel_max_payload(std::size_t packet_cells) { return ring_max_payload(packet_cells); }

// Bytes of shared memory one direction needs: the cell ring, then the packet ring.
constexpr std::size_t channel_memory_bytes(std::size_t cell_count, std::size_t packet_cells) {
  return ring_memory_bytes(cell_count) + ring_memory_bytes(packet_cells);
}

class ChannelProducer {
 public:
  // `mem` is channel_memory_bytes(cell_count, packet_cells) bytes, zeroed when new. cell_count >=
  // 64 so that an inline frame always fits the cell ring (max_frame_cells(64) = 20).
  void attach(void* mem, std::size_t cell_count, std::size_t packet_cells) {
    cells_.attach(mem, cell_count);
    packets_.attach(static_cast<std::byte*>(mem) + ring_memory_bytes(cell_count), packet_cells, kPacketWindowCells);
  }
  // Cells of the packet ring's window now.
  std::size_t packet_window() const { return packets_.window(); }

  // The short protocol: header + payload <= kCellFrameBytes (see RingProducer::try_write_cell).
  bool try_write_cell(std::span<const std::byte> header, std::span<const std::byte> payload,
                      std::memory_order publish, std::uint8_t flags = 0) {
    return cells_.try_write_cell(header, payload, publish, flags);
  }
  // Position of the cell ring's next frame (what PairLineEnd::post orders against).
  std::uint64_t cell_tail() const { return cells_.tail(); }

  // `flags` (for the device, e.g. kWatching) go with a frame that fits the cell ring whole.
  bool try_write(const std::byte* header, std::uint32_t header_len, const std::byte* payload,
                 std::size_t payload_len, std::memory_order publish, std::uint8_t flags = 0) {
    return try_write_with(header, header_len, payload_len,
                          [payload](std::byte* to, std::size_t n) { std::memcpy(to, payload, n); }, publish, flags);
  }

  // The frame into the cell ring, or its payload (fill(to, n) writes it) into the packet ring and
  // its header into the cell ring; false, having written nothing, when it does not fit now.
  // Precondition: header_len <= 64, payload_len <= channel_max_payload(packet_cells).
  template <class Fill>
  bool try_write_with(const std::byte* header, std::uint32_t header_len, std::size_t payload_len, Fill&& fill,
                      std::memory_order publish, std::uint8_t flags = 0) {
    if (inline_frame(header_len, payload_len))
      return cells_.try_write_with(header, header_len, payload_len, fill, publish, flags);
    if (!cells_.fits(header_len, 0) || !packets_.fits(kPacketPad, payload_len)) return false;
    const bool stream = !heard_;
    if (stream) packets_.note_stream();
    heard_ = false;
    packets_.try_write_with(nullptr, kPacketPad, payload_len, fill, std::memory_order_release);
    // The announcement's release (or seq_cst) store orders the packet before it for the consumer.
    cells_.try_write_with(header, header_len, 0, [](std::byte*, std::size_t) {}, publish,
                          stream ? kAnnounced | kStreamed : kAnnounced);
    return true;
  }

  // A frame came from the consumer's side: the next packet does not stream (RingProducer::note_stream).
  void heard() { heard_ = true; }

  // True when the frame could be written now; reloads the consumer's heads with `mo`.
  bool can_write(std::uint32_t header_len, std::size_t payload_len, std::memory_order mo) {
    if (inline_frame(header_len, payload_len)) return cells_.can_write(header_len, payload_len, mo);
    return cells_.can_write(header_len, 0, mo) && packets_.can_write(kPacketPad, payload_len, mo);
  }

 private:
  RingProducer cells_;
  RingProducer packets_;
  bool heard_ = true;  // a frame from the consumer's side since the last packet
};

class ChannelConsumer {
 public:
  void attach(void* mem, std::size_t cell_count, std::size_t packet_cells) {
    cells_.attach(mem, cell_count);
    packets_.attach(static_cast<std::byte*>(mem) + ring_memory_bytes(cell_count), packet_cells, kPacketWindowCells);
  }

  // True when the next cell holds a published frame: one load of one line.
  bool ready(std::memory_order mo = std::memory_order_acquire) const { return cells_.ready(mo); }

  // Position of the cell ring's next frame; during drain()'s callback, the frame's own.
  std::uint64_t cell_head() const { return cells_.head(); }

  // Delivers up to max_frames frames to f(header_span, payload_span) in the order they were
  // written, or to f(header_span, payload_span, flags) when f takes the cell's flags too; the
  // spans are valid during the call only. `released` tells whether either ring published its
  // head (the producer may have got room).
  template <class F>
  RingConsumer::DrainResult drain(F&& f, int max_frames) {
    bool packets_released = false;
    auto r = cells_.drain(
        [&](std::span<const std::byte> header, std::span<const std::byte> payload, std::uint8_t flags) {
          if (!(flags & kAnnounced)) [[likely]] {
            deliver_frame(f, header, payload, flags);
            return;
          }
          // The announcement's successor in the cell ring: the line polled next anyway.
          const bool writer_ahead =
              (flags & kStreamed) && !cells_.published(cells_.head() + frame_cells(header.size(), 0));
          const std::uint8_t packet_flags = writer_ahead ? std::uint8_t(flags | kWriterAhead) : flags;
          const auto p = packets_.drain(
              [&](std::span<const std::byte>, std::span<const std::byte> packet) {
                deliver_frame(f, header, packet, packet_flags);
              },
              1);
          // The producer publishes the packet before its announcement: a missing one is a bug.
          if (p.frames != 1) [[unlikely]] base::fatal("shm device: announced packet missing");
          packets_released |= p.released;
        },
        max_frames);
    r.released |= packets_released;
    return r;
  }

 private:
  RingConsumer cells_;
  RingConsumer packets_;
};

}  // namespace railmpi::device::shm
