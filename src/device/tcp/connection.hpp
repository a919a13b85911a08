// State of the tcp device per socket (Conn) and per peer rank (Peer).
//
// A Peer owns the send queue of its rank: an intrusive FIFO of SendOps. Frames are written only
// on the peer's `active` connection, which exists once the handshake decided which socket
// carries the pair's traffic, so queued frames never have to move between sockets.
#pragma once

#include <netinet/in.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "device/device.hpp"

namespace railmpi::device::tcp {

// Bytes received on one connection and not yet delivered: [begin, end) of data[0, cap).
class RecvBuffer {
 public:
  static constexpr std::size_t kInitialBytes = 256 * 1024;

  void init();
  // Ensures the bytes of the current frame (`need` bytes counted from begin) fit, and that
  // there is free space after end. Compacts, or grows (allocation, off the hot path).
  void make_room(std::size_t need);

  std::byte* read_ptr() { return data_.get() + begin_; }
  std::byte* write_ptr() { return data_.get() + end_; }
  std::size_t available() const { return end_ - begin_; }
  std::size_t space() const { return cap_ - end_; }
  void produced(std::size_t n) { end_ += n; }
  void consumed(std::size_t n) {
    begin_ += n;
    if (begin_ == end_) begin_ = end_ = 0;
  }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t cap_ = 0;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

class TcpDevice;

// What an epoll event of a channel's set points at: a socket of a channel (a Conn), or a
// descriptor the channels' owner watches in the same set (device == nullptr, see PollGroup).
struct PollTarget {
  TcpDevice* device = nullptr;  // the channel owning the socket
};

enum class Role : unsigned char {
  listening,   // the listening socket: ready means connections to accept
  connecting,  // outgoing: non-blocking connect() in progress
  await_ack,   // outgoing: Hello sent, waiting for the Ack
  accepting,   // incoming: waiting for the Hello
  data,        // the peer's active connection: carries frames
  dead,        // closed; freed at the end of poll()
};

struct Conn : PollTarget {
  int fd = -1;
  Role role = Role::dead;
  int peer = -1;                      // known once the handshake says so
  std::array<std::byte, 8> hs{};      // Hello or Ack being received
  std::size_t hs_got = 0;
  bool out_armed = false;             // EPOLLOUT registered
  RecvBuffer in;                      // only for Role::data
};

struct Peer {
  int rank = -1;
  bool known = false;                 // address given by connect()
  sockaddr_in addr{};
  std::string address;                // "ip:port", for messages
  Conn* active = nullptr;             // Role::data connection
  Conn* outgoing = nullptr;           // our connection attempt, until decided
  bool rejected = false;              // our attempt lost the tie-break: wait for theirs
  bool failed = false;                // failure recorded (reported once)
  bool closed = false;                // the peer said goodbye (clean shutdown)
  bool rejoining = false;             // revived after a failure: our next Hello says rejoin
  bool active_rejoined = false;       // `active` is our own rejoin connection
  std::chrono::steady_clock::time_point last_write{};  // queue non-empty: last bytes written
  std::chrono::steady_clock::time_point suspect_since{};  // link_stalled() true since (0: not)
  SendOp* head = nullptr;             // send FIFO
  SendOp* tail = nullptr;
};

}  // namespace railmpi::device::tcp
