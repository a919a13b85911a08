// The multi-method layer: for every peer, the route (device) that reaches it best.
//
// Devices report their figures; this layer picks, per peer, the reachable device with the lowest
// latency (self for oneself, shm on node, tcp otherwise, unless RAILMPI_DEVICES restricts the
// set). Above this layer nobody knows which device carries a frame; below it nobody knows MPI.
// Sending is one indexed branch per frame: no virtual call on the hot path (see send()).
//
// tcp runs as channels: one TcpDevice per rail and connection (rails/rail_list.hpp,
// RAILMPI_TCP_CONNS_PER_RAIL). A peer that pairs with one channel takes Route::tcp straight to
// that device (no rail header, no cost); a peer with several takes Route::rails through the rail
// scheduler (rails/scheduler.hpp: policy, striping, sequence numbers, reordering). With rail
// peers, the host's link events (device/tcp/link_watch.hpp, a netlink socket in the channels'
// poll group, read only when readable) take a channel whose interface goes down out of service
// at once and bring it back when the interface is up again (rails/link_state.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/settings.hpp"
#include "device/device.hpp"
#include "device/self/self_device.hpp"
#include "device/shm/shm_device.hpp"
#include "device/tcp/link_watch.hpp"
#include "device/tcp/tcp_device.hpp"
#include "mcm/node_memory.hpp"
#include "mcm/rails/channel.hpp"
#include "mcm/rails/link_state.hpp"
#include "mcm/rails/scheduler.hpp"

namespace railmpi::mcm {

enum class Route : std::uint8_t { self, shm, tcp, rails };

class MultiMethod {
 public:
  MultiMethod(int my_rank, int job_size, std::string job_id, const base::Settings& settings);
  ~MultiMethod();
  MultiMethod(const MultiMethod&) = delete;
  MultiMethod& operator=(const MultiMethod&) = delete;

  // This rank's business card: host, pid and every enabled device's address.
  std::string business_card();
  // Every rank's card (index = rank). Chooses routes and connects the devices.
  void connect(std::span<const std::string> cards, device::Bootstrap bootstrap);
  void set_handler(device::FrameHandler handler);

  device::SendResult send(int peer, device::SendOp& op) {
    switch (routes_[peer]) {
      case Route::shm: return shm_->send(peer, op);
      case Route::tcp: return channels_[static_cast<std::size_t>(lane_[peer])].device->send(peer, op);
      case Route::rails: return scheduler_->send(peer, op);
      case Route::self: break;
    }
    return self_.send(peer, op);
  }

  // The small-message hot path: the frame leaves now (true) or nothing happens (false: the
  // caller builds a SendOp and uses send()). Only the shm route takes frames this way; its
  // device keeps the order with frames queued by send().
  [[gnu::always_inline]] bool try_send_now(int peer, std::span<const std::byte> header,
                                           std::span<const std::byte> payload) {
    return routes_[peer] == Route::shm && shm_->try_send_now(peer, header, payload);
  }

  // Polls only devices that serve a peer: an idle tcp device would cost a syscall per poll.
  int poll() {
    int n = self_.poll();
    if (poll_shm_) n += shm_->poll();
    if (poll_tcp_) n += channels_[0].device->poll();  // several channels: polls their group
    if (has_rails_) n += scheduler_->tick(n == 0);
    return n;
  }

  // The shm device's doorbell count (0 without it), which a frame to this rank rings while it
  // awaits (begin_awaiting()).
  std::uint32_t doorbell() const { return shm_ ? shm_->doorbell() : 0; }
  // Whether a poll of every device would find nothing that poll_peer() does not: only the shm
  // device is in use, it queues no send of this rank, and its doorbell still reads `bell`.
  bool quiet_since(std::uint32_t bell) const {
    return poll_shm_ && !poll_tcp_ && !has_rails_ && shm_->idle() && shm_->doorbell() == bell;
  }
  // poll() of the shm device's channel from `peer` only (a rank it serves), else poll().
  int poll_peer(int peer) {
    return peer >= 0 && peer < size_ && routes_[peer] == Route::shm && poll_shm_ ? shm_->poll_peer(peer) : poll();
  }

