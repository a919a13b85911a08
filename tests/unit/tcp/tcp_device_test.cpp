// Tests of the tcp device. Devices are independent objects, so most tests run 2..4 TcpDevice
// instances in one process and drive them all from the test thread (addresses are exchanged in
// memory). The "process killed" test forks a child that is killed with SIGKILL.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/settings.hpp"
#include "device/tcp/net.hpp"
#include "device/tcp/tcp_device.hpp"
#include "device/tcp/wire.hpp"

namespace railmpi::device::tcp {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

base::Settings test_settings(std::string interface = "127.0.0.1") {
  base::Settings s{};
  s.tcp_eager_limit = 64 * 1024;
  s.tcp_interface = std::move(interface);
  return s;
}

// The address a channel for `settings` binds (RAILMPI_TCP_INTERFACE, or the automatic choice).
in_addr bind_of(const base::Settings& settings) {
  in_addr ip{};
  std::string error;
  if (!net::choose_listen_address(settings.tcp_interface, ip, error)) ADD_FAILURE() << error;
  return ip;
}

struct Frame {
  int peer;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
};

struct Failure {
  int peer;
  std::string why;
};

// One rank: a device plus what its handler saw.
struct Node {
  int rank = -1;
  std::unique_ptr<TcpDevice> dev;
  std::vector<Frame> frames;  // recorded unless `hook` is set
  std::vector<Failure> failures;
  std::function<void(int, std::span<const std::byte>, std::span<const std::byte>)> hook;
  int barriers = 0;

  static void on_frame(void* ctx, int peer, std::span<const std::byte> h, std::span<const std::byte> p,
                       ReadHint) {
    auto* self = static_cast<Node*>(ctx);
    if (self->hook) {
      self->hook(peer, h, p);
      return;
    }
    self->frames.push_back(Frame{peer, {h.begin(), h.end()}, {p.begin(), p.end()}});
  }
  static void on_failed(void* ctx, int peer, std::string_view why) {
    static_cast<Node*>(ctx)->failures.push_back(Failure{peer, std::string(why)});
  }
};

// n ranks with connected devices (lazily: connect() only records addresses).
std::vector<std::unique_ptr<Node>> make_job(int n, const base::Settings& settings = test_settings()) {
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<PeerAddress> cards;
  for (int r = 0; r < n; ++r) {
    auto node = std::make_unique<Node>();
    node->rank = r;
    node->dev = std::make_unique<TcpDevice>(r, n, settings, bind_of(settings));
    node->dev->set_handler(FrameHandler{node.get(), &Node::on_frame, &Node::on_failed});
    cards.push_back(PeerAddress{r, -1, 0, node->dev->local_address()});
    nodes.push_back(std::move(node));
  }
  for (auto& node : nodes) {
    std::vector<PeerAddress> peers;
    for (const auto& c : cards)
      if (c.rank != node->rank) peers.push_back(c);
    Bootstrap bs{node.get(), [](void* ctx) { ++static_cast<Node*>(ctx)->barriers; }};
    node->dev->connect(peers, bs);
  }
  return nodes;
}

// Polls every live device until `done` holds; false after `limit`.
bool pump(std::vector<std::unique_ptr<Node>>& nodes, const std::function<bool()>& done,
          std::chrono::milliseconds limit = 10s) {
  const auto end = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > end) return false;
    for (auto& node : nodes)
      if (node && node->dev) node->dev->poll();
  }
  return true;
}

void set_header(SendOp& op, std::uint64_t a, std::uint32_t len = 8) {
  op.header_len = len;
  std::memcpy(op.header.data(), &a, sizeof a);
}

std::uint64_t header_value(const std::vector<std::byte>& h) {
  std::uint64_t v = 0;
  std::memcpy(&v, h.data(), std::min(h.size(), sizeof v));
  return v;
}

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1103515245u + 12345u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

struct DoneCounter {
  static void on_done(SendOp& op) { ++*static_cast<int*>(op.owner); }
};

