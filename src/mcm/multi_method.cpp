#include "mcm/multi_method.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "base/log.hpp"

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
      routes_(job_size, Route::tcp),
      self_(my_rank) {
  const bool want_shm = listed(settings.devices, "shm");
  const bool want_tcp = listed(settings.devices, "tcp");
  if (!want_shm && !want_tcp)
    base::fatal("RAILMPI_DEVICES=%s names no known device (known: shm, tcp)", settings.devices.c_str());
  if (job_size > 1 && want_shm)
    shm_ = std::make_unique<device::shm::ShmDevice>(my_rank, job_size, job_id, settings);
  if (job_size > 1 && want_tcp)
    tcp_ = std::make_unique<device::tcp::TcpDevice>(my_rank, job_size, settings);
  figures_[static_cast<int>(Route::self)] = self_.figures();
}

MultiMethod::~MultiMethod() = default;

std::string MultiMethod::business_card() {
  std::string card = "host=" + node_ + ";pid=" + std::to_string(::getpid());
  if (!machine_.empty()) card += ";machine=" + machine_;
  if (shm_) card += ";shm=" + shm_->local_address();
  if (tcp_) card += ";tcp=" + tcp_->local_address();
  return card;
}

void MultiMethod::connect(std::span<const std::string> cards, device::Bootstrap bootstrap) {
  // Figures first: the route to each peer is the reachable device with the lowest latency.
  if (shm_) figures_[static_cast<int>(Route::shm)] = shm_->figures();
  if (tcp_) figures_[static_cast<int>(Route::tcp)] = tcp_->figures();
  const bool shm_first = !tcp_ || (shm_ && figures_[int(Route::shm)].latency_us <= figures_[int(Route::tcp)].latency_us);

  std::vector<device::PeerAddress> shm_peers, tcp_peers;
  node_ranks_.clear();
  machine_ranks_ = 0;
  for (int r = 0; r < size_; ++r) {
    auto card = parse_card(cards[r]);
    if (r == me_ || (!machine_.empty() && card["machine"] == machine_)) ++machine_ranks_;
    const bool same_host = card["host"] == node_;
    if (same_host) node_ranks_.push_back(r);
    if (r == me_) {
      routes_[r] = Route::self;
      continue;
    }
    device::PeerAddress peer{.rank = r, .local_index = same_host ? int(node_ranks_.size()) - 1 : -1,
                             .pid = std::atoi(card["pid"].c_str()), .address = {}};
    const bool shm_ok = shm_ && same_host && card.count("shm");
    const bool tcp_ok = tcp_ && card.count("tcp");
    if (shm_ok && (shm_first || !tcp_ok)) {
      peer.address = card["shm"];
      shm_peers.push_back(peer);
      routes_[r] = Route::shm;
    } else if (tcp_ok) {
      peer.address = card["tcp"];
      tcp_peers.push_back(peer);
      routes_[r] = Route::tcp;
    } else {
      base::fatal("no device reaches rank %d (its card: %s); check RAILMPI_DEVICES", r, cards[r].c_str());
    }
  }
  // Every rank connects every device it created, so that device barriers line up across ranks.
  if (shm_) shm_->connect(shm_peers, bootstrap);
  if (tcp_) tcp_->connect(tcp_peers, bootstrap);
  poll_shm_ = shm_ && !shm_peers.empty();
  poll_tcp_ = tcp_ && !tcp_peers.empty();
  // Connecting may change figures (the shm device probes single copy).
  if (shm_) figures_[static_cast<int>(Route::shm)] = shm_->figures();
  if (tcp_) figures_[static_cast<int>(Route::tcp)] = tcp_->figures();
}

void MultiMethod::set_handler(device::FrameHandler handler) {
  self_.set_handler(handler);
  if (shm_) shm_->set_handler(handler);
  if (tcp_) tcp_->set_handler(handler);
}

void MultiMethod::wait(std::chrono::microseconds timeout) {
  // One device that can block takes the whole wait; with two, each gets a short slice.
  if (poll_shm_ && poll_tcp_) {
    shm_->wait(timeout / 2);
    tcp_->wait(std::chrono::microseconds(0));
  } else if (poll_shm_) {
    shm_->wait(timeout);
  } else if (poll_tcp_) {
    tcp_->wait(timeout);
  }
}

bool MultiMethod::read_remote(int peer, std::uint64_t remote_addr, std::span<std::byte> dst) {
  switch (routes_[peer]) {
    case Route::self: return self_.read_remote(peer, remote_addr, dst);
    case Route::shm: return shm_->read_remote(peer, remote_addr, dst);
    case Route::tcp: return tcp_->read_remote(peer, remote_addr, dst);
  }
  return false;
}

bool MultiMethod::read_remote_layout(int peer, const base::Layout& remote, const base::Layout& local,
                                     std::size_t bytes) {
  switch (routes_[peer]) {
    case Route::self: return self_.read_remote_layout(peer, remote, local, bytes);
    case Route::shm: return shm_->read_remote_layout(peer, remote, local, bytes);
    case Route::tcp: return tcp_->read_remote_layout(peer, remote, local, bytes);
  }
  return false;
}

const char* MultiMethod::route_name(Route r) {
  switch (r) {
    case Route::self: return "self";
    case Route::shm: return "shm";
    case Route::tcp: return "tcp";
  }
  return "?";
}

bool MultiMethod::idle() const {
  return self_.idle() && (!shm_ || shm_->idle()) && (!tcp_ || tcp_->idle());
}

void MultiMethod::shutdown() {
  if (shm_) shm_->shutdown();
  if (tcp_) tcp_->shutdown();
}

}  // namespace railmpi::mcm
