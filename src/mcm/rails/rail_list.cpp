#include "mcm/rails/rail_list.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <bit>
#include <charconv>
#include <sstream>

namespace railmpi::mcm::rails {
namespace {

std::uint32_t mask_of(int prefix) {
  return prefix <= 0 ? 0u : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
}

bool same_subnet(in_addr a, in_addr b, int prefix) {
  const std::uint32_t m = mask_of(prefix);
  return (ntohl(a.s_addr) & m) == (ntohl(b.s_addr) & m);
}

bool is_loopback(in_addr a) { return (ntohl(a.s_addr) >> 24) == 127; }

// "a.b.c.d/n" -> address and prefix.
bool parse_subnet(const std::string& item, in_addr& address, int& prefix) {
  const auto slash = item.find('/');
  if (slash == std::string::npos) return false;
  const std::string ip = item.substr(0, slash);
  const char* first = item.data() + slash + 1;
  const char* last = item.data() + item.size();
  const auto [end, ec] = std::from_chars(first, last, prefix);
  return ec == std::errc() && end == last && first != last && prefix >= 0 && prefix <= 32 &&
         inet_pton(AF_INET, ip.c_str(), &address) == 1;
}

void add_rail(std::vector<Rail>& out, const std::string& name, in_addr address, int prefix, bool loopback) {
  for (const Rail& r : out)
    if (r.address.s_addr == address.s_addr) return;
  out.push_back(Rail{name, address, prefix, loopback});
}

// One list item; false when it names nothing.
bool add_item(std::span<const Interface> interfaces, const std::string& item, std::vector<Rail>& out) {
  in_addr address{};
  int prefix = 0;
  if (parse_subnet(item, address, prefix)) {
    bool any = false;
    for (const Interface& i : interfaces)
      if (i.up && same_subnet(i.address, address, prefix)) {
        add_rail(out, i.name, i.address, i.prefix, i.loopback);
        any = true;
      }
    return any;
  }
  if (inet_pton(AF_INET, item.c_str(), &address) == 1) {
    for (const Interface& i : interfaces)
      if (i.address.s_addr == address.s_addr) {
        add_rail(out, i.name, address, i.prefix, i.loopback);
        return true;
      }
    // Not an interface's own address but inside an up interface's subnet: only loopback
    // answers such addresses (127.0.0.2 on lo).
    for (const Interface& i : interfaces)
      if (i.up && i.loopback && same_subnet(i.address, address, i.prefix)) {
        add_rail(out, i.name, address, i.prefix, true);
        return true;
      }
    return false;
  }
  for (const Interface& i : interfaces)
    if (i.name == item) {
      add_rail(out, i.name, i.address, i.prefix, i.loopback);
      return true;
    }
  return false;
}

}  // namespace

bool RailAddress::loopback() const { return is_loopback(address); }

std::string address_text(in_addr address) {
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &address, text, sizeof text);
  return text;
}

bool select_rails(std::span<const Interface> interfaces, const std::string& rails_setting,
                  const std::string& interface_setting, std::vector<Rail>& out, std::string& error) {
  out.clear();
  const std::string& list = rails_setting.empty() ? interface_setting : rails_setting;
  const char* setting = rails_setting.empty() ? "RAILMPI_TCP_INTERFACE" : "RAILMPI_TCP_RAILS";
  if (!list.empty()) {
    std::stringstream ss(list);
    std::string item;
    while (std::getline(ss, item, ',')) {
      if (item.empty()) continue;
      if (!add_item(interfaces, item, out)) {
        error = std::string(setting) + "=" + list + ": '" + item +
                "' is neither a local IPv4 address, an interface with an IPv4 address, nor a subnet a.b.c.d/n "
                "holding one";
        return false;
      }
    }
    if (out.empty()) {
      error = std::string(setting) + "=" + list + " names no rail";
      return false;
    }
    return true;
  }
  for (const Interface& i : interfaces)
    if (i.up && !i.loopback) add_rail(out, i.name, i.address, i.prefix, false);
  if (out.empty()) {
    in_addr lo{};
    lo.s_addr = htonl(INADDR_LOOPBACK);
    out.push_back(Rail{"lo", lo, 8, true});
  }
  return true;
}

std::vector<Interface> local_interfaces() {
  std::vector<Interface> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* it = list; it != nullptr; it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    Interface i;
    i.name = it->ifa_name;
    i.address = reinterpret_cast<const sockaddr_in*>(it->ifa_addr)->sin_addr;
    i.prefix = it->ifa_netmask == nullptr
                   ? 32
                   : std::popcount(ntohl(reinterpret_cast<const sockaddr_in*>(it->ifa_netmask)->sin_addr.s_addr));
    i.up = (it->ifa_flags & IFF_UP) != 0;
    i.running = (it->ifa_flags & IFF_RUNNING) != 0;
    i.loopback = (it->ifa_flags & IFF_LOOPBACK) != 0;
    out.push_back(std::move(i));
  }
  freeifaddrs(list);
  return out;
}

std::vector<int> pair_rails(std::span<const RailAddress> mine, std::span<const RailAddress> theirs) {
  std::vector<int> pairs(mine.size(), -1);
  std::vector<bool> taken(theirs.size(), false);
  std::size_t my_loop = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    if (mine[i].loopback()) {
      // The my_loop-th loopback rail pairs with the peer's my_loop-th loopback rail.
      std::size_t k = 0;
      for (std::size_t j = 0; j < theirs.size(); ++j) {
        if (!theirs[j].loopback()) continue;
        if (k++ == my_loop && !taken[j]) {
          pairs[i] = int(j);
          taken[j] = true;
          break;
        }
      }
      ++my_loop;
      continue;
    }
    for (std::size_t j = 0; j < theirs.size(); ++j)
      if (!taken[j] && !theirs[j].loopback() && theirs[j].prefix == mine[i].prefix &&
          same_subnet(mine[i].address, theirs[j].address, mine[i].prefix)) {
        pairs[i] = int(j);
        taken[j] = true;
        break;
      }
  }
  return pairs;
}

}  // namespace railmpi::mcm::rails
