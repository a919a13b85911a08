#include "device/tcp/tcp_device.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "base/log.hpp"
#include "device/tcp/link_check.hpp"
#include "device/tcp/net.hpp"
#include "device/tcp/wire.hpp"

namespace railmpi::device::tcp {
namespace {

// Estimates, not measurements: loopback/10GbE-class TCP. The multi-method layer only compares
// them with other devices' figures.
constexpr double kLatencyUs = 10.0;
constexpr double kBandwidthMBs = 2000.0;
constexpr std::size_t kMaxPayload = 1 << 20;

constexpr int kSendBatch = 16;   // ops gathered into one sendmsg
// iovecs of one sendmsg in flush() and for gathered payloads (IOV_MAX): on loopback every sendmsg
// also runs the receiver's side of TCP, so the fewer the better.
constexpr int kGatherIov = 1024;
// Runs of a gathered payload shorter than this are copied into the device's stage and written from
// there (one iovec for many): the kernel's cost per iovec exceeds a short copy, and one iovec per
// 8-byte run would write a few KiB per sendmsg (bench: 8-byte runs 8x, 128-byte runs 2x slower).
constexpr std::size_t kStageRun = 256;
constexpr int kReadRounds = 16;  // reads per connection per poll (fairness between peers)

constexpr std::size_t frame_bytes(const SendOp& op) {
  return sizeof(wire::Prefix) + op.header_len + op.payload_len;
}

wire::Prefix make_prefix(const SendOp& op) {
  return wire::Prefix{htonl(op.header_len), htonl(static_cast<std::uint32_t>(op.payload_len))};
}

// Appends [base, base + len) as an iovec, less its first `skip` bytes (skip is used up first).
inline void add_part(const void* base, std::size_t len, std::size_t& skip, iovec* iov, int& n) {
  if (skip >= len) {
    skip -= len;
    return;
  }
  iov[n++] = iovec{const_cast<char*>(static_cast<const char*>(base)) + skip, len - skip};
  skip = 0;
}

// iovecs for the unsent part of `op` (prefix + header + payload after op.progress bytes).
int add_iov(const SendOp& op, const wire::Prefix& prefix, iovec* iov) {
  std::size_t skip = op.progress;
  int n = 0;
  add_part(&prefix, sizeof prefix, skip, iov, n);
  add_part(op.header.data(), op.header_len, skip, iov, n);
  add_part(op.payload, op.payload_len, skip, iov, n);
  return n;
}

// The same for a gathered payload (op.layout): at most iov.size() (>= 3) iovecs; `bytes` gets the
// bytes they cover. Long runs go straight from the layout (runs that touch share an iovec), short
// ones are copied into `stage` (whose used front is cut off; staged bytes are needed only until the
// sendmsg that writes them returns). Runs that do not fit go in a later call, resumed from
// op.progress.
int add_gathered_iov(const SendOp& op, const wire::Prefix& prefix, std::span<iovec> iov,
                     std::span<std::byte>& stage, std::size_t& bytes) {
  std::size_t skip = op.progress;
  int n = 0;
  add_part(&prefix, sizeof prefix, skip, iov.data(), n);
  add_part(op.header.data(), op.header_len, skip, iov.data(), n);
  bytes = 0;
  for (int i = 0; i < n; ++i) bytes += iov[static_cast<std::size_t>(i)].iov_len;
  const std::size_t rest = op.payload_len - skip;
  base::LayoutCursor cursor(*op.layout, op.layout_offset + skip);
  std::size_t staged = 0;
  const std::size_t taken = cursor.walk(rest, [&](std::byte* run, std::size_t len) {
    const bool short_run = len < kStageRun;
    if (short_run && staged + len > stage.size()) return false;
    std::byte* from = short_run ? stage.data() + staged : run;
    iovec* last = n > 0 ? &iov[static_cast<std::size_t>(n - 1)] : nullptr;
    if (last != nullptr && static_cast<std::byte*>(last->iov_base) + last->iov_len == from) {
      last->iov_len += len;
    } else {
      if (static_cast<std::size_t>(n) == iov.size()) return false;
      iov[static_cast<std::size_t>(n++)] = iovec{from, len};
    }
    if (short_run) {
      std::memcpy(from, run, len);
      staged += len;
    }
    return true;
  });
  if (taken < rest && cursor.done())
    base::fatal("tcp device: a gathered payload of %zu bytes runs past its layout", op.payload_len);
  stage = stage.subspan(staged);
  bytes += taken;
  return n;
}

ssize_t send_iov(int fd, iovec* iov, int n) {
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = static_cast<std::size_t>(n);
  for (;;) {
    const ssize_t r = ::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (r >= 0 || errno != EINTR) return r;
  }
}

bool would_block(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

// Writes all of a small handshake message to a fresh socket (fits in any socket buffer).
bool send_small(int fd, const void* data, std::size_t len) {
  for (;;) {
    const ssize_t r = ::send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (r >= 0) return static_cast<std::size_t>(r) == len;
    if (errno != EINTR) return false;
  }
}

}  // namespace

TcpDevice::TcpDevice(int my_rank, int job_size, const base::Settings& settings, in_addr bind, PollGroup* group)
    : my_rank_(my_rank),
      peers_(static_cast<std::size_t>(job_size)),
      eager_limit_(settings.tcp_eager_limit),
      bind_(bind),
      stage_storage_(new std::byte[kStageBytes]),
      stage_(stage_storage_.get(), kStageBytes),
      group_(group) {
  if (my_rank < 0 || my_rank >= job_size)
    base::fatal("tcp device: rank %d outside job of size %d", my_rank, job_size);
  for (int r = 0; r < job_size; ++r) peers_[static_cast<std::size_t>(r)].rank = r;
  listener_.device = this;
  listener_.role = Role::listening;
  if (group_ != nullptr) {
    epoll_fd_ = group_->fd();
    group_->join(*this);
    return;
  }
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) base::fatal("tcp device: epoll_create1: %s", net::errno_text(errno).c_str());
}

TcpDevice::~TcpDevice() {
  // No goodbye: an abrupt end, as if the process had died (shutdown() is the clean way).
  for (auto& conn : conns_)
    if (conn->fd >= 0) ::close(conn->fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0 && group_ == nullptr) ::close(epoll_fd_);
}

Figures TcpDevice::figures() const {
  Figures f;
  f.latency_us = kLatencyUs;
  f.bandwidth_mbs = kBandwidthMBs;
  f.eager_limit = eager_limit_;
  f.max_payload = kMaxPayload;
  f.single_copy = false;
  return f;
}

std::string TcpDevice::local_address() {
  if (listen_fd_ >= 0) return address_;
  const in_addr ip = bind_;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) base::fatal("tcp device: socket: %s", net::errno_text(errno).c_str());
  net::set_buffers(fd);  // inherited by accepted sockets
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr = ip;
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &ip, text, sizeof text);
    base::fatal("tcp device: cannot listen on %s: %s", text, net::errno_text(errno).c_str());
  }
  if (::listen(fd, SOMAXCONN) != 0)
    base::fatal("tcp device: listen: %s", net::errno_text(errno).c_str());
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    base::fatal("tcp device: getsockname: %s", net::errno_text(errno).c_str());

  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = static_cast<PollTarget*>(&listener_);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    base::fatal("tcp device: epoll_ctl: %s", net::errno_text(errno).c_str());
  listen_fd_ = fd;
  address_ = net::format_endpoint(addr);
  return address_;
}