  // Blocks until something may have arrived (bounded by timeout).
  void wait(std::chrono::microseconds timeout);
  // Whether wait() returns as soon as anything arrives (one device can block: the shm doorbell or
  // the tcp poll set), so a waiter needs no short timeout to notice traffic. With shm and tcp both
  // in use, each wait() watches shm only, and tcp traffic is seen at the timeout.
  bool wait_wakes_on_arrival() const { return poll_shm_ != poll_tcp_; }
  // The CPU this rank is bound to (-1: none), told to the ranks of its node.
  void set_cpu(int cpu) {
    if (shm_) shm_->set_cpu(cpu);
  }
  // Whether `peer` is bound to the CPU this rank is bound to (a rank of this node, reached over
  // shared memory): a wait for it may sleep at once (progress::Engine).
  bool shares_cpu(int peer) const {
    return peer >= 0 && peer < size_ && routes_[peer] == Route::shm && poll_shm_ && !poll_tcp_ &&
           shm_->shares_cpu(peer);
  }
  // How many ranks of this node are bound to this rank's CPU besides it.
  int cpu_mates() const { return shm_ ? shm_->cpu_mates() : 0; }
  // How many other ranks of this node sleep in the kernel now (device/shm/shm_device.hpp).
  int ranks_asleep() const { return shm_ ? shm_->peers_asleep() : 0; }
  // How many ranks of this node, up to `most`, wait one for the next with nothing come since
  // they began to, from `peer` on (device/shm/shm_device.hpp).
  int unanswered_chain(int peer, int most) const {
    return shm_ && routes_[peer] == Route::shm ? shm_->unanswered_chain(peer, most) : 0;
  }
  // Whether `peer`, a rank of this node, answers within one hand-over: it does not wait with
  // nothing come, or waits for a rank that does not (unanswered_chain() below 2).
  bool answer_near(int peer) const {
    return shm_ && routes_[peer] == Route::shm && shm_->unanswered_chain(peer, 2) < 2;
  }
  // Whether the other ranks bound to this rank's CPU all wait with nothing come (device/shm).
  bool cpu_mates_idle() const { return shm_ && shm_->cpu_mates_idle(); }
  // Marks this rank's wait for job rank `awaited` (-1: any) that yields, for unanswered_chain().
  void begin_awaiting(int awaited) {
    if (shm_) shm_->begin_awaiting(awaited);
  }
  void end_awaiting() {
    if (shm_) shm_->end_awaiting();
  }
  // wait() when the wake is to come from a rank that shares_cpu() (shm only in use).
  void wait_for_cpu_mate(std::chrono::microseconds timeout) { shm_->wait_for_cpu_mate(timeout); }
  // wait() in two steps around a check of the caller's own (device/shm/shm_device.hpp); with no
  // shared-memory device, end_sleep() is wait().
  std::uint32_t begin_sleep() { return shm_ ? shm_->begin_sleep() : 0; }
  void end_sleep(std::uint32_t bell, std::chrono::microseconds timeout) {
    if (shm_ && poll_shm_) shm_->end_sleep(bell, poll_tcp_ ? timeout / 2 : timeout);
    else wait(timeout);
  }
  void cancel_sleep() {
    if (shm_) shm_->cancel_sleep();
  }
  // Wakes `peer`, a rank of this node, if it sleeps in wait() or end_sleep().
  void wake_if_asleep(int peer) {
    if (shm_) shm_->wake_if_asleep(peer);
  }

