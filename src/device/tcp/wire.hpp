// On-the-wire formats of the tcp device: the connection handshake and the frame prefix.
//
// A connection starts with a Hello from the connecting rank and an Ack from the accepting rank;
// after an accepted Ack the stream carries frames: Prefix + header + payload. All integers are
// sent in network byte order.
#pragma once

#include <cstddef>
#include <cstdint>

namespace railmpi::device::tcp::wire {

inline constexpr std::uint32_t kMagic = 0x5241494cu;  // "RAIL"
// Hello magic of a reconnection (failover): the connecting rank gave up every earlier
// connection of the pair, so the accepting rank replaces its own (see TcpDevice::on_hello).
inline constexpr std::uint32_t kMagicRejoin = 0x5241494au;  // "RAIJ"

// Connecting rank -> accepting rank, first bytes of every connection.
struct Hello {
  std::uint32_t magic;
  std::uint32_t rank;
};

// Accepting rank -> connecting rank: 1 = this connection carries the pair's frames,
// 0 = rejected (simultaneous connect, the other direction's connection wins).
struct Ack {
  std::uint32_t magic;
  std::uint32_t accepted;
};

// Precedes every frame.
struct Prefix {
  std::uint32_t header_len;
  std::uint32_t payload_len;
};

// header_len value of the farewell prefix sent by shutdown(): the connection ends cleanly and
// its end of file is not a failure. No header or payload follows.
inline constexpr std::uint32_t kByeHeaderLen = 0xffffffffu;

// Largest payload accepted from the wire (protection against a corrupt stream); the device
// advertises a smaller max_payload.
inline constexpr std::uint32_t kWireMaxPayload = 1u << 30;

static_assert(sizeof(Hello) == 8 && sizeof(Ack) == 8 && sizeof(Prefix) == 8);

}  // namespace railmpi::device::tcp::wire