void TcpDevice::connect(std::span<const PeerAddress> peers, Bootstrap /*bootstrap*/) {
  // Connections are lazy: nothing to agree on, so no barrier (0 calls on every rank).
  for (const PeerAddress& pa : peers) {
    if (pa.rank < 0 || pa.rank >= static_cast<int>(peers_.size()) || pa.rank == my_rank_) continue;
    Peer& peer = peers_[static_cast<std::size_t>(pa.rank)];
    peer.address = pa.address;
    peer.known = net::parse_endpoint(pa.address, peer.addr);
    if (!peer.known)
      base::log_error("tcp device: rank %d has a malformed address '%s'", pa.rank,
                      pa.address.c_str());
  }
}

// ---- connections -------------------------------------------------------------------------

Conn* TcpDevice::add_conn(int fd, Role role, int peer, unsigned events) {
  auto conn = std::make_unique<Conn>();
  conn->device = this;
  conn->fd = fd;
  conn->role = role;
  conn->peer = peer;
  conn->out_armed = (events & EPOLLOUT) != 0;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = static_cast<PollTarget*>(conn.get());
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    base::fatal("tcp device: epoll_ctl: %s", net::errno_text(errno).c_str());
  conns_.push_back(std::move(conn));
  return conns_.back().get();
}

