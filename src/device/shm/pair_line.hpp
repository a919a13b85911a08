// A line (two cache lines) shared by a pair of ranks, for the small messages of a ping-pong.
//
// Each direction of a pair has its own cell ring (ring.hpp), so a ping-pong moves two lines: the
// request's cell one way and the reply's cell the other. A line that goes back and forth costs
// less than two lines that each go one way: on this machine (`bench/limits/cacheline`, and
// `cacheline 300000 2` for two lines) 0.22-0.24 us per hand-over with one line against 0.30-0.35
// with two (a slow phase of the machine, 2026-11-25), likely because a core that reads a line
// another core modified gets it ready for writing, and then writes its answer into it at once.
//
// So each pair has one PairLine, written in turns: a rank may post a message (header and payload
// up to kPairLineBytes) only when it holds the turn, and it gets the turn by delivering the other
// side's message; the lower rank holds it first. Posting passes the turn on. So the line is never
// written by both at once, and a rank knows whether it may post without reading the line. A rank
// whose next message does not fit, or that does not hold the turn, uses its ring.
//
// Order with the cell ring: a message posted here carries the poster's cell-ring tail (`order`);
// the receiver delivers it once it has consumed the ring up to there, and before any ring frame
// at or after that position. (The poster posts only with nothing queued for the ring.)
//
// Two lines: a message of up to kFirstLineBytes (header and payload) takes the first line only,
// which holds `seq`, the only word the receiver polls; a longer one (up to kPairLineBytes, e.g. a
// full 40-byte header and 64 bytes of payload) runs on into the second line, written before `seq`.
// The poster then demotes the lines it wrote to the shared cache (base::demote_line): the
// receiver's read of them is served there instead of from the poster's core. Measured
// (osu_latency, 2 ranks, interleaved runs, 2026-11-25): 0-32 B one way 0.16-0.22 us without the
// demotion, 0.10-0.14 with it. Demoting bulk data or every cell of the rings cost instead
// (osu_bw 4-64 KiB 2-3x slower, 1-64 B message rate 1.5x lower): only the ping-pong's lines,
// which the peer reads at once, gain.
//
// When to use it is the device's business (shm_device.hpp): a rank posts here only to a peer that
// said, in its last frame, that it now looks at the pair line too.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/cache_hint.hpp"
#include "base/short_copy.hpp"

namespace railmpi::device::shm {

// Header + payload bytes one message on the line carries: in the first line, in both.
inline constexpr std::size_t kFirstLineBytes = 52;
inline constexpr std::size_t kPairLineBytes = kFirstLineBytes + 64;

struct alignas(64) PairLine {
  std::uint32_t seq;    // messages posted by both sides; stored last (release or seq_cst)
  std::uint32_t order;  // the poster's cell-ring tail when it posted `seq` (low 32 bits)
  std::uint8_t header_len;
  std::uint8_t payload_len;
  std::uint8_t reserved[2];
  std::byte data[kPairLineBytes];  // the first kFirstLineBytes in the first line
};
static_assert(sizeof(PairLine) == 128 && offsetof(PairLine, data) + kFirstLineBytes == 64);

// One rank's end of a PairLine.
class PairLineEnd {
 public:
  // `side`: 0 for the lower rank of the pair (it holds the turn first), 1 for the higher. The line
  // is zeroed when new.
  void attach(PairLine* line, int side) {
    line_ = line;
    seen_ = 0;
    turn_ = side == 0;
  }
  bool attached() const { return line_ != nullptr; }

  // Sender: this end holds the turn (no memory is read).
  bool free() const { return turn_; }
  static constexpr bool fits(std::size_t header_len, std::size_t payload_len) {
    return header_len <= base::kShortCopyMax && header_len + payload_len <= kPairLineBytes;
  }
  // Precondition: free() and fits(). `ring_tail`: the sender's cell-ring tail now.
  void post(std::span<const std::byte> header, std::span<const std::byte> payload, std::uint64_t ring_tail,
            std::memory_order publish) {
    // Written into the line(s) directly: the other side reads nothing before `seq`. (Assembling
    // the message in a stack buffer first and copying that into the lines made the copy's loads
    // wait for the assembly's stores, which they straddle: lib_ab.sh, direct writes against the
    // buffer, osu_latency 0-32 B 0.76-0.96 and 0.89-1.03 in two runs of 15 and 11 rounds, 64 B
    // 1.03 and 0.93.)
    const std::size_t n = header.size() + payload.size();
    base::chunk_copy(line_->data, header.data(), header.size());
    std::byte* to = line_->data + header.size();
    const std::size_t first = std::min(payload.size(), base::kShortCopyMax);
    base::short_copy(to, payload.data(), first);
    base::short_copy(to + first, payload.data() + first, payload.size() - first);
    const bool second_line = n > kFirstLineBytes;
    line_->order = static_cast<std::uint32_t>(ring_tail);
    line_->header_len = static_cast<std::uint8_t>(header.size());
    line_->payload_len = static_cast<std::uint8_t>(payload.size());
    turn_ = false;
    store(line_->seq, ++seen_, publish);
    base::demote_line(line_);
    if (second_line) base::demote_line(line_->data + kFirstLineBytes);
  }