TEST(TcpDevice, FiguresAndAddress) {
  auto nodes = make_job(2);
  TcpDevice& dev = *nodes[0]->dev;
  EXPECT_EQ(dev.name(), "tcp");
  const Figures f = dev.figures();
  EXPECT_EQ(f.eager_limit, 64u * 1024);
  EXPECT_EQ(f.max_payload, 1u << 20);
  EXPECT_FALSE(f.single_copy);
  EXPECT_GT(f.latency_us, 0);
  EXPECT_GT(f.bandwidth_mbs, 0);
  const std::string addr = dev.local_address();
  EXPECT_EQ(addr.rfind("127.0.0.1:", 0), 0u) << addr;
  EXPECT_EQ(dev.local_address(), addr);  // stable
  EXPECT_TRUE(dev.idle());
  for (auto& n : nodes) EXPECT_EQ(n->barriers, 0);  // lazy connections: no barrier at all
}

TEST(TcpDevice, AutomaticInterfaceWorks) {
  auto nodes = make_job(2, test_settings(""));
  const std::string addr = nodes[0]->dev->local_address();
  EXPECT_EQ(addr.find(' '), std::string::npos);
  EXPECT_EQ(addr.find('='), std::string::npos);
  SendOp op;
  set_header(op, 42);
  int done = 0;
  op.on_done = DoneCounter::on_done;
  op.owner = &done;
  const bool queued = nodes[0]->dev->send(1, op) == SendResult::queued;
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1 && (!queued || done == 1); }))
      << addr;
  EXPECT_EQ(header_value(nodes[1]->frames[0].header), 42u);
}

TEST(TcpDevice, PayloadSizesBothWays) {
  auto nodes = make_job(2);
  const std::size_t sizes[] = {0, 1, 64 * 1024, 1 << 20};
  std::vector<std::vector<std::byte>> data;
  for (std::size_t i = 0; i < 4; ++i) data.push_back(pattern(sizes[i], unsigned(i)));
  std::vector<SendOp> ops(8);
  int done = 0, queued = 0;
  for (int dir = 0; dir < 2; ++dir) {
    for (int i = 0; i < 4; ++i) {
      SendOp& op = ops[dir * 4 + i];
      set_header(op, 1000 + i, i == 3 ? kMaxHeader : 8);  // also a full 64-byte header
      if (i == 3)
        for (std::size_t b = 8; b < kMaxHeader; ++b) op.header[b] = std::byte(b);
      op.payload = data[i].data();
      op.payload_len = data[i].size();
      op.on_done = DoneCounter::on_done;
      op.owner = &done;
      if (nodes[dir]->dev->send(1 - dir, op) == SendResult::queued) ++queued;
    }
  }
  ASSERT_TRUE(pump(nodes, [&] {
    return nodes[0]->frames.size() == 4 && nodes[1]->frames.size() == 4 && done == queued;
  }));
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 4; ++i) {
      const Frame& f = nodes[r]->frames[i];
      EXPECT_EQ(f.peer, 1 - r);
      EXPECT_EQ(header_value(f.header), 1000u + i);
      EXPECT_EQ(f.header.size(), i == 3 ? kMaxHeader : 8u);
      if (i == 3) {
        for (std::size_t b = 8; b < kMaxHeader; ++b) EXPECT_EQ(f.header[b], std::byte(b));
      }
      EXPECT_EQ(f.payload, data[i]) << "size " << sizes[i];
    }
  }
  EXPECT_TRUE(nodes[0]->dev->idle());
  EXPECT_TRUE(nodes[1]->dev->idle());
  EXPECT_TRUE(nodes[0]->failures.empty());
  EXPECT_TRUE(nodes[1]->failures.empty());
}

