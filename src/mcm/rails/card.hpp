// The tcp field of a business card: every channel's endpoint with its rail's subnet prefix,
//   tcp=ip:port/prefix,ip:port/prefix,...
// listed rail by rail (the channels of one rail share its address, one per connection).
#pragma once

#include <string>
#include <vector>

#include "mcm/rails/rail_list.hpp"

namespace railmpi::mcm::rails {

struct AdvertisedRail {
  RailAddress rail;
  std::vector<std::string> endpoints;  // "ip:port" of each channel, connection order
};

std::string card_entry(const std::string& endpoint, int prefix);

// Parses the field; false when malformed.
bool parse_card_field(const std::string& field, std::vector<AdvertisedRail>& out);

}  // namespace railmpi::mcm::rails
