// Link and address events of this host's interfaces, from the kernel's routing netlink socket
// (NETLINK_ROUTE, groups RTMGRP_LINK | RTMGRP_IPV4_IFADDR): an interface set down, its carrier
// lost or its IPv4 address removed is known the moment it happens, without a syscall per poll
// (the socket is one more descriptor in the channels' poll group; it is read only when readable).
#pragma once

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace railmpi::device::tcp {

struct LinkEvent {
  enum class Kind : std::uint8_t {
    link,     // RTM_NEWLINK: `usable` = administratively up and running (carrier)
    gone,     // RTM_DELLINK: the interface was removed
    address,  // RTM_NEWADDR / RTM_DELADDR of an IPv4 address: `usable` = added
  };
  Kind kind = Kind::link;
  int index = 0;      // interface index
  bool usable = false;
  bool admin_up = false;  // link: IFF_UP (false with usable false: set down; true: no carrier)
  in_addr address{};  // address events: the local IPv4 address
  std::string name;   // interface name when the message carries it
};

// Appends the events of a buffer of netlink messages as one recv() returns them: RTM_NEWLINK,
// RTM_DELLINK, and RTM_NEWADDR / RTM_DELADDR of IPv4 addresses; other messages are skipped.
// False when the buffer is malformed (a message runs past its end); the events before it stay.
bool parse_link_messages(std::span<const std::byte> bytes, std::vector<LinkEvent>& out);

class LinkWatcher {
 public:
  // Opens and subscribes the socket; without one (no netlink here), fd() is -1 and read()
  // reports nothing: failures are then found by the stall detection alone.
  LinkWatcher();
  ~LinkWatcher();
  LinkWatcher(const LinkWatcher&) = delete;
  LinkWatcher& operator=(const LinkWatcher&) = delete;

  // Non-blocking descriptor, readable when events are pending.
  int fd() const { return fd_; }
  // Reads every pending message (never blocks) and appends its events to `out`. False when the
  // kernel dropped messages (the socket overflowed): the caller must look at the state afresh.
  bool read(std::vector<LinkEvent>& out);
  // Why the socket could not be opened ("" when it is open).
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
  std::vector<std::byte> buffer_;
};

}  // namespace railmpi::device::tcp