void TcpDevice::close_conn(Conn* conn) {
  if (conn == nullptr || conn->role == Role::dead) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, conn->fd, nullptr);
  ::close(conn->fd);
  conn->fd = -1;
  conn->role = Role::dead;
  ++dead_conns_;  // freed at the end of poll(): events of this round may still point at it
}

void TcpDevice::set_out_armed(Conn* conn, bool armed) {
  if (conn->role == Role::dead || conn->out_armed == armed) return;
  epoll_event ev{};
  ev.events = EPOLLIN | (armed ? EPOLLOUT : 0u);
  ev.data.ptr = static_cast<PollTarget*>(conn);
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, conn->fd, &ev);
  conn->out_armed = armed;
}

void TcpDevice::start_connect(Peer& peer) {
  if (!peer.known) {
    fail_peer(peer, "no address for rank " + std::to_string(peer.rank) +
                        (peer.address.empty() ? std::string(" (not given to connect())")
                                              : " (malformed: '" + peer.address + "')"));
    return;
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    fail_peer(peer, "connection to rank " + std::to_string(peer.rank) + " (" + peer.address +
                        ") failed: socket: " + net::errno_text(errno));
    return;
  }
  net::set_nodelay(fd);
  net::set_buffers(fd);
  // Leave from this channel's own address, so that the connection uses this rail.
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr = bind_;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    const int err = errno;
    ::close(fd);
    fail_peer(peer, "connection to rank " + std::to_string(peer.rank) + " (" + peer.address +
                        ") failed: bind: " + net::errno_text(err));
    return;
  }
  int r;
  do {
    r = ::connect(fd, reinterpret_cast<const sockaddr*>(&peer.addr), sizeof peer.addr);
  } while (r != 0 && errno == EINTR);
  if (r != 0 && errno != EINPROGRESS) {
    const int err = errno;
    ::close(fd);
    fail_peer(peer, "connection to rank " + std::to_string(peer.rank) + " (" + peer.address +
                        ") failed: " + net::errno_text(err));
    return;
  }
  // Completion (even an immediate one) is seen as EPOLLOUT in poll().
  peer.outgoing = add_conn(fd, Role::connecting, peer.rank, EPOLLOUT);
}

int TcpDevice::accept_all() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      break;  // EAGAIN, or out of descriptors (retried at the next poll)
    }
    net::set_nodelay(fd);
    add_conn(fd, Role::accepting, -1, EPOLLIN);
  }
  return 0;  // connections are not frames or finished ops
}

void TcpDevice::on_connected(Conn* conn) {
  Peer& peer = peers_[static_cast<std::size_t>(conn->peer)];
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err == 0) {
    const wire::Hello hello{htonl(peer.rejoining ? wire::kMagicRejoin : wire::kMagic),
                            htonl(static_cast<std::uint32_t>(my_rank_))};
    if (send_small(conn->fd, &hello, sizeof hello)) {
      conn->role = Role::await_ack;
      set_out_armed(conn, false);
      return;
    }
    err = errno;
  }
  fail_peer(peer, "connection to rank " + std::to_string(peer.rank) + " (" + peer.address +
                      ") failed: " + net::errno_text(err));
}

int TcpDevice::on_ack(Conn* conn) {
  Peer& peer = peers_[static_cast<std::size_t>(conn->peer)];
  while (conn->hs_got < sizeof(wire::Ack)) {
    const ssize_t r = ::recv(conn->fd, conn->hs.data() + conn->hs_got,
                             sizeof(wire::Ack) - conn->hs_got, MSG_DONTWAIT);
    if (r > 0) {
      conn->hs_got += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && would_block(errno)) return 0;
    fail_peer(peer, reset_text(peer, r == 0 ? std::string("end of file during handshake")
                                            : net::errno_text(errno)));
    return 0;
  }
  wire::Ack ack;
  std::memcpy(&ack, conn->hs.data(), sizeof ack);
  if (ntohl(ack.magic) != wire::kMagic) {
    fail_peer(peer, reset_text(peer, "protocol error (bad handshake)"));
    return 0;
  }
  peer.outgoing = nullptr;
  if (ntohl(ack.accepted) == 0) {
    // Lost the tie-break: the lower rank's own connection will arrive and carry the frames.
    close_conn(conn);
    peer.rejected = true;
    return 0;
  }
  conn->role = Role::data;
  conn->in.init();
  peer.active = conn;
  peer.active_rejoined = peer.rejoining;
  peer.rejoining = false;
  int events = flush(peer);
  if (conn->role == Role::data) events += read_frames(conn);
  return events;
}

