#include "mcm/rails/stats.hpp"

#include <cstdio>

namespace railmpi::mcm::rails {

std::string stats_line(int rank, int channel, const std::string& where, const ChannelStats& s,
                       const ThroughputMeter& meter) {
  char line[256];
  std::snprintf(line, sizeof line,
                "RailMPI rails: rank %d channel %d (%s): frames %llu bytes %llu parts %llu failures %llu retransmits %llu "
                "rate %.0f MB/s",
                rank, channel, where.c_str(), static_cast<unsigned long long>(s.frames),
                static_cast<unsigned long long>(s.bytes), static_cast<unsigned long long>(s.parts),
                static_cast<unsigned long long>(s.failures),
                static_cast<unsigned long long>(s.retransmits), meter.bytes_per_second() / 1e6);
  return line;
}

}  // namespace railmpi::mcm::rails
