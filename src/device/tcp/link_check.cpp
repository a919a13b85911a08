#include "device/tcp/link_check.hpp"

// linux/tcp.h has the full struct tcp_info (the C library's copy stops before notsent_bytes and
// snd_wnd); it cannot be mixed with netinet/tcp.h, hence a file of its own.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace railmpi::device::tcp::net {

bool link_stalled(int fd, std::chrono::milliseconds limit) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return false;
  const auto ms = static_cast<std::uint64_t>(limit.count());
  if (info.tcpi_last_ack_recv < ms) return false;
  // Retransmission timeouts fired (backoff; tcpi_retransmits stays 0 when a local route is gone).
  const bool unanswered = info.tcpi_unacked > 0 && (info.tcpi_retransmits > 0 || info.tcpi_backoff > 0);
  // Kernels before 4.6/5.x leave the later fields 0 (len is shorter): that test is then skipped.
  const bool unsendable = info.tcpi_notsent_bytes > 0 && info.tcpi_snd_wnd > 0 && info.tcpi_last_data_sent >= ms;
  return unanswered || unsendable;
}

}  // namespace railmpi::device::tcp::net