TEST(TcpDevice, OrderOfTenThousandSmallFrames) {
  auto nodes = make_job(2);
  constexpr int kCount = 10000;
  std::vector<SendOp> ops(kCount);
  int done = 0, queued = 0;
  std::uint64_t expect = 0;
  bool in_order = true;
  nodes[1]->hook = [&](int peer, std::span<const std::byte> h, std::span<const std::byte> p) {
    std::uint64_t v;
    std::memcpy(&v, h.data(), 8);
    in_order = in_order && peer == 0 && v == expect && p.size() == 4 &&
               std::memcmp(p.data(), &v, 4) == 0;
    ++expect;
  };
  std::vector<std::uint64_t> values(kCount);
  for (int i = 0; i < kCount; ++i) {
    values[i] = std::uint64_t(i);
    set_header(ops[i], values[i]);
    ops[i].payload = reinterpret_cast<const std::byte*>(&values[i]);
    ops[i].payload_len = 4;
    ops[i].on_done = DoneCounter::on_done;
    ops[i].owner = &done;
    if (nodes[0]->dev->send(1, ops[i]) == SendResult::queued) ++queued;
    if (i % 100 == 0) nodes[0]->dev->poll();  // sender makes progress now and then
  }
  ASSERT_TRUE(pump(nodes, [&] { return expect == kCount && done == queued; }));
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(nodes[0]->dev->idle());
}

// Every rank sends to every other rank before anyone polls: all pairs connect simultaneously.
// Exactly one connection per pair must win, without losing or reordering frames.
void all_to_all_first(int n, int frames_per_pair) {
  auto nodes = make_job(n);
  std::vector<std::vector<std::uint64_t>> next(n, std::vector<std::uint64_t>(n, 0));
  bool ok = true;
  int received = 0;
  for (int r = 0; r < n; ++r) {
    nodes[r]->hook = [&, r](int peer, std::span<const std::byte> h, std::span<const std::byte>) {
      std::uint64_t v;
      std::memcpy(&v, h.data(), 8);
      ok = ok && v == next[r][peer]++;
      ++received;
    };
  }
  std::vector<SendOp> ops(std::size_t(n) * n * frames_per_pair);
  int done = 0, queued = 0;
  for (int i = 0; i < frames_per_pair; ++i)
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        SendOp& op = ops[(std::size_t(s) * n + d) * frames_per_pair + i];
        set_header(op, std::uint64_t(i));
        op.on_done = DoneCounter::on_done;
        op.owner = &done;
        if (nodes[s]->dev->send(d, op) == SendResult::queued) ++queued;
      }
  const int total = n * (n - 1) * frames_per_pair;
  ASSERT_TRUE(pump(nodes, [&] { return received == total && done == queued; }))
      << "received " << received << " of " << total;
  EXPECT_TRUE(ok);
  for (auto& node : nodes) {
    EXPECT_TRUE(node->failures.empty());
    EXPECT_TRUE(node->dev->idle());
  }
}

TEST(TcpDevice, SimultaneousFirstSendsTwoRanks) {
  for (int round = 0; round < 20; ++round) all_to_all_first(2, 100);
}

TEST(TcpDevice, SimultaneousFirstSendsFourRanks) {
  for (int round = 0; round < 5; ++round) all_to_all_first(4, 200);
}

// Staggered simultaneous connect: one side's connection is already half-way when the other
// side starts its own.
TEST(TcpDevice, SimultaneousFirstSendsStaggered) {
  for (int round = 0; round < 10; ++round) {
    auto nodes = make_job(2);
    SendOp a[50], b[50];
    int done = 0, queued = 0;
    const int first = round % 2;
    for (int i = 0; i < 50; ++i) {
      set_header(a[i], i);
      set_header(b[i], i);
      a[i].on_done = b[i].on_done = DoneCounter::on_done;
      a[i].owner = b[i].owner = &done;
    }
    for (int i = 0; i < 50; ++i)
      if (nodes[first]->dev->send(1 - first, a[i]) == SendResult::queued) ++queued;
    for (int k = 0; k < round; ++k) nodes[first]->dev->poll();
    for (int k = 0; k < round / 2; ++k) nodes[1 - first]->dev->poll();
    for (int i = 0; i < 50; ++i)
      if (nodes[1 - first]->dev->send(first, b[i]) == SendResult::queued) ++queued;
    ASSERT_TRUE(pump(nodes, [&] {
      return nodes[0]->frames.size() == 50 && nodes[1]->frames.size() == 50 && done == queued;
    }));
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 50; ++i) EXPECT_EQ(header_value(nodes[r]->frames[i].header), unsigned(i));
  }
}

