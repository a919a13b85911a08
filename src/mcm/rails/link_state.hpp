// What the host's link events (device/tcp/link_watch.hpp) mean for the channels: a channel is
// usable while its interface is up with carrier and still holds the channel's address. Every
// event that changes that for some channel yields a Change, which the multi-method layer hands
// to the rail scheduler (Scheduler::channel_down / channel_up).
#pragma once

#include <netinet/in.h>

#include <span>
#include <string>
#include <vector>

#include "device/tcp/link_watch.hpp"
#include "mcm/rails/rail_list.hpp"

namespace railmpi::mcm::rails {

class LinkState {
 public:
  struct Change {
    int channel;
    bool usable;
    std::string why;  // usable false: what happened ("interface rail1 set down", ...)
  };

  // The next channel (channels are numbered in the order of add()): the interface with index
  // `ifindex` and name `name` holding `address`. ifindex 0: not watched (a loopback rail, whose
  // addresses answer without being assigned).
  void add(int ifindex, in_addr address, std::string name);
  std::size_t size() const { return channels_.size(); }
  bool usable(int channel) const;
  // Some channel has a watched interface.
  bool watched() const;

  // Applies one event; appends a Change for every channel whose usability it changes.
  void apply(const device::tcp::LinkEvent& e, std::vector<Change>& out);
  // After lost events: the state afresh from this host's interface list (local_interfaces()).
  void resync(std::span<const Interface> interfaces, std::vector<Change>& out);

 private:
  struct Entry {
    int ifindex = 0;
    in_addr address{};
    std::string name;
    bool link_ok = true;
    bool address_ok = true;
  };
  void set(int channel, bool link_ok, bool address_ok, std::string why, std::vector<Change>& out);

  std::vector<Entry> channels_;
};

}  // namespace railmpi::mcm::rails
