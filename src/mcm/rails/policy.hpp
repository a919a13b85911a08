// Rail policies: how the frames to a peer with several channels are spread over them.
//
//   binding      every frame on the peer's bound channel (RAILMPI_RAIL_BIND, or (my rank + peer rank) mod n)
//   round-robin  whole frames rotate over the channels
//   striping     placeable frames of at least RAILMPI_STRIPE_THRESHOLD bytes are split across
//                the channels; smaller and ordered frames go whole on the bound channel
//   epc          by the communication marker: blocking and collective traffic as striping,
//                non-blocking traffic as round-robin
#pragma once

#include <cstddef>
#include <string_view>

#include "device/device.hpp"

namespace railmpi::mcm::rails {

enum class Policy : std::uint8_t { binding, round_robin, striping, epc };

// Where one frame goes.
enum class Placement : std::uint8_t { bound, rotate, stripe };

bool parse_policy(std::string_view text, Policy& out);
const char* policy_name(Policy p);

// True when the policy may stripe (the eager limit toward multi-rail peers is then lowered to
// the stripe threshold, so that large messages go rendezvous and their data frames stripe).
bool may_stripe(Policy p);

inline Placement place(Policy policy, device::Marker marker, bool placeable, std::size_t payload_len,
                       std::size_t stripe_threshold) {
  if (policy == Policy::epc)
    policy = marker == device::Marker::nonblocking ? Policy::round_robin : Policy::striping;
  switch (policy) {
    case Policy::binding: return Placement::bound;
    case Policy::round_robin: return Placement::rotate;
    case Policy::striping:
    case Policy::epc: break;
  }
  return placeable && payload_len >= stripe_threshold ? Placement::stripe : Placement::bound;
}

}  // namespace railmpi::mcm::rails