TEST(TcpDevice, BackPressureTwoHundredMegabytes) {
  auto nodes = make_job(2);
  constexpr int kFrames = 200;
  constexpr int kBuffers = 8;
  constexpr std::size_t kSize = 1 << 20;
  std::vector<std::vector<std::byte>> data;
  for (int i = 0; i < kBuffers; ++i) data.push_back(pattern(kSize, unsigned(i) + 7));
  std::vector<SendOp> ops(kFrames);
  std::vector<int> done_count(kFrames, 0);
  std::vector<bool> was_queued(kFrames, false);
  for (int i = 0; i < kFrames; ++i) {
    set_header(ops[i], std::uint64_t(i));
    ops[i].payload = data[i % kBuffers].data();
    ops[i].payload_len = kSize;
    ops[i].owner = &done_count[i];
    ops[i].on_done = DoneCounter::on_done;
    was_queued[i] = nodes[0]->dev->send(1, ops[i]) == SendResult::queued;
  }
  // The receiver does not poll for a while; the sender keeps polling.
  const auto until = Clock::now() + 300ms;
  while (Clock::now() < until) nodes[0]->dev->poll();
  EXPECT_FALSE(nodes[0]->dev->idle());

  int received = 0;
  bool intact = true;
  nodes[1]->hook = [&](int peer, std::span<const std::byte> h, std::span<const std::byte> p) {
    std::uint64_t v;
    std::memcpy(&v, h.data(), 8);
    const auto& want = data[v % kBuffers];
    intact = intact && peer == 0 && v == std::uint64_t(received) && p.size() == kSize &&
             std::memcmp(p.data(), want.data(), kSize) == 0;
    ++received;
  };
  ASSERT_TRUE(pump(nodes, [&] { return received == kFrames && nodes[0]->dev->idle(); }, 40s));
  EXPECT_TRUE(intact);
  nodes[0]->dev->poll();
  nodes[1]->dev->poll();
  int queued = 0;
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(done_count[i], was_queued[i] ? 1 : 0) << "op " << i;
    queued += was_queued[i];
  }
  EXPECT_GT(queued, 0);
}

// A non-contiguous source: `repeat` copies of 3000 runs of 7 bytes (stride 13), 5 runs of 100000
// bytes (stride 100017) and 100 runs of 16 bytes that touch (stride 16), over a patterned buffer.
struct GatherSource {
  std::vector<base::Strided> blocks{{0, 7, 3000, 13}, {40000, 100000, 5, 100017}, {560000, 16, 100, 16}};
  std::vector<std::byte> memory;
  base::Layout layout;
  explicit GatherSource(std::size_t repeat) {
    layout.repeat = repeat;
    layout.extent = 562000;
    for (const auto& b : blocks) layout.bytes_per_copy += b.length * b.count;
    layout.blocks = blocks;
    memory = pattern(std::size_t(layout.extent) * repeat, 11);
    layout.base = memory.data();
  }
  // The layout's bytes in order, read through a plain expansion of the blocks.
  std::vector<std::byte> packed() const {
    std::vector<std::byte> out;
    for (std::size_t k = 0; k < layout.repeat; ++k)
      for (const auto& b : blocks)
        for (std::size_t r = 0; r < b.count; ++r)
          for (std::size_t i = 0; i < b.length; ++i)
            out.push_back(memory[k * std::size_t(layout.extent) + std::size_t(b.offset) + r * std::size_t(b.stride) + i]);
    return out;
  }
};

