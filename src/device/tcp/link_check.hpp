// Whether a TCP connection's link looks dead, from the kernel's own view of the connection
// (TCP_INFO). A link set down resets nothing: TCP keeps retransmitting, or cannot send at all
// when the local route is gone; only the kernel's counters tell.
#pragma once

#include <chrono>

namespace railmpi::device::tcp::net {

// True when, for at least `limit`: data in flight got no acknowledgement while retransmission
// timeouts fired, or data waiting to go out found the peer's window open and still was not sent
// (no route). A peer process that does not read (zero window) is not a dead link.
bool link_stalled(int fd, std::chrono::milliseconds limit);

}  // namespace railmpi::device::tcp::net
