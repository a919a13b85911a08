// The request: one state machine for every point-to-point operation (send, receive, probed
// message). Requests live in a pool owned by the layer above; the engine only links them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/layout.hpp"
#include "device/device.hpp"

namespace railmpi::p2p {

inline constexpr int kAnySource = -2;  // equal to MPI_ANY_SOURCE of the ABI
inline constexpr int kAnyTag = -1;     // equal to MPI_ANY_TAG of the ABI
inline constexpr int kProcNull = -1;   // equal to MPI_PROC_NULL of the ABI

// The communication marker: what kind of MPI operation a transfer belongs to (the rail policy
// reads it from the frames' SendOp).
using Marker = device::Marker;

enum class SendMode : std::uint8_t { standard, synchronous, ready };

enum class RequestKind : std::uint8_t { send, recv, message, other };

struct Unexpected;

struct Request {
  RequestKind kind = RequestKind::other;
  bool complete = false;
  bool cancelled = false;
  bool truncated = false;
  Marker marker = Marker::blocking;

  // Envelope. For a receive, source/tag may be wildcards.
  int context = 0;
  int source = 0;  // send: own rank in comm; recv: wanted source rank in comm
  int tag = 0;
  int peer = -1;   // job-wide rank of the other side (receive: known once matched)
  std::byte* buf = nullptr;
  std::size_t bytes = 0;  // send: message size; recv: capacity
  // Non-contiguous user buffer (then buf is unused): recv destination / send source.
  const base::Layout* layout = nullptr;
  std::byte* packed = nullptr;  // send: engine-owned rts description of a layout (single copy)

  // Status once complete.
  int status_source = 0;
  int status_tag = 0;
  std::size_t status_bytes = 0;

  // Protocol state.
  std::uint8_t waiting = 0;      // sends: events still needed (op done, ack, fin)
  bool op_busy = false;          // the embedded op is queued in a device
  bool cts_arrived = false;      // rendezvous data may start once op_busy clears
  bool sending_data = false;     // the embedded op now carries data packets
  bool rendezvous_send = false;  // counted in the engine's rendezvous sends to `peer` until complete
  std::size_t total = 0;         // rendezvous: message size
  std::size_t offset = 0;        // rendezvous: bytes sent / received so far
  std::uint64_t remote_req = 0;  // rendezvous: the other side's request
  std::uint64_t remote_addr = 0; // receive by shared single copy: the sender's buffer
  // Receive by shared single copy (Figures::shared_copy_min): offset counts the bytes this rank
  // read and the sender wrote; fin goes out once they reach total.
  bool shared_copy = false;
  Unexpected* message = nullptr; // kind == message: the probed message
  device::SendOp op;

  // Posted-queue links.
  Request* next = nullptr;
  Request* prev = nullptr;

  // Called once when the request completes (buffered sends, collectives, ...).
  void (*on_complete)(Request&) = nullptr;
  void* owner = nullptr;
  void* owner_engine = nullptr;  // set by the engine
};

}  // namespace railmpi::p2p
