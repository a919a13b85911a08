// The point-to-point engine's frame header: what travels in front of every message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "device/device.hpp"

namespace railmpi::p2p {

enum class FrameKind : std::uint8_t {
  eager = 1,     // envelope + whole payload
  rts = 2,       // rendezvous: envelope, size, sender request, sender buffer address
  cts = 3,       // receiver matched an rts and wants the data sent (no single copy)
  data = 4,      // one packet of a rendezvous payload: receiver request + offset
  fin = 5,       // receiver copied the payload itself (single copy); sender may complete
  sync_ack = 6,  // receiver matched a synchronous eager message
  eager_cached = 7,  // eager with the same envelope as the last eager/rts to that peer (header caching)
  write_part = 8,    // shared single copy: receiver asks the sender to write the first part (PartHeader)
  written = 9,       // shared single copy: sender wrote it: receiver request + bytes written
  fins = 10,         // fin for `size` messages read in one batch: the payload is their sender requests (u64 each)
  help = 11,         // both ways: the sender has read everything it was sent and waits for its own sends' reads
  write_run = 12,    // answer to help: write this run of your send into my buffer (PartHeader; bytes 0: none)
  run_written = 13,  // the sender wrote (or, kPartFailed, could not write) the run of a write_run (PartHeader)
};

inline constexpr std::uint8_t kFlagSync = 1;
// rts: the payload is the sender's layout (LayoutWire + blocks); aux is unused.
inline constexpr std::uint8_t kFlagLayout = 2;
// rts: read it whole by single copy now (the sender streams both ways).
inline constexpr std::uint8_t kFlagReadNow = 4;
// rts: one of a window of non-blocking sends to the receiver (osu_bw's Isends): a message the
// shared copy takes is not read whole by the receiver alone (Figures::single_copy_whole_max).
inline constexpr std::uint8_t kFlagWindow = 8;

struct WireHeader {
  FrameKind kind;
  std::uint8_t flags;
  std::uint16_t reserved;
  std::int32_t context;  // communicator context id
  std::int32_t source;   // sender's rank in that communicator
  std::int32_t tag;
  std::uint64_t size;    // message size in bytes (eager, rts)
  std::uint64_t req;     // rts/cts/fin/sync_ack: sender request; data: receiver request
  std::uint64_t aux;     // rts: sender buffer address (0: not readable, answer cts); cts: receiver request; data: offset
};
static_assert(sizeof(WireHeader) == 40 && offsetof(WireHeader, context) == 4 && offsetof(WireHeader, size) == 16 &&
              offsetof(WireHeader, req) == 24 && offsetof(WireHeader, aux) == 32);
static_assert(sizeof(WireHeader) <= device::kMaxUserHeader);

// write_part: the receiver of a rendezvous reads the message's second part itself and asks the
// sender to write the first `bytes` into its buffer at `addr` (Figures::shared_copy_min). The
// sender answers `written` (req: receiver_req, aux: bytes written; 0 when its write failed, and
// the receiver then reads them too); the receiver sends fin once it read its own part (the
// sender completes on it: it wrote its part before, frames of one peer arriving in order), and a
// second fin after reading the head itself when the write failed (the sender waits for it then).
//
// help / write_run / run_written: a rank that has read every message its peer sent it, while
// its own sends to that peer wait for the peer's reads (osu_bibw's window end), sends `help`. The
// peer answers with write_run frames for runs at the end of the reads it has queued, at `offset`
// in both buffers (`addr` is the receiver's address of the run), the last marked kPartLast (a
// lone one of 0 bytes: nothing to hand over). The sender writes them into the receiver's buffer
// (process_vm_writev) and echoes each as run_written, kPartFailed when its write failed (the
// receiver then reads the run itself and sends one more fin, which the sender waits for). The
// receiver's fin for a message goes out once it read its own part, and the sender handles the
// write_run before that fin (frames of one peer arrive in order), so a send completes after its
// run is written.
struct PartHeader {
  FrameKind kind;
  std::uint8_t flags;
  std::uint8_t reserved[6];
  std::uint64_t sender_req;
  std::uint64_t receiver_req;
  std::uint64_t addr;
  std::uint64_t bytes;
  std::uint64_t offset;  // write_run, run_written: where the run starts in both buffers
};
static_assert(sizeof(PartHeader) <= device::kMaxUserHeader);
inline constexpr std::uint8_t kPartLast = 1;    // write_run: the last answer to one help
inline constexpr std::uint8_t kPartFailed = 2;  // run_written: nothing was written

// The first part of a shared single copy of n bytes, the part the sender writes: half, whole
// pages (both processes' buffers are paged alike), 0 below two pages.
constexpr std::size_t shared_copy_head(std::size_t n) { return n / 2 / 4096 * 4096; }

// A non-contiguous send buffer described in an rts, so that a receiver with single copy reads the
// sender's runs directly. Followed by `blocks` base::Strided records (same library on every rank).
struct LayoutWire {
  std::uint64_t base;
  std::uint64_t repeat;
  std::int64_t extent;
  std::uint64_t bytes_per_copy;
  std::uint64_t blocks;
};
// Senders with more blocks than this send their data in packets instead (the rts stays small).
inline constexpr std::size_t kMaxLayoutBlocks = 64;
// Single copy straight between non-contiguous buffers only when their runs average at least a page:
// process_vm_readv pins every page a run touches, so runs of a few hundred bytes spread over many
// pages cost more than copying them through the device (bench/vector_columns: 256-byte runs 4x
// slower, 4 KiB runs even, 8-16 KiB runs 1.7-2.7x faster than pack-then-send). Shorter runs travel
// as data packets the sender's device gathers from them.
inline constexpr std::size_t kMinSingleCopyRun = 4096;

// Header caching: a message whose envelope (context, source, tag) repeats the previous eager or
// rts frame to the same peer travels with this 4-byte header; the receiver restores the envelope
// from the last full header it got from that peer (frames to one peer arrive in order).
struct CachedHeader {
  FrameKind kind;
  std::uint8_t reserved[3];
};
static_assert(sizeof(CachedHeader) == 4);

// The envelope a peer last sent / was sent in a full header.
struct Envelope {
  std::int32_t context = -1;
  std::int32_t source = 0;
  std::int32_t tag = 0;
  bool operator==(const Envelope&) const = default;
};

// Writes h at `to` (sizeof(WireHeader) bytes) as words built in registers, stored 16, 16 and 8
// bytes at a time: the chunks in which the device copies a header into its cells
// (base::chunk_copy), so that each of its loads is served by one of these stores. Copied from a
// WireHeader built field by field on the stack, the header's loads spanned several stores and each
// waited for every older store to reach the cache: in osu_bibw 8 KiB (2 ranks on a 2-vCPU AMD
// EPYC guest), 91% of Engine::isend's samples sat on that load, waiting for the previous rts's
// stores to a ring cell the peer was reading.
inline void store_wire_header(std::byte* to, const WireHeader& h) {
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const std::uint64_t w0 = std::uint64_t{static_cast<std::uint8_t>(h.kind)} | std::uint64_t{h.flags} << 8 |
                           std::uint64_t{h.reserved} << 16 | std::uint64_t{static_cast<std::uint32_t>(h.context)} << 32;
  const std::uint64_t w1 =
      std::uint64_t{static_cast<std::uint32_t>(h.source)} | std::uint64_t{static_cast<std::uint32_t>(h.tag)} << 32;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to), _mm_set_epi64x(static_cast<long long>(w1), static_cast<long long>(w0)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(to + 16),
                   _mm_set_epi64x(static_cast<long long>(h.req), static_cast<long long>(h.size)));
  std::memcpy(to + 32, &h.aux, 8);
#else
  std::memcpy(to, &h, sizeof h);
#endif
}

inline void put_header(device::SendOp& op, const WireHeader& h) {
  store_wire_header(op.header.data(), h);
  op.header_len = sizeof h;
}

}  // namespace railmpi::p2p
