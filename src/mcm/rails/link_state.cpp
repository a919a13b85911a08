#include "mcm/rails/link_state.hpp"

namespace railmpi::mcm::rails {

void LinkState::add(int ifindex, in_addr address, std::string name) {
  channels_.push_back(Entry{ifindex, address, std::move(name)});
}

bool LinkState::usable(int channel) const {
  const Entry& e = channels_[static_cast<std::size_t>(channel)];
  return e.link_ok && e.address_ok;
}

bool LinkState::watched() const {
  for (const Entry& e : channels_)
    if (e.ifindex != 0) return true;
  return false;
}

void LinkState::set(int channel, bool link_ok, bool address_ok, std::string why, std::vector<Change>& out) {
  Entry& e = channels_[static_cast<std::size_t>(channel)];
  const bool before = e.link_ok && e.address_ok;
  e.link_ok = link_ok;
  e.address_ok = address_ok;
  const bool now = link_ok && address_ok;
  if (now != before) out.push_back(Change{channel, now, now ? std::string() : std::move(why)});
}

void LinkState::apply(const device::tcp::LinkEvent& ev, std::vector<Change>& out) {
  using Kind = device::tcp::LinkEvent::Kind;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const Entry& e = channels_[c];
    if (e.ifindex == 0 || e.ifindex != ev.index) continue;
    const std::string iface = "interface " + e.name;
    switch (ev.kind) {
      case Kind::link:
        set(int(c), ev.usable, e.address_ok, iface + (ev.admin_up ? " lost its carrier" : " set down"), out);
        break;
      case Kind::gone:
        set(int(c), false, e.address_ok, iface + " removed", out);
        break;
      case Kind::address:
        if (ev.address.s_addr == e.address.s_addr)
          set(int(c), e.link_ok, ev.usable, "address " + address_text(e.address) + " removed from " + iface, out);
        break;
    }
  }
}

void LinkState::resync(std::span<const Interface> interfaces, std::vector<Change>& out) {
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const Entry& e = channels_[c];
    if (e.ifindex == 0) continue;
    const Interface* found = nullptr;
    for (const Interface& i : interfaces)
      if (i.address.s_addr == e.address.s_addr) found = &i;
    if (found == nullptr)
      set(int(c), e.link_ok, false, "address " + address_text(e.address) + " removed from interface " + e.name, out);
    else
      set(int(c), found->up && found->running, true,
          "interface " + e.name + (found->up ? " lost its carrier" : " set down"), out);
  }
}

}  // namespace railmpi::mcm::rails
