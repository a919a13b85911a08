// Several tcp channels polled with one system call: their sockets share one epoll set.
//
// The multi-method layer makes one tcp device per rail and connection. Each with its own epoll
// set, a poll would cost one epoll_wait per channel (or a set of sets and a second call whenever
// data arrives), and a small message on two rails would pay for it. Channels constructed with a
// group register their sockets in the group's set instead; the group's poll() asks the kernel
// once and hands every event to the channel that owns the socket.
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "device/tcp/connection.hpp"

namespace railmpi::device::tcp {

class TcpDevice;

class PollGroup {
 public:
  static constexpr int kMaxEvents = 64;  // events taken per epoll_wait

  PollGroup();
  ~PollGroup();
  PollGroup(const PollGroup&) = delete;
  PollGroup& operator=(const PollGroup&) = delete;

  // The epoll set the members register their sockets in.
  int fd() const { return epoll_fd_; }
  // Called by a member's constructor.
  void join(TcpDevice& member) { members_.push_back(&member); }

  // Also watches `fd` (not a channel's: e.g. the host's link events): when it is readable, poll()
  // calls on_ready(ctx) and counts what it returns as events. Level-triggered: on_ready must read.
  void watch(int fd, int (*on_ready)(void* ctx), void* ctx);

  // Handles what is ready on every member's sockets, without waiting; returns the events handled.
  int poll();
  // Returns when some member's socket is ready or `timeout` passes.
  void wait(std::chrono::microseconds timeout) const;

 private:
  struct Watch : PollTarget {
    int (*on_ready)(void* ctx) = nullptr;
    void* ctx = nullptr;
  };

  int epoll_fd_ = -1;
  std::vector<TcpDevice*> members_;
  std::vector<std::unique_ptr<Watch>> watches_;
};

}  // namespace railmpi::device::tcp
