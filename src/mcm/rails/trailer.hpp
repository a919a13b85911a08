// The rail trailer: what the multi-method layer appends to the header of every frame it sends
// to a peer reached over several channels (never to a peer with one channel: that path carries
// no trailer and costs nothing).
//
//   header bytes:  [ caller's header (<= kMaxUserHeader) | Trailer (8 bytes) ]
//
// seq != 0: an ordered frame, number `seq` in the per-peer sequence (1, 2, ..., wrapping past 0);
//           the receiver delivers ordered frames in sequence order whatever channel they took.
// seq == 0: a placeable frame (or one part of it): delivered at once through on_frame_part with
//           `part_offset`, the part's offset in the frame's payload.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

#include "device/device.hpp"

namespace railmpi::mcm::rails {

struct Trailer {
  std::uint32_t seq;
  std::uint32_t part_offset;
};
static_assert(sizeof(Trailer) == 8);
static_assert(device::kMaxUserHeader + sizeof(Trailer) <= device::kMaxHeader);

inline void append_trailer(device::SendOp& op, Trailer t) {
  std::memcpy(op.header.data() + op.header_len, &t, sizeof t);
  op.header_len += sizeof t;
}

// Splits a received header into the caller's header and the trailer (header.size() >= 8).
inline Trailer read_trailer(std::span<const std::byte>& header) {
  Trailer t;
  std::memcpy(&t, header.data() + header.size() - sizeof t, sizeof t);
  header = header.first(header.size() - sizeof t);
  return t;
}

// Sequence numbers skip 0 (it marks placeable frames).
inline std::uint32_t next_seq(std::uint32_t seq) { return seq + 1 == 0 ? 1 : seq + 1; }

}  // namespace railmpi::mcm::rails
