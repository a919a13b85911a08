// The link watcher: its netlink parser on messages built here byte by byte, and the watcher on
// the kernel's own messages about a veth pair made in a private network namespace (a forked
// child; skipped where namespaces cannot be made).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "device/tcp/link_watch.hpp"

namespace railmpi::device::tcp {
namespace {

// ---- netlink messages built by hand ----

class Message {
 public:
  Message(std::uint16_t type, const void* body, std::size_t len) {
    append(nullptr, NLMSG_HDRLEN);
    append(body, len);
    type_ = type;
  }
  void attribute(std::uint16_t type, const void* data, std::size_t len) {
    rtattr a{static_cast<unsigned short>(RTA_LENGTH(len)), type};
    append(&a, sizeof a);
    append(data, len);
  }
  // Appends the finished message (header filled in) to `out`.
  void to(std::vector<std::byte>& out) const {
    nlmsghdr h{};
    h.nlmsg_len = static_cast<std::uint32_t>(bytes_.size());
    h.nlmsg_type = type_;
    std::vector<std::byte> m = bytes_;
    std::memcpy(m.data(), &h, sizeof h);
    out.insert(out.end(), m.begin(), m.end());
  }

 private:
  void append(const void* data, std::size_t len) {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + NLMSG_ALIGN(len), std::byte{0});
    if (data != nullptr) std::memcpy(bytes_.data() + at, data, len);
  }
  std::vector<std::byte> bytes_;
  std::uint16_t type_ = 0;
};

void link_message(std::vector<std::byte>& out, std::uint16_t type, int index, unsigned flags, const char* name) {
  ifinfomsg info{};
  info.ifi_family = AF_UNSPEC;
  info.ifi_index = index;
  info.ifi_flags = flags;
  Message m(type, &info, sizeof info);
  m.attribute(IFLA_IFNAME, name, std::strlen(name) + 1);
  m.to(out);
}

void address_message(std::vector<std::byte>& out, std::uint16_t type, int family, int index, const char* ip) {
  ifaddrmsg info{};
  info.ifa_family = static_cast<unsigned char>(family);
  info.ifa_prefixlen = 24;
  info.ifa_index = static_cast<unsigned>(index);
  Message m(type, &info, sizeof info);
  if (family == AF_INET) {
    in_addr a{};
    inet_pton(AF_INET, ip, &a);
    m.attribute(IFA_ADDRESS, &a, sizeof a);
    m.attribute(IFA_LOCAL, &a, sizeof a);
  } else {
    in6_addr a{};
    inet_pton(AF_INET6, ip, &a);
    m.attribute(IFA_ADDRESS, &a, sizeof a);
  }
  m.to(out);
}

std::string text(in_addr a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

TEST(LinkMessages, LinkStatesAddressesAndRemovalsAreParsedInOrder) {
  std::vector<std::byte> bytes;
  link_message(bytes, RTM_NEWLINK, 7, IFF_UP | IFF_RUNNING, "rail1");
  link_message(bytes, RTM_NEWLINK, 7, IFF_UP, "rail1");  // up, no carrier
  link_message(bytes, RTM_NEWLINK, 7, 0, "rail1");       // set down
  address_message(bytes, RTM_DELADDR, AF_INET, 7, "10.1.2.3");
  address_message(bytes, RTM_NEWADDR, AF_INET6, 7, "fe80::1");  // not a rail: skipped
  address_message(bytes, RTM_NEWADDR, AF_INET, 7, "10.1.2.4");
  link_message(bytes, RTM_DELLINK, 7, 0, "rail1");
  std::vector<LinkEvent> ev;
  ASSERT_TRUE(parse_link_messages(bytes, ev));
  ASSERT_EQ(ev.size(), 6u);
  using Kind = LinkEvent::Kind;
  EXPECT_EQ(ev[0].kind, Kind::link);
  EXPECT_EQ(ev[0].index, 7);
  EXPECT_EQ(ev[0].name, "rail1");
  EXPECT_TRUE(ev[0].usable);
  EXPECT_FALSE(ev[1].usable);
  EXPECT_TRUE(ev[1].admin_up);
  EXPECT_FALSE(ev[2].usable);
  EXPECT_FALSE(ev[2].admin_up);
  EXPECT_EQ(ev[3].kind, Kind::address);
  EXPECT_FALSE(ev[3].usable);
  EXPECT_EQ(text(ev[3].address), "10.1.2.3");
  EXPECT_EQ(ev[4].kind, Kind::address);
  EXPECT_TRUE(ev[4].usable);
  EXPECT_EQ(text(ev[4].address), "10.1.2.4");
  EXPECT_EQ(ev[5].kind, Kind::gone);
  EXPECT_FALSE(ev[5].usable);
}

TEST(LinkMessages, OtherMessagesAreSkippedAndTruncatedOnesRefused) {
  std::vector<std::byte> bytes;
  nlmsghdr done{};
  done.nlmsg_len = NLMSG_HDRLEN;
  done.nlmsg_type = NLMSG_DONE;
  bytes.resize(NLMSG_HDRLEN);
  std::memcpy(bytes.data(), &done, sizeof done);
  link_message(bytes, RTM_NEWLINK, 3, IFF_UP | IFF_RUNNING, "eth0");
  std::vector<LinkEvent> ev;
  ASSERT_TRUE(parse_link_messages(bytes, ev));
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].index, 3);

