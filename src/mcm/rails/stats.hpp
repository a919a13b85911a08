// Counters and throughput figures per channel (one TCP connection of one rail).
#pragma once

#include <cstdint>
#include <string>

namespace railmpi::mcm::rails {

struct ChannelStats {
  std::uint64_t frames = 0;    // frames (whole or parts) handed to the channel
  std::uint64_t bytes = 0;     // payload bytes of those frames
  std::uint64_t parts = 0;     // of those frames, parts of striped frames
  std::uint64_t failures = 0;  // times the channel was taken out of service toward a peer
  std::uint64_t retransmits = 0;  // unacknowledged frames it carried, sent again elsewhere
};

// Measured drain rate of a channel: an exponentially weighted moving average of the bytes/s of
// striped parts that had to wait in the channel's queue (a part the socket took at once tells
// nothing about the wire). 0 until the first sample.
class ThroughputMeter {
 public:
  static constexpr double kWeight = 0.25;  // of the newest sample

  void sample(std::uint64_t bytes, double seconds) {
    if (seconds <= 0) return;
    const double rate = static_cast<double>(bytes) / seconds;
    rate_ = rate_ == 0 ? rate : (1 - kWeight) * rate_ + kWeight * rate;
  }
  double bytes_per_second() const { return rate_; }

 private:
  double rate_ = 0;
};

// One line of the end-of-job summary (RAILMPI_RAIL_STATS=1).
std::string stats_line(int rank, int channel, const std::string& where, const ChannelStats& s,
                       const ThroughputMeter& meter);

}  // namespace railmpi::mcm::rails