// Gathered payloads (whole layouts and windows of one, runs straddling the iovec batches of send()
// and flush()) interleaved with contiguous frames, sent while the receiver is not reading (partial
// writes, queued ops resumed from the middle of a run), arrive intact and in order.
TEST(TcpDevice, GatheredPayloadsInOrderThroughPartialWrites) {
  auto nodes = make_job(2);
  GatherSource src(3);
  const std::size_t total = src.layout.bytes();
  const std::vector<std::byte> packed = src.packed();
  ASSERT_EQ(packed.size(), total);
  const std::vector<std::byte> contiguous = pattern(70000, 5);
  // (offset, length) windows; length 0 sends a contiguous frame instead.
  const std::vector<std::pair<std::size_t, std::size_t>> windows = {
      {0, total}, {0, 0}, {5, 12}, {20990, 600000}, {0, 0}, {1, 0}, {total - 1000, 1000}, {0, total}, {0, 0}};
  std::vector<SendOp> ops(windows.size() * 4);
  int done = 0, queued = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto [at, len] = windows[i % windows.size()];
    SendOp& op = ops[i];
    set_header(op, i);
    if (len == 0) {
      op.payload = contiguous.data();
      op.payload_len = contiguous.size();
    } else {
      op.layout = &src.layout;
      op.layout_offset = at;
      op.payload_len = len;
    }
    op.on_done = DoneCounter::on_done;
    op.owner = &done;
    if (nodes[0]->dev->send(1, op) == SendResult::queued) ++queued;
    if (i == 0) {  // connect first, so later sends write at once until the socket is full
      ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1; }));
      nodes[1]->frames.clear();
    }
    nodes[0]->dev->poll();  // the sender alone makes progress
  }
  EXPECT_FALSE(nodes[0]->dev->idle());
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == ops.size() - 1 && done == queued; }, 30s));
  for (std::size_t i = 1; i < ops.size(); ++i) {
    const Frame& f = nodes[1]->frames[i - 1];
    const auto [at, len] = windows[i % windows.size()];
    ASSERT_EQ(header_value(f.header), i);
    if (len == 0) EXPECT_EQ(f.payload, contiguous) << "frame " << i;
    else EXPECT_TRUE(f.payload.size() == len && std::equal(f.payload.begin(), f.payload.end(), packed.begin() + std::ptrdiff_t(at)))
        << "frame " << i;
  }
  EXPECT_TRUE(nodes[0]->failures.empty());
}

// No staging copy: a gathered payload is read from its runs when it is written, not when it is
// sent. Bytes changed after send() returned queued and before they were written arrive changed.
TEST(TcpDevice, GatheredPayloadIsReadWhenWrittenNotWhenSent) {
  auto nodes = make_job(2);
  SendOp hello;
  set_header(hello, 1);
  nodes[0]->dev->send(1, hello);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1; }));  // connected
  // 32 MiB in runs of 1000 bytes (stride 1024): more than the socket buffers hold.
  const base::Strided block{0, 1000, 32 * 1024, 1024};
  std::vector<std::byte> memory = pattern(std::size_t(block.count) * 1024, 9);
  const base::Layout layout = base::strided_layout(memory.data(), block);
  SendOp op;
  set_header(op, 2);
  op.layout = &layout;
  op.payload_len = layout.bytes();
  int done = 0;
  op.on_done = DoneCounter::on_done;
  op.owner = &done;
  ASSERT_EQ(nodes[0]->dev->send(1, op), SendResult::queued);
  const std::size_t before = sizeof(wire::Prefix) + op.header_len;
  ASSERT_GT(op.progress, before);
  const std::size_t written = op.progress - before;  // payload bytes handed to the kernel
  ASSERT_LT(written, op.payload_len);
  std::vector<std::byte> expected(op.payload_len);
  base::gather(layout, 0, expected);
  for (std::size_t i = written; i < expected.size(); ++i) expected[i] = ~expected[i];
  for (std::size_t r = 0; r < block.count; ++r)  // change every byte of the layout not written yet
    for (std::size_t i = 0; i < block.length; ++i)
      if (r * block.length + i >= written) memory[r * 1024 + i] = ~memory[r * 1024 + i];
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 2 && done == 1; }, 30s));
  EXPECT_TRUE(nodes[1]->frames[1].payload == expected);
}

