// The tcp device: frames over one TCP connection per pair of ranks.
//
// One device is one *channel*: it listens on the one IPv4 address it was constructed with (the
// multi-method layer creates one device per rail and connection, see src/mcm/rails/).
//
// Start-up: local_address() opens a non-blocking listening socket (port chosen by the kernel) on
// the bind address. connect() only records the peers' addresses and calls bootstrap.barrier()
// ZERO times on every rank: connections are made lazily on the first send to a peer.
//
// Handshake: the connecting rank sends Hello{rank}, the accepting rank answers Ack{accepted}.
// When two ranks connect to each other at the same time, the connection opened by the LOWER rank
// wins: the lower rank rejects the higher rank's attempt, the higher rank accepts the lower's and
// drops its own. Frames wait in the peer's send queue until a connection is accepted and are only
// ever written on that one connection, so none is lost or reordered.
//
// Failures: reset, broken pipe or end of file on a connection (or a refused connect) before
// shutdown() is reported once through on_peer_failed, at the next poll(). Queued ops to that peer
// are then finished (on_done called, the data dropped) so their owners can release them; later
// sends to the peer are dropped and return done. shutdown() says goodbye on every connection, so
// the other side does not report the end of file as a failure; destroying the device without
// shutdown() closes the sockets abruptly (the peers see a failure, as if the process died).
// Ops still queued at shutdown() are abandoned (on_done is not called).
//
// Reconnection (failover, driven by the multi-method layer): revive() lets the next send() to a
// failed peer connect again; that Hello carries wire::kMagicRejoin, and the accepting rank then
// replaces a connection it still takes for live (reporting the old one as failed, since what it
// carried may be lost). abandon() ends a connection as a failure; stalled() tells a connection
// that the peer's kernel stopped acknowledging (a link down).
#pragma once

#include <netinet/in.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/settings.hpp"
#include "device/device.hpp"
#include "device/tcp/connection.hpp"
#include "device/tcp/poll_group.hpp"

namespace railmpi::device::tcp {

class TcpDevice final : public Device {
 public:
  // `bind`: the local IPv4 address this channel listens on, connects from and advertises.
  // `group`: several channels share one epoll set (see poll_group.hpp); poll() and wait() of a
  // member then poll and wait for the whole group. The group must outlive the device.
  TcpDevice(int my_rank, int job_size, const base::Settings& settings, in_addr bind,
            PollGroup* group = nullptr);
  ~TcpDevice() override;

  std::string_view name() const override { return "tcp"; }
  Figures figures() const override;
  std::string local_address() override;
  void connect(std::span<const PeerAddress> peers, Bootstrap bootstrap) override;
  void set_handler(FrameHandler handler) override { handler_ = handler; }
  SendResult send(int peer, SendOp& op) override;
  int poll() override;
  void wait(std::chrono::microseconds timeout) override;
  bool idle() const override { return queued_ == 0; }
  void shutdown() override;

  // True when poll() has work that no socket signals (a failure recorded inside send()).
  bool has_reports() const { return !pending_failures_.empty(); }

  // Failover support (the multi-method layer's rail scheduler):
  // The connection to `peer` has data in flight that the peer's kernel has not acknowledged
  // for `limit` while retransmitting (a link down resets nothing: TCP just stops getting acks),
  // or frames could not be sent at all (no route) although the peer's window is open.
  // Called periodically: the kernel's counters must say so for max(200 ms, limit / 4) in a row.
  bool stalled(int peer, std::chrono::milliseconds limit);
  // How long frames to `peer` have waited in the send queue without a byte written (the socket
  // buffer stays full: the link is down, or the peer's process does not read); 0 if none wait.
  std::chrono::milliseconds blocked_for(int peer) const;
  // Ends the connection to `peer` as a failure, reported at the next poll() like any other.
  void abandon(int peer, std::string why);
  // Allows a new connection to a failed peer (made by the next send()); false if the peer said
  // goodbye or a failure is still to be reported.
  bool revive(int peer);
  // The peer has a connection carrying frames.
  bool connected(int peer) const { return peers_[static_cast<std::size_t>(peer)].active != nullptr; }
  // The peer has a connection, a connection attempt or queued frames (it carries traffic).
  bool in_use(int peer) const {
    const Peer& p = peers_[static_cast<std::size_t>(peer)];
    return p.active != nullptr || p.outgoing != nullptr || p.head != nullptr;
  }

 private:
  friend class PollGroup;
  // One epoll event on one of this channel's sockets.
  int on_event(Conn* conn, std::uint32_t events);
  // After a round of events: failures to report, closed connections to free.
  int after_events();

  Conn* add_conn(int fd, Role role, int peer, unsigned events);
  void close_conn(Conn* conn);
  void set_out_armed(Conn* conn, bool armed);

  // Writes as much of a gathered frame (op.layout) as the socket takes now, resumed from
  // op.progress. True when the frame is finished: all written, or the peer failed.
  bool write_gathered(Peer& peer, SendOp& op);
  void enqueue(Peer& peer, SendOp& op);
  SendOp* pop(Peer& peer);
  int flush(Peer& peer);  // writes queued ops of the peer's active connection; ops finished

  void start_connect(Peer& peer);
  int accept_all();
  void on_connected(Conn* conn);
  int on_ack(Conn* conn);
  int on_hello(Conn* conn);
  int read_frames(Conn* conn);
  int peer_said_bye(Peer& peer);

  // Records a failure (reported at the end of the next poll()); closes the peer's sockets.
  void fail_peer(Peer& peer, std::string why);
  std::string reset_text(const Peer& peer, const std::string& cause) const;
  int report_failures();
  int finish_queue(Peer& peer);  // on_done for every queued op (data dropped)

  const int my_rank_;
  std::vector<Peer> peers_;
  const std::size_t eager_limit_;
  const in_addr bind_;
  FrameHandler handler_{};
  // Where short runs of gathered payloads are copied just before a sendmsg (see add_iov).
  static constexpr std::size_t kStageBytes = 64 * 1024;
  std::unique_ptr<std::byte[]> stage_storage_;
  std::span<std::byte> stage_;

  PollGroup* const group_;
  int epoll_fd_ = -1;  // the group's set, or this channel's own
  int listen_fd_ = -1;
  Conn listener_;      // names the listening socket in epoll events
  std::string address_;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::size_t dead_conns_ = 0;
  std::size_t queued_ = 0;  // ops in all send queues
  std::vector<std::pair<int, std::string>> pending_failures_;
  bool shut_ = false;
};

}  // namespace railmpi::device::tcp