int TcpDevice::on_hello(Conn* conn) {
  while (conn->hs_got < sizeof(wire::Hello)) {
    const ssize_t r = ::recv(conn->fd, conn->hs.data() + conn->hs_got,
                             sizeof(wire::Hello) - conn->hs_got, MSG_DONTWAIT);
    if (r > 0) {
      conn->hs_got += static_cast<std::size_t>(r);
      continue;
    }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && would_block(errno)) return 0;
    close_conn(conn);  // not identified yet: nobody to report
    return 0;
  }
  wire::Hello hello;
  std::memcpy(&hello, conn->hs.data(), sizeof hello);
  const auto rank = static_cast<int>(ntohl(hello.rank));
  const bool rejoin = ntohl(hello.magic) == wire::kMagicRejoin;
  if ((ntohl(hello.magic) != wire::kMagic && !rejoin) || rank < 0 || rank >= static_cast<int>(peers_.size()) ||
      rank == my_rank_) {
    close_conn(conn);
    return 0;
  }
  Peer& peer = peers_[static_cast<std::size_t>(rank)];
  bool accept;
  if (peer.closed)
    accept = false;
  else if (rejoin && peer.active != nullptr)
    // The peer gave up its old connections (failover): this one replaces ours, unless ours is
    // the peer's own reconnection made at the same time (then the lower rank's wins).
    accept = !peer.active_rejoined || rank < my_rank_;
  else if (peer.failed)
    accept = true;  // we saw the old connection fail; the peer reconnects
  else if (peer.active != nullptr)
    accept = false;
  else if (peer.outgoing != nullptr)
    accept = rank < my_rank_;  // simultaneous connect: the lower rank's connection wins
  else
    accept = true;

  const wire::Ack ack{htonl(wire::kMagic), htonl(accept ? 1u : 0u)};
  const bool sent = send_small(conn->fd, &ack, sizeof ack);
  if (!accept || !sent) {
    // A rejected connection: the Ack went out, and the initiator sends nothing before it, so
    // closing here ends the stream cleanly (FIN after the Ack).
    close_conn(conn);
    return 0;
  }
  if (peer.outgoing != nullptr) {
    close_conn(peer.outgoing);  // our attempt loses; the peer rejects it or finds it closed
    peer.outgoing = nullptr;
  }
  if (peer.active != nullptr) {
    // What the old connection carried may be lost: reported as a failure (the layer above
    // resends what was not acknowledged); the queue goes on over the new connection.
    close_conn(peer.active);
    peer.active = nullptr;
    if (!peer.failed) pending_failures_.emplace_back(rank, reset_text(peer, "replaced by a new connection from the peer"));
  }
  peer.failed = false;
  peer.rejected = false;
  peer.rejoining = false;
  peer.active_rejoined = false;
  if (peer.head != nullptr) peer.head->progress = 0;  // a frame cut short is sent whole again
  if (peer.address.empty()) {
    sockaddr_in from{};
    socklen_t len = sizeof from;
    if (getpeername(conn->fd, reinterpret_cast<sockaddr*>(&from), &len) == 0)
      peer.address = net::format_endpoint(from);
  }
  conn->peer = rank;
  conn->role = Role::data;
  conn->in.init();
  peer.active = conn;
  int events = flush(peer);
  if (conn->role == Role::data) events += read_frames(conn);
  return events;
}

// ---- sending -----------------------------------------------------------------------------

void TcpDevice::enqueue(Peer& peer, SendOp& op) {
  op.next = nullptr;
  if (peer.tail != nullptr) {
    peer.tail->next = &op;
  } else {
    peer.head = &op;
    peer.last_write = std::chrono::steady_clock::now();  // the queue starts waiting
  }
  peer.tail = &op;
  ++queued_;
}

SendOp* TcpDevice::pop(Peer& peer) {
  SendOp* op = peer.head;
  peer.head = op->next;
  if (peer.head == nullptr) peer.tail = nullptr;
  op->next = nullptr;
  --queued_;
  return op;
}