// on_frame answers with send(): 1000 round trips of ping-pong.
TEST(TcpDevice, SendFromInsideOnFrame) {
  auto nodes = make_job(2);
  constexpr int kRounds = 1000;
  std::vector<SendOp> pool(2 * kRounds + 2);
  std::vector<std::byte> payload = pattern(100, 3);
  int last = -1;
  bool ok = true;
  for (int r = 0; r < 2; ++r) {
    nodes[r]->hook = [&, r](int peer, std::span<const std::byte> h, std::span<const std::byte> p) {
      std::uint64_t v;
      std::memcpy(&v, h.data(), 8);
      ok = ok && int(v) == last + 1 && p.size() == payload.size() &&
           std::memcmp(p.data(), payload.data(), p.size()) == 0;
      last = int(v);
      if (v + 1 >= 2 * kRounds) return;
      SendOp& op = pool[v + 1];
      set_header(op, v + 1);
      op.payload = payload.data();
      op.payload_len = payload.size();
      nodes[r]->dev->send(peer, op);
    };
  }
  set_header(pool[0], 0);
  pool[0].payload = payload.data();
  pool[0].payload_len = payload.size();
  nodes[0]->dev->send(1, pool[0]);
  ASSERT_TRUE(pump(nodes, [&] { return last == 2 * kRounds - 1; }));
  EXPECT_TRUE(ok);
}

// on_done answers with send() too (queued ops finishing inside poll()).
TEST(TcpDevice, SendFromInsideOnDone) {
  auto nodes = make_job(2);
  struct Chain {
    TcpDevice* dev;
    int sent = 0;
    SendOp ops[100]{};
  } chain{nodes[0]->dev.get(), 0, {}};
  auto on_done = [](SendOp& op) {
    auto* c = static_cast<Chain*>(op.owner);
    while (c->sent < 100) {
      SendOp& next = c->ops[c->sent];
      set_header(next, std::uint64_t(c->sent++));
      next.owner = c;
      next.on_done = op.on_done;
      if (c->dev->send(1, next) == SendResult::queued) break;
    }
  };
  SendOp& first = chain.ops[chain.sent];
  set_header(first, std::uint64_t(chain.sent++));
  first.owner = &chain;
  first.on_done = on_done;
  ASSERT_EQ(chain.dev->send(1, first), SendResult::queued);  // not connected yet
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 100 && chain.dev->idle(); }));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(header_value(nodes[1]->frames[i].header), unsigned(i));
}

TEST(TcpDevice, PeerDeviceDestroyedIsReportedOnce) {
  auto nodes = make_job(3);
  SendOp op;
  set_header(op, 1);
  nodes[0]->dev->send(1, op);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1; }));
  nodes[1].reset();  // destroyed without shutdown(): like a crashed process
  ASSERT_TRUE(pump(nodes, [&] { return !nodes[0]->failures.empty(); }, 5s));
  // More traffic to the dead rank: dropped, no second report, no SIGPIPE.
  std::vector<std::byte> big = pattern(1 << 20, 1);
  SendOp more[4];
  for (auto& m : more) {
    set_header(m, 2);
    m.payload = big.data();
    m.payload_len = big.size();
    EXPECT_EQ(nodes[0]->dev->send(1, m), SendResult::done);
  }
  const auto until = Clock::now() + 200ms;
  while (Clock::now() < until) nodes[0]->dev->poll();
  ASSERT_EQ(nodes[0]->failures.size(), 1u);
  EXPECT_EQ(nodes[0]->failures[0].peer, 1);
  EXPECT_NE(nodes[0]->failures[0].why.find("rank 1"), std::string::npos)
      << nodes[0]->failures[0].why;
  EXPECT_TRUE(nodes[0]->dev->idle());
  // Other pairs are unaffected.
  SendOp op2;
  set_header(op2, 9);
  nodes[0]->dev->send(2, op2);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[2]->frames.size() == 1; }));
  EXPECT_TRUE(nodes[2]->failures.empty());
}

