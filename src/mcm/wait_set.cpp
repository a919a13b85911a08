#include "mcm/wait_set.hpp"

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

#include "base/log.hpp"

namespace railmpi::mcm {

WaitSet::~WaitSet() {
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
}

void WaitSet::add(int fd, int id) {
  if (epoll_fd_ < 0) {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) base::fatal("wait set: epoll_create1: %s", std::strerror(errno));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u32 = static_cast<std::uint32_t>(id);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0)
    base::fatal("wait set: epoll_ctl: %s", std::strerror(errno));
}

int WaitSet::ready(std::span<int> out) const {
  epoll_event ev[16];
  const int max = static_cast<int>(std::min<std::size_t>(out.size(), 16));
  const int n = epoll_wait(epoll_fd_, ev, max, 0);
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = static_cast<int>(ev[i].data.u32);
  return n < 0 ? 0 : n;
}

void WaitSet::wait(std::chrono::microseconds timeout) const {
  if (epoll_fd_ < 0 || timeout.count() <= 0) return;
  epoll_event ev;
  const timespec ts{static_cast<time_t>(timeout.count() / 1000000), static_cast<long>(timeout.count() % 1000000) * 1000};
  if (epoll_pwait2(epoll_fd_, &ev, 1, &ts, nullptr) >= 0 || errno != ENOSYS) return;
  const auto ms = (timeout.count() + 999) / 1000;
  epoll_wait(epoll_fd_, &ev, 1, static_cast<int>(std::min<long long>(ms, 1 << 30)));
}

}  // namespace railmpi::mcm