SendResult TcpDevice::send(int peer_rank, SendOp& op) {
  if (peer_rank < 0 || peer_rank >= static_cast<int>(peers_.size()) || peer_rank == my_rank_)
    base::fatal("tcp device: send to invalid rank %d", peer_rank);
  if (op.header_len > kMaxHeader || op.payload_len > wire::kWireMaxPayload)
    base::fatal("tcp device: frame too large (header %u, payload %zu)", op.header_len,
                op.payload_len);
  Peer& peer = peers_[static_cast<std::size_t>(peer_rank)];
  op.progress = 0;
  op.next = nullptr;
  if (shut_ || peer.failed || peer.closed) return SendResult::done;  // dropped; failure reported

  if (peer.active != nullptr && peer.head == nullptr) {
    if (op.layout == nullptr) [[likely]] {
      const wire::Prefix prefix = make_prefix(op);
      iovec iov[3];
      const int n = add_iov(op, prefix, iov);
      const ssize_t r = send_iov(peer.active->fd, iov, n);
      if (r >= 0 && static_cast<std::size_t>(r) == frame_bytes(op)) return SendResult::done;
      if (r < 0 && !would_block(errno)) {
        fail_peer(peer, reset_text(peer, net::errno_text(errno)));
        return SendResult::done;
      }
      op.progress = r > 0 ? static_cast<std::size_t>(r) : 0;
    } else if (write_gathered(peer, op)) {
      return SendResult::done;  // all written, or the peer failed (reported at the next poll)
    }
    enqueue(peer, op);
    set_out_armed(peer.active, true);
    return SendResult::queued;
  }

  enqueue(peer, op);
  if (peer.active == nullptr && peer.outgoing == nullptr && !peer.rejected) start_connect(peer);
  return SendResult::queued;
}

bool TcpDevice::write_gathered(Peer& peer, SendOp& op) {
  const wire::Prefix prefix = make_prefix(op);
  iovec iov[kGatherIov];
  for (;;) {  // one round, unless the runs need more iovecs or stage than one takes
    std::span<std::byte> stage = stage_;
    std::size_t want;
    const int n = add_gathered_iov(op, prefix, iov, stage, want);
    const ssize_t r = send_iov(peer.active->fd, iov, n);
    if (r < 0) {
      if (would_block(errno)) return false;
      fail_peer(peer, reset_text(peer, net::errno_text(errno)));
      return true;
    }
    op.progress += static_cast<std::size_t>(r);
    if (op.progress == frame_bytes(op)) return true;
    if (static_cast<std::size_t>(r) < want) return false;  // socket buffer full
  }
}

int TcpDevice::flush(Peer& peer) {
  Conn* conn = peer.active;
  int finished = 0;
  while (peer.head != nullptr && conn->role == Role::data) {
    wire::Prefix prefixes[kSendBatch];
    iovec iov[kGatherIov];
    int niov = 0;
    std::size_t want = 0;
    int k = 0;
    std::span<std::byte> stage = stage_;
    for (SendOp* op = peer.head; op != nullptr && k < kSendBatch && niov + 3 <= kGatherIov; op = op->next, ++k) {
      prefixes[k] = make_prefix(*op);
      if (op->layout == nullptr) [[likely]] {
        niov += add_iov(*op, prefixes[k], iov + niov);
        want += frame_bytes(*op) - op->progress;
        continue;
      }
      std::size_t bytes;
      niov += add_gathered_iov(*op, prefixes[k], std::span<iovec>(iov + niov, kGatherIov - niov), stage, bytes);
      want += bytes;
      if (bytes < frame_bytes(*op) - op->progress) break;  // runs left over: nothing after them yet
    }
    const ssize_t r = send_iov(conn->fd, iov, niov);
    if (r < 0) {
      if (would_block(errno)) break;
      fail_peer(peer, reset_text(peer, net::errno_text(errno)));
      return finished;
    }
    if (r > 0) peer.last_write = std::chrono::steady_clock::now();
    std::size_t left = static_cast<std::size_t>(r);
    while (left > 0) {
      SendOp* op = peer.head;
      const std::size_t rest = frame_bytes(*op) - op->progress;
      if (left < rest) {
        op->progress += left;
        break;
      }
      left -= rest;
      pop(peer);
      op->progress = frame_bytes(*op);
      ++finished;
      if (op->on_done != nullptr) op->on_done(*op);  // may send() again (appends or writes)
    }
    if (static_cast<std::size_t>(r) < want) break;  // socket buffer full
  }
  if (conn->role == Role::data) set_out_armed(conn, peer.head != nullptr);
  return finished;
}

// ---- receiving ---------------------------------------------------------------------------

