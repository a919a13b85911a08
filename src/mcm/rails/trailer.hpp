// The rail trailer: what the multi-method layer appends to the header of every frame it sends
// to a peer reached over several channels (never to a peer with one channel: that path carries
// no trailer and costs nothing).
//
//   header bytes:  [ caller's header (<= kMaxUserHeader) | Trailer (16 bytes) ]
//
// seq != 0: an ordered frame, number `seq` in the per-peer sequence (1, 2, ..., wrapping past 0);
//           the receiver delivers ordered frames in sequence order whatever channel they took.
// seq == 0: a placeable frame (or one part of it): delivered at once through on_frame_part with
//           `part_offset`, the part's offset in the frame's payload.
// xmit:     every frame and every part has its own number in a second per-peer sequence (1, 2,
//           ..., skipping 0): the identity the receiver drops duplicates by and acknowledges.
//           A resent frame keeps its number. xmit == 0: a control frame with no caller's
//           header and no payload; nothing is delivered. Its `seq` says what it is: kControlAck
//           (acknowledgement, reconnection probe) or kControlLaneDown (part_offset: the sender's
//           channel, numbered as in its business card, whose interface went down).
// ack:      cumulative acknowledgement: the sender of this frame holds every frame of the
//           receiver's with xmit <= ack (0: none yet).
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "device/device.hpp"

namespace railmpi::mcm::rails {

struct Trailer {
  std::uint32_t seq;
  std::uint32_t part_offset;
  std::uint32_t xmit;
  std::uint32_t ack;
};
static_assert(sizeof(Trailer) == 16);

inline constexpr std::uint32_t kControlAck = 0;
inline constexpr std::uint32_t kControlLaneDown = 1;
static_assert(device::kMaxUserHeader + sizeof(Trailer) <= device::kMaxHeader);

inline void append_trailer(device::SendOp& op, Trailer t) {
  std::memcpy(op.header.data() + op.header_len, &t, sizeof t);
  op.header_len += sizeof t;
}

// Rewrites the ack field of a header that already carries a trailer (a resent frame).
inline void update_ack(device::SendOp& op, std::uint32_t ack) {
  std::memcpy(op.header.data() + op.header_len - sizeof(std::uint32_t), &ack, sizeof ack);
}

// Splits a received header into the caller's header and the trailer (header.size() >= 16).
inline Trailer read_trailer(std::span<const std::byte>& header) {
  Trailer t;
  std::memcpy(&t, header.data() + header.size() - sizeof t, sizeof t);
  header = header.first(header.size() - sizeof t);
  return t;
}

// Sequence numbers skip 0 (it marks placeable frames, or control frames for xmit).
inline std::uint32_t next_seq(std::uint32_t seq) { return seq + 1 == 0 ? 1 : seq + 1; }

// Signed distance from `from` to `seq` on the ring of numbers 1 .. 2^32-1 (half of it ahead).
inline std::int64_t seq_distance(std::uint32_t from, std::uint32_t seq) {
  constexpr std::int64_t ring = (std::int64_t{1} << 32) - 1;
  std::int64_t d = std::int64_t(seq) - std::int64_t(from);
  if (seq < from && from - seq > (ring >> 1)) d += ring;  // wrapped ahead
  if (seq > from && seq - from > (ring >> 1)) d -= ring;  // wrapped behind
  return d;
}

}  // namespace railmpi::mcm::rails
