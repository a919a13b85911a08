#include "device/tcp/poll_group.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>

#include "base/log.hpp"
#include "device/tcp/net.hpp"
#include "device/tcp/tcp_device.hpp"

namespace railmpi::device::tcp {

PollGroup::PollGroup() : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
  if (epoll_fd_ < 0) base::fatal("tcp poll group: epoll_create1: %s", net::errno_text(errno).c_str());
}

PollGroup::~PollGroup() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void PollGroup::watch(int fd, int (*on_ready)(void* ctx), void* ctx) {
  auto w = std::make_unique<Watch>();
  w->on_ready = on_ready;
  w->ctx = ctx;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = static_cast<PollTarget*>(w.get());
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    base::fatal("tcp poll group: epoll_ctl: %s", net::errno_text(errno).c_str());
  watches_.push_back(std::move(w));
}

int PollGroup::poll() {
  epoll_event ev[kMaxEvents];
  const int n = epoll_wait(epoll_fd_, ev, kMaxEvents, 0);
  int events = 0;
  for (int i = 0; i < n; ++i) {
    auto* target = static_cast<PollTarget*>(ev[i].data.ptr);
    if (target->device != nullptr) [[likely]] {
      auto* conn = static_cast<Conn*>(target);
      events += conn->device->on_event(conn, ev[i].events);
    } else {
      auto* w = static_cast<Watch*>(target);
      events += w->on_ready(w->ctx);
    }
  }
  // Only now: a connection closed by one event may still be named by a later one of this round.
  for (TcpDevice* m : members_) events += m->after_events();
  return events;
}

void PollGroup::wait(std::chrono::microseconds timeout) const {
  for (const TcpDevice* m : members_)
    if (m->has_reports()) return;
  net::wait_readable(epoll_fd_, timeout);
}

}  // namespace railmpi::device::tcp