int TcpDevice::read_frames(Conn* conn) {
  Peer& peer = peers_[static_cast<std::size_t>(conn->peer)];
  RecvBuffer& in = conn->in;
  int delivered = 0;
  for (int round = 0; round < kReadRounds; ++round) {
    // Room for the whole current frame, so a big payload arrives in few large reads.
    std::size_t need = sizeof(wire::Prefix);
    if (in.available() >= sizeof(wire::Prefix)) {
      wire::Prefix p;
      std::memcpy(&p, in.read_ptr(), sizeof p);
      const std::uint32_t hl = ntohl(p.header_len);
      if (hl != wire::kByeHeaderLen) need += hl + std::size_t{ntohl(p.payload_len)};
    }
    in.make_room(need);
    const std::size_t space = in.space();
    const ssize_t r = ::recv(conn->fd, in.write_ptr(), space, MSG_DONTWAIT);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (would_block(errno)) break;
      fail_peer(peer, reset_text(peer, net::errno_text(errno)));
      return delivered;
    }
    if (r == 0) {
      fail_peer(peer, reset_text(peer, "end of file (the peer closed the connection)"));
      return delivered;
    }
    in.produced(static_cast<std::size_t>(r));

    while (in.available() >= sizeof(wire::Prefix)) {
      wire::Prefix p;
      std::memcpy(&p, in.read_ptr(), sizeof p);
      const std::uint32_t hl = ntohl(p.header_len);
      const std::uint32_t pl = ntohl(p.payload_len);
      if (hl == wire::kByeHeaderLen) return delivered + peer_said_bye(peer);
      if (hl > kMaxHeader || pl > wire::kWireMaxPayload) {
        fail_peer(peer, reset_text(peer, "protocol error (bad frame prefix)"));
        return delivered;
      }
      const std::size_t total = sizeof(wire::Prefix) + hl + pl;
      if (in.available() < total) break;
      const std::byte* h = in.read_ptr() + sizeof(wire::Prefix);
      if (handler_.on_frame != nullptr)
        handler_.on_frame(handler_.ctx, peer.rank, std::span<const std::byte>(h, hl),
                          std::span<const std::byte>(h + hl, pl), ReadHint::any);
      ++delivered;
      // The handler may have sent, and a failed send closes this connection.
      if (conn->role != Role::data) return delivered;
      in.consumed(total);
    }
    if (static_cast<std::size_t>(r) < space) break;  // drained
  }
  return delivered;
}

int TcpDevice::peer_said_bye(Peer& peer) {
  peer.closed = true;
  close_conn(peer.active);
  peer.active = nullptr;
  return finish_queue(peer);
}

// ---- failures ----------------------------------------------------------------------------

bool TcpDevice::stalled(int peer_rank, std::chrono::milliseconds limit) {
  Peer& peer = peers_[static_cast<std::size_t>(peer_rank)];
  const auto now = std::chrono::steady_clock::now();
  // A connection attempt is no stall: a busy peer may take long to answer it (the multi-method
  // layer bounds its own reconnection attempts).
  if (peer.active == nullptr) return false;
  // The kernel's counters must say so for a while: right after a write on a connection idle for
  // longer than `limit`, or during one retransmission on a lossy link, they may for an instant.
  if (!net::link_stalled(peer.active->fd, limit)) {
    peer.suspect_since = {};
    return false;
  }
  if (peer.suspect_since == std::chrono::steady_clock::time_point{}) peer.suspect_since = now;
  return now - peer.suspect_since >= std::max<std::chrono::milliseconds>(std::chrono::milliseconds(200), limit / 4);
}

std::chrono::milliseconds TcpDevice::blocked_for(int peer_rank) const {
  const Peer& peer = peers_[static_cast<std::size_t>(peer_rank)];
  if (peer.head == nullptr || peer.active == nullptr) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - peer.last_write);
}

void TcpDevice::abandon(int peer_rank, std::string why) {
  fail_peer(peers_[static_cast<std::size_t>(peer_rank)], reset_text(peers_[static_cast<std::size_t>(peer_rank)], why));
}

bool TcpDevice::revive(int peer_rank) {
  Peer& peer = peers_[static_cast<std::size_t>(peer_rank)];
  if (peer.closed || shut_) return false;
  for (const auto& [rank, why] : pending_failures_)
    if (rank == peer_rank) return false;
  peer.failed = false;
  peer.rejected = false;
  peer.rejoining = true;
  return true;
}