TEST(TcpDevice, QueuedOpsFinishWhenPeerFails) {
  auto nodes = make_job(2);
  SendOp hello;
  set_header(hello, 0);
  nodes[0]->dev->send(1, hello);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1; }));
  // Fill the pipe while rank 1 does not read, then kill rank 1.
  std::vector<std::byte> big = pattern(1 << 20, 5);
  std::vector<SendOp> ops(64);
  int done = 0, queued = 0;
  for (auto& op : ops) {
    set_header(op, 1);
    op.payload = big.data();
    op.payload_len = big.size();
    op.on_done = DoneCounter::on_done;
    op.owner = &done;
    if (nodes[0]->dev->send(1, op) == SendResult::queued) ++queued;
  }
  ASSERT_GT(queued, 0);
  nodes[1].reset();
  ASSERT_TRUE(pump(nodes, [&] { return !nodes[0]->failures.empty() && done == queued; }, 5s));
  EXPECT_EQ(nodes[0]->failures.size(), 1u);
  EXPECT_TRUE(nodes[0]->dev->idle());
}

TEST(TcpDevice, UnreachablePeerIsReported) {
  auto nodes = make_job(2);
  // Rank 1's listener goes away before rank 0 ever connects: connection refused.
  nodes[1].reset();
  SendOp op;
  set_header(op, 1);
  int done = 0;
  op.on_done = DoneCounter::on_done;
  op.owner = &done;
  EXPECT_EQ(nodes[0]->dev->send(1, op), SendResult::queued);
  ASSERT_TRUE(pump(nodes, [&] { return !nodes[0]->failures.empty() && done == 1; }, 5s));
  EXPECT_NE(nodes[0]->failures[0].why.find("rank 1"), std::string::npos);
}

TEST(TcpDevice, NoFailureAfterShutdown) {
  auto nodes = make_job(3);
  SendOp ops[6];
  int k = 0;
  for (int s = 0; s < 3; ++s)
    for (int d = 0; d < 3; ++d)
      if (s != d) {
        set_header(ops[k], 1);
        nodes[s]->dev->send(d, ops[k++]);
      }
  ASSERT_TRUE(pump(nodes, [&] {
    for (auto& n : nodes)
      if (n->frames.size() != 2 || !n->dev->idle()) return false;
    return true;
  }));
  // Rank 1 shuts down first; the others keep polling: its goodbye means no failure.
  nodes[1]->dev->shutdown();
  auto until = Clock::now() + 300ms;
  while (Clock::now() < until)
    for (auto& n : nodes) n->dev->poll();
  EXPECT_EQ(nodes[1]->dev->poll(), 0);
  nodes[0]->dev->shutdown();
  nodes[2]->dev->shutdown();
  until = Clock::now() + 100ms;
  while (Clock::now() < until)
    for (auto& n : nodes) n->dev->poll();
  nodes.clear();  // destroying shut-down devices reports nothing either
  SUCCEED();
}

TEST(TcpDevice, NoFailureReportedByShutDownDevice) {
  auto nodes = make_job(2);
  SendOp op;
  set_header(op, 1);
  nodes[0]->dev->send(1, op);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->frames.size() == 1; }));
  nodes[0]->dev->shutdown();
  nodes[1].reset();  // abrupt end of the peer after our shutdown
  for (int i = 0; i < 100; ++i) nodes[0]->dev->poll();
  EXPECT_TRUE(nodes[0]->failures.empty());
}

TEST(TcpDevice, WaitReturnsOnArrivalAndOnTimeout) {
  auto nodes = make_job(2);
  auto t0 = Clock::now();
  nodes[1]->dev->wait(20ms);
  EXPECT_GE(Clock::now() - t0, 15ms);
  SendOp op;
  set_header(op, 5);
  nodes[0]->dev->send(1, op);
  // Rank 1 sleeps in wait() until the connection/frame shows up.
  const auto end = Clock::now() + 5s;
  while (nodes[1]->frames.empty() && Clock::now() < end) {
    nodes[0]->dev->poll();
    nodes[1]->dev->wait(1ms);
    nodes[1]->dev->poll();
  }
  ASSERT_EQ(nodes[1]->frames.size(), 1u);
  // Another thread drives rank 0 (devices are independent objects) and sends after 50 ms;
  // rank 1's wait(2 s) must return early.
  std::thread sender([&] {
    std::this_thread::sleep_for(50ms);
    SendOp op2;
    set_header(op2, 6);
    nodes[0]->dev->send(1, op2);
    const auto stop = Clock::now() + 500ms;
    while (Clock::now() < stop) nodes[0]->dev->poll();
  });
  t0 = Clock::now();
  nodes[1]->dev->wait(2s);
  const auto waited = Clock::now() - t0;
  sender.join();
  EXPECT_LT(waited, 1s);
  EXPECT_GE(waited, 30ms);
}

