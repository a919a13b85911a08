// Socket helpers of the tcp device: choosing the listen address, parsing "ip:port", options.
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <string>
#include <string_view>

namespace railmpi::device::tcp::net {

// The IPv4 address to listen on. `setting` is RAILMPI_TCP_INTERFACE: an IPv4 address or an
// interface name; empty means the first non-loopback IPv4 interface that is up, else 127.0.0.1.
// Returns false (and sets `error`) when `setting` names nothing usable.
bool choose_listen_address(const std::string& setting, in_addr& out, std::string& error);

// "a.b.c.d:port" -> sockaddr_in. Returns false when malformed.
bool parse_endpoint(std::string_view text, sockaddr_in& out);
std::string format_endpoint(const sockaddr_in& addr);

// TCP_NODELAY on a connected (or about to be connected) socket.
void set_nodelay(int fd);
// Large SO_SNDBUF/SO_RCVBUF, but only where the kernel allows the full size: setting a smaller
// value would switch off the kernel's automatic buffer tuning and make things slower.
void set_buffers(int fd);

std::string errno_text(int err);

// Returns when `fd` (an epoll set, level-triggered: nothing is consumed) is readable or `timeout`
// passes; at once for a timeout <= 0.
void wait_readable(int fd, std::chrono::microseconds timeout);

}  // namespace railmpi::device::tcp::net
