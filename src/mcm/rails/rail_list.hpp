// Which local IPv4 addresses are rails, and which rail of a peer each of them pairs with.
//
// A rail is one local IPv4 address on one interface (with its subnet). RAILMPI_TCP_RAILS lists
// them: interface names, IPv4 addresses, or subnets a.b.c.d/n (every local address inside).
// Without it, RAILMPI_TCP_INTERFACE is the one-rail form; without either, every up
// non-loopback IPv4 interface is a rail, else 127.0.0.1. Any 127/8 address is a loopback rail
// (the kernel answers every 127/8 address on lo), which is how rails are tested on one host.
#pragma once

#include <netinet/in.h>

#include <span>
#include <string>
#include <vector>

namespace railmpi::mcm::rails {

// One IPv4 address of a local interface (what getifaddrs reports).
struct Interface {
  std::string name;
  in_addr address{};
  int prefix = 32;
  bool up = false;
  bool loopback = false;
  bool running = false;  // operational (carrier)
};

struct Rail {
  std::string name;  // interface name, for messages
  in_addr address{};
  int prefix = 32;   // subnet prefix length
  bool loopback = false;
};

// The rails chosen from `interfaces` by the two settings. False (and `error`) when an item of
// the list names nothing usable.
bool select_rails(std::span<const Interface> interfaces, const std::string& rails_setting,
                  const std::string& interface_setting, std::vector<Rail>& out, std::string& error);

// This host's IPv4 interfaces (getifaddrs); empty when they cannot be listed.
std::vector<Interface> local_interfaces();

// A rail as a peer advertises it: address and prefix.
struct RailAddress {
  in_addr address{};
  int prefix = 32;
  bool loopback() const;
};

// For each of my rails, the index of the peer's rail it pairs with, or -1. Rails pair when they
// are in the same subnet; loopback rails pair by their order among the loopback rails. Each
// peer rail pairs at most once.
std::vector<int> pair_rails(std::span<const RailAddress> mine, std::span<const RailAddress> theirs);

// "a.b.c.d" text of an address.
std::string address_text(in_addr address);

}  // namespace railmpi::mcm::rails
