#include "pmi_listener.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace railmpi::mpiexec {
namespace {

bool first_outside_address(in_addr& out) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return false;
  bool found = false;
  for (ifaddrs* it = list; it != nullptr && !found; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if ((it->ifa_flags & IFF_UP) == 0 || (it->ifa_flags & IFF_LOOPBACK) != 0) continue;
    out = reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr;
    found = true;
  }
  ::freeifaddrs(list);
  return found;
}

}  // namespace

PmiListener::PmiListener(const std::string& address) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (address.empty()) {
    if (!first_outside_address(sa.sin_addr)) {
      error_ = "no non-loopback IPv4 address is up here for remote ranks to reach the PMI server; "
               "give one with --pmi-address or RAILMPI_PMI_ADDRESS";
      return;
    }
  } else if (::inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    error_ = "PMI address '" + address + "' is not an IPv4 address";
    return;
  }
  char ip[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
  UniqueFd s(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!s) {
    error_ = std::string("socket: ") + std::strerror(errno);
    return;
  }
  socklen_t len = sizeof sa;
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      ::listen(s.get(), SOMAXCONN) != 0 ||
      ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    error_ = std::string("cannot listen on ") + ip + ": " + std::strerror(errno);
    return;
  }
  endpoint_ = std::string(ip) + ":" + std::to_string(ntohs(sa.sin_port));
  fd_ = std::move(s);
}

UniqueFd PmiListener::accept_one() {
  UniqueFd c(::accept4(fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (c) {
    int one = 1;
    ::setsockopt(c.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return c;
}

}  // namespace railmpi::mpiexec
