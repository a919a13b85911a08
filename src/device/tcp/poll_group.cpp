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

int PollGroup::poll() {
  epoll_event ev[kMaxEvents];
  const int n = epoll_wait(epoll_fd_, ev, kMaxEvents, 0);
  int events = 0;
  for (int i = 0; i < n; ++i) {
    auto* conn = static_cast<Conn*>(ev[i].data.ptr);
    events += conn->device->on_event(conn, ev[i].events);
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
