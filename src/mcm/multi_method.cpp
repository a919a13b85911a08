#include "mcm/multi_method.hpp"

#include <net/if.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "base/cpus.hpp"
#include "base/log.hpp"
#include "mcm/rails/card.hpp"
#include "mcm/rails/rail_list.hpp"

namespace railmpi::mcm {
namespace {

bool listed(const std::string& list, std::string_view name) {
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == name) return true;
  return false;
}

// "host=a;pid=1;shm=x;tcp=y" -> map
std::map<std::string, std::string> parse_card(const std::string& card) {
  std::map<std::string, std::string> out;
  std::stringstream ss(card);
  std::string field;
  while (std::getline(ss, field, ';')) {
    auto eq = field.find('=');
    if (eq != std::string::npos) out[field.substr(0, eq)] = field.substr(eq + 1);
  }
  return out;
}

// The host name a user reads (MPI_Get_processor_name): the launcher's (RAILMPI_NODE), else
// the system's.
std::string host_name(const base::Settings& settings) {
  if (!settings.node.empty()) return settings.node;
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

// The node as ranks compare it to decide who shares memory: the launcher's host name, else the
// system's plus the network namespace, so that ranks in different namespaces of one machine
// (test hosts, or under another launcher) never take each other for node mates.
std::string node_identity(const base::Settings& settings) {
  std::string node = host_name(settings);
  struct stat ns {};
  if (settings.node.empty() && ::stat("/proc/self/ns/net", &ns) == 0)
    node += "/" + std::to_string(ns.st_ino);
  return node;
}

// The machine (kernel) this rank runs on, the same in every namespace of it: ranks of several
// test hosts on one machine share its cores.
std::string machine_identity() {
  char buf[64] = {};
  if (std::FILE* f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (std::fgets(buf, sizeof buf, f) == nullptr) buf[0] = '\0';
    std::fclose(f);
  }
  std::string id = buf;
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace

MultiMethod::MultiMethod(int my_rank, int job_size, std::string job_id, const base::Settings& settings)
    : me_(my_rank),
      size_(job_size),
      host_(host_name(settings)),
      node_(node_identity(settings)),
      machine_(machine_identity()),
      machine_cpus_(base::machine_cpus()),
      routes_(job_size, Route::tcp),
      self_(my_rank),
      lane_(static_cast<std::size_t>(job_size), 0),
      rail_stats_(settings.rail_stats) {
  const bool want_shm = listed(settings.devices, "shm");
  const bool want_tcp = listed(settings.devices, "tcp");
  if (!want_shm && !want_tcp)
    base::fatal("RAILMPI_DEVICES=%s names no known device (known: shm, tcp)", settings.devices.c_str());
  if (job_size > 1 && want_shm)
    shm_ = std::make_unique<device::shm::ShmDevice>(my_rank, job_size, job_id, settings);
  // Every rank on this node (as mpiexec tells): shared memory reaches them all, and a TCP device
  // would only cost start-up time (interfaces, a listening socket, its card).
  const bool all_on_node = want_shm && settings.local_size == static_cast<unsigned>(job_size);
  const bool tcp_useful = job_size > 1 && want_tcp;
  tcp_skipped_ = tcp_useful && all_on_node;
  if (tcp_useful && !tcp_skipped_) {
    std::vector<rails::Rail> rails;
    std::string error;
    if (!rails::select_rails(rails::local_interfaces(), settings.tcp_rails, settings.tcp_interface, rails, error))
      base::fatal("tcp: %s", error.c_str());
    if (rails.size() * settings.tcp_conns_per_rail > 1) tcp_group_ = std::make_unique<device::tcp::PollGroup>();
    for (std::size_t r = 0; r < rails.size(); ++r)
      for (unsigned k = 0; k < settings.tcp_conns_per_rail; ++k) {
        rails::Channel c;
        c.device = std::make_unique<device::tcp::TcpDevice>(my_rank, job_size, settings, rails[r].address,
                                                            tcp_group_.get());
        c.rail = int(r);
        c.conn = int(k);
        c.address = rails[r].address;
        c.prefix = rails[r].prefix;
        c.where = "rail " + std::to_string(r) + " " + rails[r].name + " " + rails::address_text(rails[r].address) +
                  " conn " + std::to_string(k);
        channels_.push_back(std::move(c));
        // Loopback rails answer addresses no interface holds: their links are not watched.
        const int ifindex = rails[r].loopback ? 0 : static_cast<int>(::if_nametoindex(rails[r].name.c_str()));
        link_state_.add(ifindex, rails[r].address, rails[r].name);
      }
    rails::Policy policy = rails::Policy::epc;
    if (!rails::parse_policy(settings.rail_policy, policy))
      base::fatal("RAILMPI_RAIL_POLICY=%s is not a policy (binding, round-robin, striping, epc)",
                  settings.rail_policy.c_str());
    scheduler_ = std::make_unique<rails::Scheduler>(my_rank, job_size, policy, settings.rail_bind, settings.stripe_threshold,
                                                    channels_, std::chrono::milliseconds(settings.rail_timeout_ms));
    stripe_threshold_ = settings.stripe_threshold;
  }
  figures_[static_cast<int>(Route::self)] = self_.figures();
}

MultiMethod::~MultiMethod() = default;

std::string MultiMethod::opened_devices() const {
  std::string text = shm_ ? "shm" : "";
  if (!channels_.empty())
    text += (text.empty() ? "" : ", ") + std::string("tcp (") + std::to_string(channels_.size()) +
            (channels_.size() == 1 ? " channel)" : " channels)");
  if (tcp_skipped_) text += " (tcp not opened: all " + std::to_string(size_) + " ranks on this node)";
  return text.empty() ? "none (a job of one rank)" : text;
}

std::string MultiMethod::business_card() {
  std::string card = "host=" + node_ + ";pid=" + std::to_string(::getpid());
  if (!machine_.empty()) card += ";machine=" + machine_;
  if (const std::vector<int> cpus = base::affinity_cpus(); !cpus.empty()) card += ";cpus=" + base::cpu_list_text(cpus);
  if (shm_) card += ";shm=" + shm_->local_address();
  if (!channels_.empty()) {
    card += ";tcp=";
    for (std::size_t c = 0; c < channels_.size(); ++c) {
      if (c > 0) card += ",";
      card += rails::card_entry(channels_[c].device->local_address(), channels_[c].prefix);
    }
  }
  return card;
}

void MultiMethod::connect(std::span<const std::string> cards, device::Bootstrap bootstrap) {
  // Figures first: the route to each peer is the reachable device with the lowest latency.
  if (shm_) figures_[static_cast<int>(Route::shm)] = shm_->figures();
  const bool tcp = !channels_.empty();
  if (tcp) figures_[static_cast<int>(Route::tcp)] = channels_[0].device->figures();
  const bool shm_first = !tcp || (shm_ && figures_[int(Route::shm)].latency_us <= figures_[int(Route::tcp)].latency_us);

  std::vector<device::PeerAddress> shm_peers;
  std::vector<std::vector<device::PeerAddress>> channel_peers(channels_.size());
  bool any_rails = false;
  node_ranks_.clear();
  machine_ranks_ = 0;
  // The union of the machine's ranks' masks; unknown (empty) when a card has none.
  std::vector<bool> machine_mask(CPU_SETSIZE, false);
  bool masks_known = true;
  for (int r = 0; r < size_; ++r) {
    auto card = parse_card(cards[r]);
    if (r == me_ || (!machine_.empty() && card["machine"] == machine_)) {
      if (r == me_) machine_index_ = machine_ranks_;
      ++machine_ranks_;
      std::vector<int> cpus;
      if (base::parse_cpu_list(card["cpus"], cpus)) {
        for (int c : cpus) machine_mask[std::size_t(c)] = true;
      } else {
        masks_known = false;
      }
    }
    const bool same_host = card["host"] == node_;
    if (same_host) node_ranks_.push_back(r);
    if (r == me_) {
      routes_[r] = Route::self;
      continue;
    }
    device::PeerAddress peer{.rank = r, .local_index = same_host ? int(node_ranks_.size()) - 1 : -1,
                             .pid = std::atoi(card["pid"].c_str()), .address = {}};
    const bool shm_ok = shm_ && same_host && card.count("shm");
    std::vector<Pairing> lanes;
    if (tcp && card.count("tcp")) lanes = pair_channels(r, card["tcp"]);
    const bool tcp_ok = !lanes.empty();
    if (shm_ok && (shm_first || !tcp_ok)) {
      peer.address = card["shm"];
      shm_peers.push_back(peer);
      routes_[r] = Route::shm;
    } else if (tcp_ok) {
      std::vector<rails::Scheduler::LaneSpec> channels;
      for (const Pairing& each : lanes) {
        peer.address = each.endpoint;
        channel_peers[static_cast<std::size_t>(each.channel)].push_back(peer);
        channels.push_back({each.channel, each.remote});
      }
      if (channels.size() == 1) {
        routes_[r] = Route::tcp;
        lane_[static_cast<std::size_t>(r)] = channels[0].channel;
      } else {
        routes_[r] = Route::rails;
        scheduler_->add_peer(r, std::move(channels));
        any_rails = true;
      }
    } else {
      base::fatal("no device reaches rank %d (its card: %s); check RAILMPI_DEVICES", r, cards[r].c_str());
    }
  }
  unsigned from_mpiexec = 0;
  if (!base::machine_cpus_from_environment(from_mpiexec) && masks_known) {
    const auto shared = static_cast<unsigned>(std::count(machine_mask.begin(), machine_mask.end(), true));
    if (shared > 0) machine_cpus_ = shared;
  }
  // Every rank connects every device it created, so that device barriers line up across ranks.
  if (shm_) {
    shm_->set_machine_cpus(machine_cpus_);
    shm_->connect(shm_peers, bootstrap);
  }
  poll_tcp_ = false;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    channels_[c].device->connect(channel_peers[c], bootstrap);
    poll_tcp_ = poll_tcp_ || !channel_peers[c].empty();
  }
  poll_shm_ = shm_ && !shm_peers.empty();
  // Connecting may change figures (the shm device probes single copy).
  if (shm_) figures_[static_cast<int>(Route::shm)] = shm_->figures();
  if (tcp) {
    figures_[static_cast<int>(Route::tcp)] = channels_[0].device->figures();
    // Toward several rails: striping policies send large messages by rendezvous, whose data
    // frames stripe.
    device::Figures rails_figures = figures_[static_cast<int>(Route::tcp)];
    if (rails::may_stripe(scheduler_->policy()))
      rails_figures.eager_limit = std::min(rails_figures.eager_limit, stripe_threshold_);
    figures_[static_cast<int>(Route::rails)] = rails_figures;
  }
  has_rails_ = any_rails;
  install_handlers();
  if (has_rails_) watch_links();
}

void MultiMethod::watch_links() {
  if (!link_state_.watched()) return;  // loopback rails only
  link_watch_ = std::make_unique<device::tcp::LinkWatcher>();
  if (link_watch_->fd() < 0) {
    base::log_info("rails: no link events (%s); failed rails are found by their stall timeout",
                   link_watch_->error().c_str());
    link_watch_.reset();
    return;
  }
  tcp_group_->watch(link_watch_->fd(), &MultiMethod::read_link_events, this);
}

int MultiMethod::read_link_events(void* self) {
  auto& m = *static_cast<MultiMethod*>(self);
  return m.apply_link_events();
}

int MultiMethod::apply_link_events() {
  link_events_.clear();
  link_changes_.clear();
  const bool complete = link_watch_->read(link_events_);
  for (const auto& e : link_events_) link_state_.apply(e, link_changes_);
  if (!complete) link_state_.resync(rails::local_interfaces(), link_changes_);
  for (const auto& change : link_changes_) {
    if (change.usable) scheduler_->channel_up(change.channel);
    else scheduler_->channel_down(change.channel, change.why);
  }
  return static_cast<int>(link_changes_.size());
}

std::vector<MultiMethod::Pairing> MultiMethod::pair_channels(int rank, const std::string& field) const {
  std::vector<rails::AdvertisedRail> theirs;
  if (!rails::parse_card_field(field, theirs)) {
    base::log_error("rank %d advertises a malformed tcp address '%s'", rank, field.c_str());
    return {};
  }
  // My rails in order, each with its channels.
  std::vector<rails::RailAddress> mine;
  std::vector<std::vector<int>> my_channels;
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    if (mine.size() <= static_cast<std::size_t>(channels_[c].rail)) {
      mine.push_back(rails::RailAddress{channels_[c].address, channels_[c].prefix});
      my_channels.emplace_back();
    }
    my_channels[static_cast<std::size_t>(channels_[c].rail)].push_back(int(c));
  }
  std::vector<rails::RailAddress> their_rails;
  for (const auto& t : theirs) their_rails.push_back(t.rail);
  const std::vector<int> pairs = rails::pair_rails(mine, their_rails);
  // The peer's channel index of its rail j's first connection: channels are listed rail by rail.
  std::vector<int> first(theirs.size() + 1, 0);
  for (std::size_t j = 0; j < theirs.size(); ++j) first[j + 1] = first[j] + int(theirs[j].endpoints.size());
  std::vector<Pairing> lanes;
  for (std::size_t r = 0; r < mine.size(); ++r) {
    if (pairs[r] < 0) continue;
    const auto j = static_cast<std::size_t>(pairs[r]);
    const auto& endpoints = theirs[j].endpoints;
    // Connection k of my rail talks to connection k of the peer's rail.
    for (std::size_t k = 0; k < my_channels[r].size() && k < endpoints.size(); ++k)
      lanes.push_back(Pairing{my_channels[r][k], endpoints[k], first[j] + int(k)});
  }
  return lanes;
}

void MultiMethod::install_handlers() {
  // Channels report to the rail scheduler only when some peer has several channels; otherwise
  // straight to the layer above (the one-rail path stays exactly as lean as before).
  for (std::size_t c = 0; c < channels_.size(); ++c)
    channels_[c].device->set_handler(has_rails_ ? scheduler_->channel_handler(int(c)) : upper_);
  if (scheduler_) scheduler_->set_upper(upper_);
}

void MultiMethod::set_handler(device::FrameHandler handler) {
  self_.set_handler(handler);
  if (shm_) shm_->set_handler(handler);
  upper_ = handler;
  install_handlers();
}

void MultiMethod::wait(std::chrono::microseconds timeout) {
  // One device that can block takes the whole wait; with two, each gets a short slice.
  if (poll_shm_ && poll_tcp_) {
    shm_->wait(timeout / 2);
  } else if (poll_shm_) {
    shm_->wait(timeout);
  } else if (poll_tcp_) {
    channels_[0].device->wait(timeout);  // several channels: waits for their group
  }
}

device::Device* MultiMethod::single_copy_device(int peer) {
  switch (routes_[peer]) {
    case Route::self: return &self_;
    case Route::shm: return shm_.get();
    case Route::tcp:
    case Route::rails: return nullptr;  // tcp has no single copy
  }
  return nullptr;
}

bool MultiMethod::read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst) {
  device::Device* d = single_copy_device(peer);
  return d && d->read_remote(peer, remote_addr, dst);
}

