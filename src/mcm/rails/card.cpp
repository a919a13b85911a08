#include "mcm/rails/card.hpp"

#include <arpa/inet.h>

#include <charconv>
#include <sstream>

namespace railmpi::mcm::rails {

std::string card_entry(const std::string& endpoint, int prefix) {
  return endpoint + "/" + std::to_string(prefix);
}

bool parse_card_field(const std::string& field, std::vector<AdvertisedRail>& out) {
  out.clear();
  std::stringstream ss(field);
  std::string entry;
  while (std::getline(ss, entry, ',')) {
    const auto slash = entry.rfind('/');
    const auto colon = entry.rfind(':', slash);
    if (slash == std::string::npos || colon == std::string::npos || colon > slash) return false;
    int prefix = 0;
    const char* first = entry.data() + slash + 1;
    const char* last = entry.data() + entry.size();
    const auto [end, ec] = std::from_chars(first, last, prefix);
    if (ec != std::errc() || end != last || prefix < 0 || prefix > 32) return false;
    in_addr address{};
    if (inet_pton(AF_INET, entry.substr(0, colon).c_str(), &address) != 1) return false;
    const std::string endpoint = entry.substr(0, slash);
    if (out.empty() || out.back().rail.address.s_addr != address.s_addr)
      out.push_back(AdvertisedRail{RailAddress{address, prefix}, {}});
    out.back().endpoints.push_back(endpoint);
  }
  return !out.empty();
}

}  // namespace railmpi::mcm::rails
