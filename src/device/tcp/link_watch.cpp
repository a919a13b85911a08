#include "device/tcp/link_watch.hpp"

#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "device/tcp/net.hpp"

namespace railmpi::device::tcp {
namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;

// Copies a struct out of the buffer (netlink bytes carry no alignment guarantee for us).
template <class T>
T load(std::span<const std::byte> bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof v);
  return v;
}

// Calls f(type, payload) for every attribute in `attrs`; false if one runs past the end.
template <class F>
bool for_each_attribute(std::span<const std::byte> attrs, F&& f) {
  std::size_t at = 0;
  while (at + sizeof(rtattr) <= attrs.size()) {
    const auto a = load<rtattr>(attrs, at);
    if (a.rta_len < sizeof(rtattr) || at + a.rta_len > attrs.size()) return false;
    f(a.rta_type, attrs.subspan(at + RTA_LENGTH(0), a.rta_len - RTA_LENGTH(0)));
    at += RTA_ALIGN(a.rta_len);
  }
  return true;
}

std::string attribute_text(std::span<const std::byte> payload) {
  const char* text = reinterpret_cast<const char*>(payload.data());
  return std::string(text, strnlen(text, payload.size()));
}

bool parse_link(std::uint16_t type, std::span<const std::byte> body, std::vector<LinkEvent>& out) {
  if (body.size() < NLMSG_ALIGN(sizeof(ifinfomsg))) return false;
  const auto info = load<ifinfomsg>(body, 0);
  LinkEvent e;
  e.kind = type == RTM_DELLINK ? LinkEvent::Kind::gone : LinkEvent::Kind::link;
  e.index = info.ifi_index;
  e.admin_up = (info.ifi_flags & IFF_UP) != 0;
  e.usable = type == RTM_NEWLINK && e.admin_up && (info.ifi_flags & IFF_RUNNING) != 0;
  const bool ok = for_each_attribute(body.subspan(NLMSG_ALIGN(sizeof(ifinfomsg))), [&](unsigned t, auto payload) {
    if (t == IFLA_IFNAME) e.name = attribute_text(payload);
  });
  out.push_back(std::move(e));
  return ok;
}

bool parse_address(std::uint16_t type, std::span<const std::byte> body, std::vector<LinkEvent>& out) {
  if (body.size() < NLMSG_ALIGN(sizeof(ifaddrmsg))) return false;
  const auto info = load<ifaddrmsg>(body, 0);
  if (info.ifa_family != AF_INET) return true;  // IPv4 rails only
  LinkEvent e;
  e.kind = LinkEvent::Kind::address;
  e.index = static_cast<int>(info.ifa_index);
  e.usable = type == RTM_NEWADDR;
  bool local = false, any = false;
  const bool ok = for_each_attribute(body.subspan(NLMSG_ALIGN(sizeof(ifaddrmsg))), [&](unsigned t, auto payload) {
    if (payload.size() < sizeof(in_addr)) return;
    if (t == IFA_LOCAL) {  // the local address (IFA_ADDRESS is the far end on point-to-point links)
      std::memcpy(&e.address, payload.data(), sizeof e.address);
      local = any = true;
    } else if (t == IFA_ADDRESS && !local) {
      std::memcpy(&e.address, payload.data(), sizeof e.address);
      any = true;
    } else if (t == IFA_LABEL) {
      e.name = attribute_text(payload);
    }
  });
  if (any) out.push_back(std::move(e));
  return ok;
}

}  // namespace

bool parse_link_messages(std::span<const std::byte> bytes, std::vector<LinkEvent>& out) {
  std::size_t at = 0;
  while (at + sizeof(nlmsghdr) <= bytes.size()) {
    const auto h = load<nlmsghdr>(bytes, at);
    if (h.nlmsg_len < sizeof(nlmsghdr) || at + h.nlmsg_len > bytes.size()) return false;
    const auto body = bytes.subspan(at + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
    bool ok = true;
    switch (h.nlmsg_type) {
      case RTM_NEWLINK:
      case RTM_DELLINK: ok = parse_link(h.nlmsg_type, body, out); break;
      case RTM_NEWADDR:
      case RTM_DELADDR: ok = parse_address(h.nlmsg_type, body, out); break;
      default: break;  // NLMSG_DONE, NLMSG_ERROR, NLMSG_NOOP, routes, ...
    }
    if (!ok) return false;
    at += NLMSG_ALIGN(h.nlmsg_len);
  }
  return true;
}

LinkWatcher::LinkWatcher() : buffer_(kBufferBytes) {
  fd_ = ::socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd_ < 0) {
    error_ = "netlink socket: " + net::errno_text(errno);
    return;
  }
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR;
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    error_ = "netlink bind: " + net::errno_text(errno);
    ::close(fd_);
    fd_ = -1;
  }
}

LinkWatcher::~LinkWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

bool LinkWatcher::read(std::vector<LinkEvent>& out) {
  bool complete = true;
  while (fd_ >= 0) {
    sockaddr_nl from{};
    socklen_t len = sizeof from;
    const ssize_t r = ::recvfrom(fd_, buffer_.data(), buffer_.size(), MSG_DONTWAIT,
                                 reinterpret_cast<sockaddr*>(&from), &len);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOBUFS) {  // the kernel dropped messages; later ones are still queued
        complete = false;
        continue;
      }
      break;  // EAGAIN: drained
    }
    if (from.nl_pid != 0) continue;  // only the kernel's own messages
    if (!parse_link_messages(std::span<const std::byte>(buffer_.data(), static_cast<std::size_t>(r)), out))
      complete = false;
  }
  return complete;
}

}  // namespace railmpi::device::tcp