std::size_t MultiMethod::read_remote_runs(int peer, std::span<const device::RemoteRun> runs) {
  device::Device* d = single_copy_device(peer);
  return d ? d->read_remote_runs(peer, runs) : 0;
}

std::size_t MultiMethod::write_remote_runs(int peer, std::span<const device::RemoteSource> runs) {
  device::Device* d = single_copy_device(peer);
  return d ? d->write_remote_runs(peer, runs) : 0;
}

bool MultiMethod::write_remote(int peer, std::uint64_t remote_addr, std::span<const std::byte> src) {
  device::Device* d = single_copy_device(peer);
  return d && d->write_remote(peer, remote_addr, src);
}

bool MultiMethod::read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local,
                                     std::size_t bytes) {
  device::Device* d = single_copy_device(peer);
  return d && d->read_remote_layout(peer, remote, local, bytes);
}

const char* MultiMethod::route_name(Route r) {
  switch (r) {
    case Route::self: return "self";
    case Route::shm: return "shm";
    case Route::tcp: return "tcp";
    case Route::rails: return "tcp-rails";
  }
  return "?";
}

bool MultiMethod::idle() const {
  if (!self_.idle() || (shm_ && !shm_->idle())) return false;
  for (const auto& c : channels_)
    if (!c.device->idle()) return false;
  return !scheduler_ || scheduler_->held() == 0;
}

std::vector<std::string> MultiMethod::rail_stats() const {
  std::vector<std::string> lines;
  for (std::size_t c = 0; c < channels_.size(); ++c)
    lines.push_back(rails::stats_line(me_, int(c), channels_[c].where, channels_[c].stats, channels_[c].meter));
  return lines;
}

void MultiMethod::shutdown() {
  if (shm_) shm_->shutdown();
  if (rail_stats_)
    for (const std::string& line : rail_stats()) std::fprintf(stderr, "%s\n", line.c_str());
  for (auto& c : channels_) c.device->shutdown();
}

}  // namespace railmpi::mcm
