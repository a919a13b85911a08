// A channel: one tcp device bound to one rail's address; a rail has RAILMPI_TCP_CONNS_PER_RAIL
// of them. The multi-method layer owns the channels; the rail scheduler sends on them.
#pragma once

#include <netinet/in.h>

#include <memory>
#include <string>

#include "device/tcp/tcp_device.hpp"
#include "mcm/rails/stats.hpp"

namespace railmpi::mcm::rails {

struct Channel {
  std::unique_ptr<device::tcp::TcpDevice> device;
  int rail = 0;       // index in the rail list
  int conn = 0;       // connection index within the rail
  in_addr address{};  // the rail's address
  int prefix = 32;    // the rail's subnet prefix (advertised with the address)
  std::string where;  // "rail 0 eth1 10.0.0.1 conn 0", for messages and statistics
  ChannelStats stats;
  ThroughputMeter meter;
};

}  // namespace railmpi::mcm::rails