  // Receiver: a message of the other side waits here.
  bool pending(std::memory_order mo = std::memory_order_acquire) const { return load(line_->seq, mo) != seen_; }
  // Receiver, while it waits for the other side's message: reads a word of the second line, so
  // that the line comes to this core while the poster writes the first (the poster writes the
  // second line before `seq`, and stores become visible in order). Then a two-line message costs
  // about one hand-over of a line instead of two in a row: lib_ab.sh osu_latency, 2026-12-07,
  // 64 B 0.78 the time (100 interleaved rounds; 0.265 against 0.333 us in 60 more, the other way
  // round; read from watched peers only, 0.76 in 60 rounds), 0-32 B 0.97-1.02. A prefetch instead of the load gained nothing (64 B 1.01): here a
  // prefetch of a line another core holds modified does not bring it. A relaxed load, so the
  // compiler keeps it; its value is not used.
  void touch_second_line() const {
    (void)load(*reinterpret_cast<const std::uint32_t*>(line_->data + kFirstLineBytes), std::memory_order_relaxed);
  }
  // Precondition: pending(). True when the message comes before the ring frame at `ring_head`
  // (the receiver's cell-ring position), i.e. every ring frame before it has been consumed.
  bool due(std::uint64_t ring_head) const {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(ring_head) - line_->order) >= 0;
  }
  // Precondition: pending(). Hands the message to f(header, payload) (spans into the line, valid
  // during the call: the other side writes again only after this end posted); this end holds the
  // turn once f returned (a send from inside f takes the ring: the spans stay intact).
  template <class F>
  void deliver(F&& f) {
    const std::byte* d = line_->data;
    const std::size_t hlen = line_->header_len, plen = line_->payload_len;
    // The second line's load starts now and overlaps the handler's parsing and matching, instead
    // of waiting for the copy of the payload at its end; for writing, since this end holds the
    // turn next and no one else writes the line before it posts (lib_ab.sh, osu_latency 64 B:
    // loading it early 0.97 and 0.95 the time of not, 11 and 15 interleaved rounds; for writing
    // 0.95 and 0.96 the time of loading it to read, 15 and 21 rounds). The first line too: it
    // came here to be read, and the answer's stores would then wait for a second transfer, taking
    // it for writing; asked for now, that transfer overlaps the handler (lib_ab.sh, osu_latency
    // 1-64 B, 2026-11-29: 0.93-0.96 the time in 12 interleaved rounds, 0.92-0.97 in the 9 of 16
    // with the faster handoff between the cores; osu_bw 16 B-1 KiB 0.94-1.14, noise).
    base::fetch_line_to_write(line_);
    if (hlen + plen > kFirstLineBytes) base::fetch_line_to_write(d + kFirstLineBytes);
    ++seen_;
    f(std::span<const std::byte>(d, hlen), std::span<const std::byte>(d + hlen, plen));
    turn_ = true;
  }

 private:
  static std::uint32_t load(const std::uint32_t& w, std::memory_order mo) {
    return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t&>(w)).load(mo);
  }
  static void store(std::uint32_t& w, std::uint32_t v, std::memory_order mo) {
    std::atomic_ref<std::uint32_t> a(w);
    switch (mo) {  // a constant order for GCC (see detail::store in ring.hpp)
      case std::memory_order_relaxed: a.store(v, std::memory_order_relaxed); break;
      case std::memory_order_seq_cst: a.store(v, std::memory_order_seq_cst); break;
      default: a.store(v, std::memory_order_release); break;
    }
  }

  PairLine* line_ = nullptr;
  std::uint32_t seen_ = 0;  // messages posted on the line that this end knows of (its own and delivered ones)
  bool turn_ = false;
};

}  // namespace railmpi::device::shm