std::string TcpDevice::reset_text(const Peer& peer, const std::string& cause) const {
  return "connection to rank " + std::to_string(peer.rank) + " (" + peer.address +
         ") reset: " + cause;
}

void TcpDevice::fail_peer(Peer& peer, std::string why) {
  if (peer.failed || peer.closed || shut_) return;
  peer.failed = true;
  close_conn(peer.active);
  close_conn(peer.outgoing);
  peer.active = nullptr;
  peer.outgoing = nullptr;
  // Reported from poll(), never from inside send(): the caller may be in the middle of an update.
  pending_failures_.emplace_back(peer.rank, std::move(why));
}

int TcpDevice::finish_queue(Peer& peer) {
  int n = 0;
  while (peer.head != nullptr) {
    SendOp* op = pop(peer);
    ++n;
    if (op->on_done != nullptr) op->on_done(*op);
  }
  return n;
}

int TcpDevice::report_failures() {
  int events = 0;
  while (!pending_failures_.empty()) {
    std::vector<std::pair<int, std::string>> batch;
    batch.swap(pending_failures_);
    for (auto& [rank, why] : batch) {
      if (handler_.on_peer_failed != nullptr) handler_.on_peer_failed(handler_.ctx, rank, why);
      ++events;
      events += finish_queue(peers_[static_cast<std::size_t>(rank)]);
    }
  }
  return events;
}

// ---- progress ----------------------------------------------------------------------------

int TcpDevice::poll() {
  if (group_ != nullptr) return group_->poll();
  if (shut_) return 0;
  epoll_event ev[PollGroup::kMaxEvents];
  const int n = epoll_wait(epoll_fd_, ev, PollGroup::kMaxEvents, 0);
  int events = 0;
  for (int i = 0; i < n; ++i) events += on_event(static_cast<Conn*>(static_cast<PollTarget*>(ev[i].data.ptr)), ev[i].events);
  return events + after_events();
}

int TcpDevice::on_event(Conn* conn, std::uint32_t e) {
  if (shut_) return 0;
  switch (conn->role) {
    case Role::listening:
      return accept_all();
    case Role::connecting:
      on_connected(conn);
      return 0;
    case Role::await_ack:
      return on_ack(conn);
    case Role::accepting:
      return on_hello(conn);
    case Role::data: {
      int events = 0;
      if (e & (EPOLLIN | EPOLLHUP | EPOLLERR)) events += read_frames(conn);
      if ((e & EPOLLOUT) && conn->role == Role::data) events += flush(peers_[static_cast<std::size_t>(conn->peer)]);
      return events;
    }
    case Role::dead:
      return 0;
  }
  return 0;
}

int TcpDevice::after_events() {
  int events = 0;
  if (!pending_failures_.empty()) [[unlikely]]
    events += report_failures();
  if (dead_conns_ > 0) [[unlikely]] {
    std::erase_if(conns_, [](const std::unique_ptr<Conn>& c) { return c->role == Role::dead; });
    dead_conns_ = 0;
  }
  return events;
}

void TcpDevice::wait(std::chrono::microseconds timeout) {
  if (group_ != nullptr) return group_->wait(timeout);
  if (shut_ || !pending_failures_.empty()) return;
  net::wait_readable(epoll_fd_, timeout);
}

void TcpDevice::shutdown() {
  if (shut_) return;
  shut_ = true;
  const wire::Prefix bye{htonl(wire::kByeHeaderLen), 0};
  for (Peer& peer : peers_) {
    Conn* conn = peer.active;
    // Goodbye only on a frame boundary (an op half-written at shutdown cannot be finished).
    if (conn != nullptr && (peer.head == nullptr || peer.head->progress == 0)) {
      send_small(conn->fd, &bye, sizeof bye);
      // Drain what arrived, so close() ends with FIN rather than a reset that could destroy
      // the goodbye in flight.
      char sink[4096];
      while (::recv(conn->fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
      }
    }
    peer.head = peer.tail = nullptr;  // abandoned, on_done not called
    peer.active = peer.outgoing = nullptr;
  }
  queued_ = 0;
  for (auto& conn : conns_) close_conn(conn.get());
  conns_.clear();
  dead_conns_ = 0;
  pending_failures_.clear();
  if (listen_fd_ >= 0) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
    ::close(listen_fd_);
    listen_fd_ = -1;
  }
}

}  // namespace railmpi::device::tcp