  const device::Figures& figures(int peer) const { return figures_[static_cast<int>(routes_[peer])]; }
  // Lines of the end-of-job rail summary (RAILMPI_RAIL_STATS), one per channel.
  std::vector<std::string> rail_stats() const;
  bool read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst);
  // Copies many runs from / to one peer (device::Device::read_remote_runs, write_remote_runs);
  // return the runs copied whole.
  std::size_t read_remote_runs(int peer, std::span<const device::RemoteRun> runs);
  std::size_t write_remote_runs(int peer, std::span<const device::RemoteSource> runs);
  bool write_remote(int peer, std::uint64_t remote_addr, std::span<const std::byte> src);
  bool read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local, std::size_t bytes);

  Route route(int peer) const { return routes_[peer]; }
  int job_size() const { return size_; }
  static const char* route_name(Route r);
  // Ranks that share this rank's node (including itself), in rank order.
  const std::vector<int>& node_ranks() const { return node_ranks_; }
  // Ranks on this machine (one kernel), whatever their nodes: several test hosts (network
  // namespaces) of one machine share its cores.
  int machine_ranks() const { return machine_ranks_; }
  // This rank's position among them, in rank order (0 for the first rank on this machine).
  int machine_index() const { return machine_index_; }
  // CPUs the ranks on this machine share: RAILMPI_MACHINE_CPUS (mpiexec's mask), else, after
  // connect(), the union of their affinity masks from their cards (another launcher may have
  // bound each to a CPU of its own: one-CPU masks, not one CPU), else this rank's mask.
  unsigned machine_cpus() const { return machine_cpus_; }
  // This rank's host name: RAILMPI_NODE (set by mpiexec), else the system's host name.
  const std::string& host() const { return host_; }
  // The node's shared region for node-level collectives (node_memory.hpp); valid after connect().
  NodeMemory node_memory() const { return NodeMemory(shm_ ? shm_->node_region() : nullptr); }

  // The devices this rank opened, for the verbose report ("shm, tcp (1 channel)"; with every rank
  // on this node: "shm (tcp not opened: all 2 ranks on this node)").
  std::string opened_devices() const;

  bool idle() const;
  void shutdown();

 private:
  // The device that copies single copies to and from `peer` (self or shm), nullptr for tcp routes.
  device::Device* single_copy_device(int peer);
  struct Pairing {
    int channel;           // mine
    std::string endpoint;  // the rank's endpoint for it
    int remote;            // the rank's channel index (position in its card)
  };
  // My channels that reach the rank with tcp card field `field`.
  std::vector<Pairing> pair_channels(int rank, const std::string& field) const;
  // Starts watching the rails' interfaces (some peer has several channels).
  void watch_links();
  // Reads the pending link events and hands their effect to the rail scheduler (the poll
  // group calls it when the watcher's socket is readable).
  static int read_link_events(void* self);
  int apply_link_events();
  void install_handlers();

  int me_;
  int size_;
  std::string host_;
  std::string node_;     // the card's "host": equal for ranks that may share memory
  std::string machine_;  // the card's "machine": the kernel's boot id
  int machine_ranks_ = 1;
  int machine_index_ = 0;
  unsigned machine_cpus_;
  std::vector<Route> routes_;
  std::vector<int> node_ranks_;
  device::Figures figures_[4];
  bool poll_shm_ = false;
  bool poll_tcp_ = false;
  bool tcp_skipped_ = false;  // tcp listed, but every rank is on this node
  device::self::SelfDevice self_;
  std::unique_ptr<device::shm::ShmDevice> shm_;
  std::unique_ptr<device::tcp::PollGroup> tcp_group_;  // several channels: one epoll set (outlives them)
  std::vector<rails::Channel> channels_;  // tcp: rail-major, connection-minor
  std::vector<int> lane_;                 // Route::tcp: the peer's one channel
  std::unique_ptr<rails::Scheduler> scheduler_;
  device::FrameHandler upper_{};
  std::unique_ptr<device::tcp::LinkWatcher> link_watch_;  // in tcp_group_ (rail peers only)
  rails::LinkState link_state_;                 // one entry per channel
  std::vector<device::tcp::LinkEvent> link_events_;
  std::vector<rails::LinkState::Change> link_changes_;
  std::size_t stripe_threshold_ = 0;
  bool has_rails_ = false;  // some peer has several channels
  bool rail_stats_ = false;
};

}  // namespace railmpi::mcm
