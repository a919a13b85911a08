#include "device/tcp/net.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <ctime>
#include <cstdio>
#include <cstring>

namespace railmpi::device::tcp::net {
namespace {

constexpr int kWantedBufferBytes = 4 << 20;

// Largest buffer the kernel grants without privileges (net.core.{r,w}mem_max), 0 if unknown.
long read_sysctl(const char* path) {
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr) return 0;
  long value = 0;
  if (std::fscanf(f, "%ld", &value) != 1) value = 0;
  std::fclose(f);
  return value;
}

}  // namespace

bool choose_listen_address(const std::string& setting, in_addr& out, std::string& error) {
  if (!setting.empty() && inet_pton(AF_INET, setting.c_str(), &out) == 1) return true;

  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    if (!setting.empty()) {
      error = "cannot list network interfaces: " + errno_text(errno);
      return false;
    }
    out.s_addr = htonl(INADDR_LOOPBACK);
    return true;
  }
  bool found = false;
  for (ifaddrs* it = list; it != nullptr && !found; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if (!setting.empty()) {
      if (setting == it->ifa_name) {
        out = reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr;
        found = true;
      }
      continue;
    }
    if ((it->ifa_flags & IFF_UP) == 0 || (it->ifa_flags & IFF_LOOPBACK) != 0) continue;
    out = reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr;
    found = true;
  }
  freeifaddrs(list);
  if (found) return true;
  if (!setting.empty()) {
    error = "RAILMPI_TCP_INTERFACE=" + setting +
            " is neither an IPv4 address nor an interface with an IPv4 address";
    return false;
  }
  out.s_addr = htonl(INADDR_LOOPBACK);
  return true;
}

bool parse_endpoint(std::string_view text, sockaddr_in& out) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= text.size()) return false;
  const std::string ip(text.substr(0, colon));
  const std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 || port > 65535)
    return false;
  std::memset(&out, 0, sizeof out);
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(port));
  return inet_pton(AF_INET, ip.c_str(), &out.sin_addr) == 1;
}

std::string format_endpoint(const sockaddr_in& addr) {
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
  return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

void set_nodelay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void set_buffers(int fd) {
  static const long rmem_max = read_sysctl("/proc/sys/net/core/rmem_max");
  static const long wmem_max = read_sysctl("/proc/sys/net/core/wmem_max");
  const int size = kWantedBufferBytes;
  if (rmem_max >= size) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  if (wmem_max >= size) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
}

std::string errno_text(int err) {
  char buf[256];
  // GNU strerror_r returns the text (possibly not in buf).
  return std::string(strerror_r(err, buf, sizeof buf));
}

void wait_readable(int fd, std::chrono::microseconds timeout) {
  if (timeout.count() <= 0) return;
  epoll_event ev;
  const timespec ts{static_cast<time_t>(timeout.count() / 1000000), static_cast<long>(timeout.count() % 1000000) * 1000};
  if (epoll_pwait2(fd, &ev, 1, &ts, nullptr) >= 0 || errno != ENOSYS) return;
  const auto ms = (timeout.count() + 999) / 1000;
  epoll_wait(fd, &ev, 1, static_cast<int>(std::min<long long>(ms, 1 << 30)));
}

}  // namespace railmpi::device::tcp::net
