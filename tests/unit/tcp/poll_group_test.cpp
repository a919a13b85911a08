// Tests of the poll group: several tcp channels (devices) of one rank sharing one epoll set, so
// that one epoll_wait serves them all, plus a watched descriptor of the channels' owner.
#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include "base/settings.hpp"
#include "device/tcp/poll_group.hpp"
#include "device/tcp/tcp_device.hpp"

namespace railmpi::device::tcp {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

base::Settings loopback_settings() {
  base::Settings s{};
  s.tcp_eager_limit = 64 * 1024;
  s.tcp_interface = "127.0.0.1";
  return s;
}

in_addr loopback(int last) {
  in_addr a{};
  a.s_addr = htonl((127u << 24) | std::uint32_t(last));
  return a;
}

// One rank with `channels` channels (each bound to its own loopback address) in one group.
struct Rank {
  PollGroup group;
  std::vector<std::unique_ptr<TcpDevice>> channels;
  std::vector<std::vector<std::uint64_t>> got;  // per channel: the header values received

  struct Ctx {
    Rank* rank;
    std::size_t channel;
  };
  std::vector<std::unique_ptr<Ctx>> ctx;

  static void on_frame(void* c, int, std::span<const std::byte> h, std::span<const std::byte>, ReadHint) {
    auto* x = static_cast<Ctx*>(c);
    std::uint64_t v = 0;
    std::memcpy(&v, h.data(), std::min(h.size(), sizeof v));
    x->rank->got[x->channel].push_back(v);
  }
  static void on_failed(void*, int peer, std::string_view why) {
    ADD_FAILURE() << "peer " << peer << " failed: " << why;
  }

  Rank(int me, int channels_wanted) : got(std::size_t(channels_wanted)) {
    const base::Settings s = loopback_settings();
    for (int c = 0; c < channels_wanted; ++c) {
      channels.push_back(std::make_unique<TcpDevice>(me, 2, s, loopback(1 + c), &group));
      ctx.push_back(std::make_unique<Ctx>(Ctx{this, std::size_t(c)}));
      channels.back()->set_handler(FrameHandler{ctx.back().get(), &on_frame, &on_failed});
    }
  }
};

void connect_pair(Rank& a, Rank& b) {
  for (std::size_t c = 0; c < a.channels.size(); ++c) {
    const PeerAddress to_b{1, -1, 0, b.channels[c]->local_address()};
    const PeerAddress to_a{0, -1, 0, a.channels[c]->local_address()};
    a.channels[c]->connect(std::span(&to_b, 1), {});
    b.channels[c]->connect(std::span(&to_a, 1), {});
  }
}

TEST(PollGroup, OnePollServesEveryChannel) {
  Rank a(0, 3), b(1, 3);
  connect_pair(a, b);
  std::vector<SendOp> ops(3 * 50);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::uint64_t v = 1000 + i;
    ops[i].header_len = 8;
    std::memcpy(ops[i].header.data(), &v, 8);
    a.channels[i % 3]->send(1, ops[i]);
  }
  const auto end = Clock::now() + 10s;
  auto received = [&] {
    std::size_t n = 0;
    for (const auto& g : b.got) n += g.size();
    return n;
  };
  while (received() < ops.size() && Clock::now() < end) {
    a.group.poll();
    b.channels[0]->poll();  // any member's poll() polls the whole group
  }
  ASSERT_EQ(received(), ops.size());
  for (std::size_t c = 0; c < 3; ++c) {
    ASSERT_EQ(b.got[c].size(), 50u);
    for (std::size_t k = 0; k < 50; ++k) EXPECT_EQ(b.got[c][k], 1000 + c + 3 * k) << "channel " << c;
  }
}

TEST(PollGroup, WatchedDescriptorAndWait) {
  Rank a(0, 2), b(1, 2);
  connect_pair(a, b);
  const int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(efd, 0);
  struct Seen {
    int fd;
    int calls = 0;
  } seen{efd};
  b.group.watch(efd, [](void* ctx) {
    auto* s = static_cast<Seen*>(ctx);
    std::uint64_t v;
    if (::read(s->fd, &v, sizeof v) == sizeof v) ++s->calls;
    return 1;
  }, &seen);
  EXPECT_EQ(b.group.poll(), 0);
  EXPECT_EQ(seen.calls, 0);
  // wait() of the group times out when nothing is ready, returns early when the watch fires.
  auto t0 = Clock::now();
  b.channels[1]->wait(20ms);
  EXPECT_GE(Clock::now() - t0, 15ms);
  const std::uint64_t one = 1;
  ASSERT_EQ(::write(efd, &one, sizeof one), ssize_t(sizeof one));
  t0 = Clock::now();
  b.group.wait(2s);
  EXPECT_LT(Clock::now() - t0, 1s);
  EXPECT_EQ(b.group.poll(), 1);
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(b.group.poll(), 0);  // read: no longer ready
  ::close(efd);
}

}  // namespace
}  // namespace railmpi::device::tcp