// A real process killed with SIGKILL.
TEST(TcpDevice, KilledProcessIsReported) {
  int to_child[2], to_parent[2];
  ASSERT_EQ(pipe(to_child), 0);
  ASSERT_EQ(pipe(to_parent), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Child: rank 1. Echoes every frame back to rank 0 until killed.
    close(to_child[1]);
    close(to_parent[0]);
    TcpDevice dev(1, 2, test_settings(), bind_of(test_settings()));
    const std::string mine = dev.local_address();
    char buf[128] = {};
    if (write(to_parent[1], mine.c_str(), mine.size() + 1) < 0) _exit(2);
    if (read(to_child[0], buf, sizeof buf - 1) <= 0) _exit(3);
    PeerAddress peer{0, -1, 0, buf};
    dev.connect(std::span<const PeerAddress>(&peer, 1), Bootstrap{});
    struct Echo {
      TcpDevice* dev;
      SendOp ops[1024]{};
      int n = 0;
    } echo{&dev, {}, 0};
    dev.set_handler(FrameHandler{
        &echo,
        [](void* ctx, int peer, std::span<const std::byte> h, std::span<const std::byte>, ReadHint) {
          auto* e = static_cast<Echo*>(ctx);
          SendOp& op = e->ops[e->n++ % 1024];
          std::memcpy(op.header.data(), h.data(), h.size());
          op.header_len = std::uint32_t(h.size());
          e->dev->send(peer, op);
        },
        nullptr});
    for (;;) {
      dev.poll();
      dev.wait(1ms);
    }
  }
  close(to_child[0]);
  close(to_parent[1]);
  std::vector<std::unique_ptr<Node>> nodes;
  auto node = std::make_unique<Node>();
  node->rank = 0;
  node->dev = std::make_unique<TcpDevice>(0, 2, test_settings(), bind_of(test_settings()));
  node->dev->set_handler(FrameHandler{node.get(), &Node::on_frame, &Node::on_failed});
  const std::string mine = node->dev->local_address();
  char buf[128] = {};
  ASSERT_GT(read(to_parent[0], buf, sizeof buf - 1), 0);
  ASSERT_EQ(write(to_child[1], mine.c_str(), mine.size() + 1), ssize_t(mine.size() + 1));
  PeerAddress peer{1, -1, pid, buf};
  node->dev->connect(std::span<const PeerAddress>(&peer, 1), Bootstrap{});
  nodes.push_back(std::move(node));
  SendOp op;
  set_header(op, 77);
  nodes[0]->dev->send(1, op);
  const bool echoed = pump(nodes, [&] { return nodes[0]->frames.size() == 1; }, 5s);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  close(to_child[1]);
  close(to_parent[0]);
  ASSERT_TRUE(echoed);
  EXPECT_EQ(header_value(nodes[0]->frames[0].header), 77u);
  ASSERT_TRUE(pump(nodes, [&] { return !nodes[0]->failures.empty(); }, 5s));
  EXPECT_EQ(nodes[0]->failures.size(), 1u);
  EXPECT_EQ(nodes[0]->failures[0].peer, 1);
  EXPECT_NE(nodes[0]->failures[0].why.find("rank 1"), std::string::npos)
      << nodes[0]->failures[0].why;
  EXPECT_NE(nodes[0]->failures[0].why.find(buf), std::string::npos);  // names the address
}

}  // namespace
}  // namespace railmpi::device::tcp