  ev.clear();
  std::vector<std::byte> cut(bytes.begin(), bytes.end() - 8);  // the last message runs past the end
  EXPECT_FALSE(parse_link_messages(cut, ev));
  EXPECT_TRUE(ev.empty());
  // An attribute longer than its message.
  std::vector<std::byte> bad;
  link_message(bad, RTM_NEWLINK, 3, IFF_UP, "eth0");
  rtattr a{};
  std::memcpy(&a, bad.data() + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), sizeof a);
  a.rta_len = 200;
  std::memcpy(bad.data() + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), &a, sizeof a);
  EXPECT_FALSE(parse_link_messages(bad, ev));
}

// ---- the kernel's messages ----

// In a forked child in a new network namespace: a veth pair ffa/ffb, then each change the
// failover cares about, each checked against the watcher's events. Exit code: 0 passed,
// 77 no namespace here, 1 failed (the reason on stderr).
int run_in_namespace() {
  if (::unshare(CLONE_NEWNET) != 0) return 77;
  LinkWatcher watcher;
  if (watcher.fd() < 0) {
    std::fprintf(stderr, "no watcher: %s\n", watcher.error().c_str());
    return 1;
  }
  auto ip = [](const std::string& args) { return std::system(("ip " + args + " 2>&1").c_str()) == 0; };
  if (!ip("link add ffa type veth peer name ffb")) return 77;  // no veth here
  const int ffa = static_cast<int>(::if_nametoindex("ffa"));
  std::vector<LinkEvent> seen;
  // Waits (at most 5 s) for an event about ffa that `match` accepts.
  auto expect = [&](const char* what, const std::function<bool(const LinkEvent&)>& match) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (;;) {
      for (const LinkEvent& e : seen)
        if (e.index == ffa && match(e)) {
          seen.clear();
          return true;
        }
      seen.clear();
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{watcher.fd(), POLLIN, 0};
      ::poll(&p, 1, static_cast<int>(left.count()));
      if (!watcher.read(seen)) std::fprintf(stderr, "events lost\n");
    }
    std::fprintf(stderr, "no event: %s\n", what);
    return false;
  };
  using Kind = LinkEvent::Kind;
  const bool ok =
      ip("addr add 10.77.0.1/24 dev ffa") &&
      expect("address added", [](const LinkEvent& e) {
        return e.kind == Kind::address && e.usable && text(e.address) == "10.77.0.1";
      }) &&
      ip("link set ffa up") && ip("link set ffb up") &&
      expect("up with carrier", [](const LinkEvent& e) { return e.kind == Kind::link && e.usable && e.name == "ffa"; }) &&
      ip("link set ffb down") &&
      expect("carrier lost", [](const LinkEvent& e) { return e.kind == Kind::link && !e.usable && e.admin_up; }) &&
      ip("link set ffb up") &&
      expect("carrier back", [](const LinkEvent& e) { return e.kind == Kind::link && e.usable; }) &&
      ip("link set ffa down") &&
      expect("set down", [](const LinkEvent& e) { return e.kind == Kind::link && !e.usable && !e.admin_up; }) &&
      ip("addr del 10.77.0.1/24 dev ffa") &&
      expect("address removed", [](const LinkEvent& e) {
        return e.kind == Kind::address && !e.usable && text(e.address) == "10.77.0.1";
      }) &&
      ip("link del ffa") && expect("removed", [](const LinkEvent& e) { return e.kind == Kind::gone; });
  return ok ? 0 : 1;
}

TEST(LinkWatcher, ReportsTheKernelsLinkAndAddressChangesOfAVethPair) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(run_in_namespace());
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no network namespace or veth here (needs root)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the child's stderr above";
}

}  // namespace
}  // namespace railmpi::device::tcp
