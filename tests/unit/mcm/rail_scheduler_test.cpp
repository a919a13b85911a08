// The rail scheduler over real channels: two "ranks" in one process, each with two tcp
// channels on loopback rails (127.0.0.1 and 127.0.0.2), driven from the test thread.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/settings.hpp"
#include "mcm/rails/scheduler.hpp"

namespace railmpi::mcm::rails {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Received {
  std::vector<std::uint32_t> ids;  // ordered frames: header value, arrival order
  std::vector<std::vector<std::byte>> payloads;
  std::vector<std::byte> placed;   // placeable frames: bytes put at header offset + part offset
  std::size_t placed_bytes = 0;
  int parts = 0;
  bool expect_failure = false;
  std::vector<std::string> failures;

  static void on_frame(void* ctx, int, std::span<const std::byte> h, std::span<const std::byte> p,
                       device::ReadHint) {
    auto* r = static_cast<Received*>(ctx);
    std::uint32_t id = 0;
    std::memcpy(&id, h.data(), sizeof id);
    r->ids.push_back(id);
    r->payloads.emplace_back(p.begin(), p.end());
  }
  static void on_part(void* ctx, int, std::span<const std::byte> h, std::size_t part_offset,
                      std::span<const std::byte> p) {
    auto* r = static_cast<Received*>(ctx);
    std::uint64_t base = 0;
    std::memcpy(&base, h.data(), sizeof base);
    std::memcpy(r->placed.data() + base + part_offset, p.data(), p.size());
    r->placed_bytes += p.size();
    ++r->parts;
  }
  static void on_failed(void* ctx, int peer, std::string_view why) {
    auto* r = static_cast<Received*>(ctx);
    if (!r->expect_failure) ADD_FAILURE() << "peer " << peer << " failed: " << why;
    r->failures.emplace_back(why);
  }
};

struct Node {
  std::vector<Channel> channels;
  std::unique_ptr<Scheduler> scheduler;
  Received got;
};

in_addr ip(const char* text) {
  in_addr a{};
  inet_pton(AF_INET, text, &a);
  return a;
}

// Two ranks, two channels each, the given policy.
std::vector<std::unique_ptr<Node>> make_pair(Policy policy, int bind = -1, std::size_t threshold = 16384) {
  base::Settings settings{};
  settings.tcp_eager_limit = 64 * 1024;
  const char* rails[] = {"127.0.0.1", "127.0.0.2"};
  std::vector<std::unique_ptr<Node>> nodes;
  for (int r = 0; r < 2; ++r) {
    auto node = std::make_unique<Node>();
    for (int c = 0; c < 2; ++c) {
      Channel ch;
      ch.device = std::make_unique<device::tcp::TcpDevice>(r, 2, settings, ip(rails[c]));
      ch.rail = c;
      ch.address = ip(rails[c]);
      ch.prefix = 8;
      ch.where = rails[c];
      node->channels.push_back(std::move(ch));
    }
    node->scheduler = std::make_unique<Scheduler>(r, 2, policy, bind, threshold, node->channels);
    node->scheduler->set_upper(device::FrameHandler{&node->got, &Received::on_frame, &Received::on_failed,
                                                    &Received::on_part});
    nodes.push_back(std::move(node));
  }
  for (int r = 0; r < 2; ++r) {
    Node& me = *nodes[r];
    Node& other = *nodes[1 - r];
    for (int c = 0; c < 2; ++c) {
      device::PeerAddress pa{1 - r, -1, 0, other.channels[c].device->local_address()};
      me.channels[c].device->connect(std::span(&pa, 1), device::Bootstrap{});
      me.channels[c].device->set_handler(me.scheduler->channel_handler(c));
    }
    me.scheduler->add_peer(1 - r, {{0, 0}, {1, 1}});
  }
  return nodes;
}

bool pump(std::vector<std::unique_ptr<Node>>& nodes, const std::function<bool()>& done) {
  const auto end = Clock::now() + 20s;
  while (!done()) {
    if (Clock::now() > end) return false;
    for (auto& n : nodes) {
      int events = 0;
      for (auto& c : n->channels)
        if (c.device) events += c.device->poll();
      n->scheduler->tick(events == 0);
    }
  }
  return true;
}

struct Counter {
  static void on_done(device::SendOp& op) { ++*static_cast<int*>(op.owner); }
};

std::vector<std::byte> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<std::byte> v(n);
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1103515245u + 12345u;
    b = std::byte(x >> 24);
  }
  return v;
}

// An ordered frame whose 40-byte header starts with its number; on_done counts into `done`.
void numbered_frame(device::SendOp& op, std::uint32_t id, const std::vector<std::byte>& payload, int& done) {
  std::memcpy(op.header.data(), &id, sizeof id);
  op.header_len = 40;
  op.payload = payload.data();
  op.payload_len = payload.size();
  op.on_done = Counter::on_done;
  op.owner = &done;
}

TEST(RailScheduler, RoundRobinOrderedFramesArriveInOrderOverBothChannels) {
  auto nodes = make_pair(Policy::round_robin);
  constexpr int kFrames = 3000;
  std::vector<device::SendOp> ops(kFrames);
  std::vector<std::vector<std::byte>> data;
  int done = 0, queued = 0;
  for (int i = 0; i < kFrames; ++i) data.push_back(pattern(std::size_t(i * 37) % 40000, std::uint32_t(i)));
  for (int i = 0; i < kFrames; ++i) {
    device::SendOp& op = ops[i];
    numbered_frame(op, std::uint32_t(i), data[i], done);
    if (nodes[0]->scheduler->send(1, op) == device::SendResult::queued) ++queued;
  }
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == kFrames && done == queued; }));
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_EQ(nodes[1]->got.ids[i], std::uint32_t(i));
    ASSERT_EQ(nodes[1]->got.payloads[i], data[i]) << "frame " << i;
  }
  EXPECT_EQ(nodes[0]->channels[0].stats.frames, kFrames / 2);
  EXPECT_EQ(nodes[0]->channels[1].stats.frames, kFrames / 2);
  EXPECT_EQ(nodes[1]->scheduler->held(), 0u);
}

// A placeable frame of `bytes` from node 0; returns after node 1 placed it all.
void send_placeable(std::vector<std::unique_ptr<Node>>& nodes, std::size_t bytes, device::Marker marker,
                    int expected_parts) {
  const auto data = pattern(bytes, 99);
  nodes[1]->got.placed.assign(bytes + 1000, std::byte{0});
  device::SendOp op;
  const std::uint64_t base = 1000;  // where the receiver places it (a data frame's offset)
  std::memcpy(op.header.data(), &base, sizeof base);
  op.header_len = 40;
  op.payload = data.data();
  op.payload_len = bytes;
  op.placeable = true;
  op.marker = marker;
  int done = 0;
  op.on_done = Counter::on_done;
  op.owner = &done;
  const bool queued = nodes[0]->scheduler->send(1, op) == device::SendResult::queued;
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.placed_bytes == bytes && done == (queued ? 1 : 0); }));
  EXPECT_TRUE(std::equal(data.begin(), data.end(), nodes[1]->got.placed.begin() + base));
  EXPECT_EQ(nodes[1]->got.parts, expected_parts);
  EXPECT_TRUE(nodes[0]->scheduler->held() == 0);
  EXPECT_EQ(done, queued ? 1 : 0);  // on_done exactly once, and only when queued
}

TEST(RailScheduler, StripingSplitsAPlaceableFrameAcrossBothChannels) {
  auto nodes = make_pair(Policy::striping);
  send_placeable(nodes, 1 << 20, device::Marker::blocking, 2);
  EXPECT_EQ(nodes[0]->channels[0].stats.parts, 1u);
  EXPECT_EQ(nodes[0]->channels[1].stats.parts, 1u);
  EXPECT_EQ(nodes[0]->channels[0].stats.bytes + nodes[0]->channels[1].stats.bytes, std::uint64_t{1} << 20);
}

TEST(RailScheduler, StripingSendsSmallFramesWhole) {
  auto nodes = make_pair(Policy::striping);
  send_placeable(nodes, 16383, device::Marker::blocking, 1);
  EXPECT_EQ(nodes[0]->channels[0].stats.parts + nodes[0]->channels[1].stats.parts, 0u);
}

TEST(RailScheduler, EpcStripesBlockingAndRotatesNonBlocking) {
  auto nodes = make_pair(Policy::epc);
  send_placeable(nodes, 256 * 1024, device::Marker::collective, 2);
  nodes[1]->got.parts = 0;
  nodes[1]->got.placed_bytes = 0;
  send_placeable(nodes, 256 * 1024, device::Marker::nonblocking, 1);
}

TEST(RailScheduler, BindingUsesOnlyTheBoundChannel) {
  auto nodes = make_pair(Policy::binding, 1);
  send_placeable(nodes, 1 << 20, device::Marker::blocking, 1);
  EXPECT_EQ(nodes[0]->channels[0].stats.frames, 0u);
  EXPECT_EQ(nodes[0]->channels[1].stats.frames, 1u);
}

// Gathered payloads (SendOp::layout) through the scheduler: a placeable window of a layout striped
// across both channels (each part is the layout at the part's offset), a small ordered frame
// (copied for a resend: gathered into the copy, done at once, later changes of the source do not
// show) and a large ordered one (kept in place until acknowledged).
TEST(RailScheduler, GatheredPayloadsStripedCopiedAndInPlace) {
  auto nodes = make_pair(Policy::striping);
  const base::Strided block{0, 600, 4096, 1000};  // 2.4 MiB in runs of 600 bytes
  std::vector<std::byte> memory = pattern(4096 * 1000, 5);
  const base::Layout layout = base::strided_layout(memory.data(), block);
  std::vector<std::byte> packed(layout.bytes());
  for (std::size_t r = 0; r < block.count; ++r)
    std::memcpy(packed.data() + r * block.length, memory.data() + r * 1000, block.length);

  // Striped: bytes [12345, 12345 + 1 MiB) of the layout, placed at 1000 by the receiver.
  const std::size_t at = 12345, bytes = 1 << 20;
  nodes[1]->got.placed.assign(bytes + 1000, std::byte{0});
  device::SendOp striped;
  const std::uint64_t base = 1000;
  std::memcpy(striped.header.data(), &base, sizeof base);
  striped.header_len = 40;
  striped.layout = &layout;
  striped.layout_offset = at;
  striped.payload_len = bytes;
  striped.placeable = true;
  int striped_done = 0;
  striped.on_done = Counter::on_done;
  striped.owner = &striped_done;
  ASSERT_EQ(nodes[0]->scheduler->send(1, striped), device::SendResult::queued);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.placed_bytes == bytes && striped_done == 1; }));
  EXPECT_EQ(nodes[1]->got.parts, 2);
  EXPECT_TRUE(std::equal(packed.begin() + at, packed.begin() + at + bytes, nodes[1]->got.placed.begin() + 1000));

  // Ordered: a small window (copied) and the whole layout (in place).
  std::vector<device::SendOp> ops(2);
  int done = 0;
  const std::vector<std::byte> none;
  numbered_frame(ops[0], 0, none, done);
  ops[0].layout = &layout;
  ops[0].layout_offset = 777;
  ops[0].payload_len = 5000;
  numbered_frame(ops[1], 1, none, done);
  ops[1].layout = &layout;
  ops[1].payload_len = layout.bytes();
  ASSERT_EQ(nodes[0]->scheduler->send(1, ops[0]), device::SendResult::done);  // copied
  const std::byte kept = memory[2 * 1000];  // in the window's runs: byte 777 + 423 of the layout
  memory[2 * 1000] = ~kept;
  ASSERT_EQ(nodes[0]->scheduler->send(1, ops[1]), device::SendResult::queued);  // in place
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == 2 && done == 1; }));
  std::vector<std::byte> window(packed.begin() + 777, packed.begin() + 777 + 5000);
  EXPECT_EQ(window[1200 - 777], kept);
  EXPECT_TRUE(nodes[1]->got.payloads[0] == window);
  packed[1200] = ~kept;  // the in-place frame was gathered when written: it has the change
  EXPECT_TRUE(nodes[1]->got.payloads[1] == packed);
}

TEST(RailScheduler, LostPeerIsReportedOnceNamingTheChannel) {
  auto nodes = make_pair(Policy::round_robin);
  nodes[0]->got.expect_failure = true;
  // Connect both channels, then the peer vanishes abruptly (its devices are destroyed).
  std::vector<device::SendOp> ops(2);
  for (auto& op : ops) op.header_len = 8;
  for (auto& op : ops) nodes[0]->scheduler->send(1, op);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == 2; }));
  for (auto& c : nodes[1]->channels) c.device.reset();
  std::vector<std::unique_ptr<Node>> alive;
  alive.push_back(std::move(nodes[0]));
  ASSERT_TRUE(pump(alive, [&] {
    return alive[0]->channels[0].stats.failures + alive[0]->channels[1].stats.failures == 2;
  }));
  ASSERT_EQ(alive[0]->got.failures.size(), 1u);
  EXPECT_NE(alive[0]->got.failures[0].find("channel "), std::string::npos) << alive[0]->got.failures[0];
  EXPECT_NE(alive[0]->got.failures[0].find("127.0.0."), std::string::npos) << alive[0]->got.failures[0];
}

// Streams 2000 ordered frames from node 0 to node 1 over both channels; `cut` runs once node 1
// has 100 of them, halfway through the sends. Checks every frame arrived once, in order.
void stream_through_a_cut(std::vector<std::unique_ptr<Node>>& nodes, const std::function<void()>& cut) {
  constexpr int kFrames = 2000;
  std::vector<device::SendOp> ops(kFrames);
  std::vector<std::vector<std::byte>> data;
  int done = 0, queued = 0;
  for (int i = 0; i < kFrames; ++i) data.push_back(pattern(std::size_t(i * 53) % 100000, std::uint32_t(i)));
  for (int i = 0; i < kFrames; ++i) {
    device::SendOp& op = ops[i];
    numbered_frame(op, std::uint32_t(i), data[i], done);
    if (nodes[0]->scheduler->send(1, op) == device::SendResult::queued) ++queued;
    if (i == kFrames / 2) {
      ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() >= 100; }));
      cut();
    }
  }
  ASSERT_TRUE(pump(nodes, [&] {
    return nodes[1]->got.ids.size() >= kFrames && done == queued && nodes[0]->scheduler->unacked() == 0;
  }));
  ASSERT_EQ(nodes[1]->got.ids.size(), std::size_t(kFrames));  // nothing doubled
  for (int i = 0; i < kFrames; ++i) {
    ASSERT_EQ(nodes[1]->got.ids[i], std::uint32_t(i));
    ASSERT_EQ(nodes[1]->got.payloads[i], data[i]) << "frame " << i;
  }
}

// Failover: channel 1's connection is cut (the sender abandons it, as after a timeout) while
// ordered frames are in flight on both channels. Every frame arrives once, in order; what went
// on the cut channel and was not acknowledged is resent on channel 0; the channel rejoins.
TEST(RailScheduler, CutChannelLosesNothingDoublesNothingAndRejoins) {
  auto nodes = make_pair(Policy::round_robin);
  nodes[0]->got.expect_failure = true;
  nodes[1]->got.expect_failure = true;
  stream_through_a_cut(nodes, [&] { nodes[0]->channels[1].device->abandon(1, "cut by the test"); });
  EXPECT_EQ(nodes[0]->channels[1].stats.failures, 1u);
  EXPECT_GT(nodes[0]->channels[1].stats.retransmits, 0u);
  EXPECT_TRUE(nodes[0]->got.failures.empty());  // one channel left: the peer is not failed
  // The cut channel reconnects and is back in service on both sides.
  ASSERT_TRUE(pump(nodes, [&] {
    return nodes[0]->scheduler->lanes_in_service(1) == 2 && nodes[1]->scheduler->lanes_in_service(0) == 2;
  }));
}

// A striped frame whose part on channel 1 is cut: the part is resent on channel 0, the frame
// is placed exactly once, the caller's op finishes once.
TEST(RailScheduler, CutChannelDuringAStripedFrameResendsItsPart) {
  auto nodes = make_pair(Policy::striping);
  nodes[0]->got.expect_failure = true;
  nodes[1]->got.expect_failure = true;
  constexpr std::size_t kBytes = 8 << 20;
  const auto data = pattern(kBytes, 7);
  nodes[1]->got.placed.assign(kBytes + 1000, std::byte{0});
  device::SendOp op;
  const std::uint64_t base = 1000;
  std::memcpy(op.header.data(), &base, sizeof base);
  op.header_len = 40;
  op.payload = data.data();
  op.payload_len = kBytes;
  op.placeable = true;
  int done = 0;
  op.on_done = Counter::on_done;
  op.owner = &done;
  ASSERT_EQ(nodes[0]->scheduler->send(1, op), device::SendResult::queued);
  nodes[0]->channels[1].device->abandon(1, "cut by the test");
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.placed_bytes >= kBytes && done == 1; }));
  EXPECT_EQ(nodes[1]->got.placed_bytes, kBytes);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), nodes[1]->got.placed.begin() + base));
  EXPECT_EQ(nodes[0]->channels[1].stats.retransmits, 1u);
  EXPECT_EQ(done, 1);
}

// Pumps for `d` whatever happens.
void pump_for(std::vector<std::unique_ptr<Node>>& nodes, std::chrono::milliseconds d) {
  const auto end = Clock::now() + d;
  pump(nodes, [&] { return Clock::now() >= end; });
}

// A link event: node 0's interface of channel 1 goes down while ordered frames are in flight.
// Node 0 fails the channel at once and tells node 1 over channel 0, so node 1 fails its end too
// and, unlike after a plain reset, does not reconnect: it waits for node 0, which reconnects
// when its interface is up again. Every frame arrives once, in order.
TEST(RailScheduler, LinkDownFailsBothEndsAndOnlyTheOwnerReconnectsWhenUp) {
  auto nodes = make_pair(Policy::round_robin);
  nodes[0]->got.expect_failure = true;
  nodes[1]->got.expect_failure = true;
  stream_through_a_cut(nodes, [&] {
    nodes[0]->scheduler->channel_down(1, "interface test1 set down");
    EXPECT_EQ(nodes[0]->scheduler->lanes_in_service(1), 1u);  // at once, not at the next check
  });
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->scheduler->lanes_in_service(0) == 1; }));
  // Well past the first reconnection step (100 ms): neither side tried again.
  pump_for(nodes, 500ms);
  EXPECT_EQ(nodes[0]->scheduler->lanes_in_service(1), 1u);
  EXPECT_EQ(nodes[1]->scheduler->lanes_in_service(0), 1u);
  EXPECT_EQ(nodes[0]->channels[1].stats.failures, 1u);
  EXPECT_EQ(nodes[1]->channels[1].stats.failures, 1u);
  EXPECT_TRUE(nodes[0]->got.failures.empty());
  EXPECT_TRUE(nodes[1]->got.failures.empty());

  nodes[0]->scheduler->channel_up(1);
  ASSERT_TRUE(pump(nodes, [&] {
    return nodes[0]->scheduler->lanes_in_service(1) == 2 && nodes[1]->scheduler->lanes_in_service(0) == 2;
  }));
  // Both channels carry traffic again.
  const auto before = nodes[0]->channels[1].stats.frames;
  const std::size_t had = nodes[1]->got.ids.size();
  int more = 0, more_queued = 0;
  std::vector<device::SendOp> again(200);
  const auto payload = pattern(1000, 3);
  for (int i = 0; i < 200; ++i) {
    numbered_frame(again[i], std::uint32_t(had + i), payload, more);
    if (nodes[0]->scheduler->send(1, again[i]) == device::SendResult::queued) ++more_queued;
  }
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == had + 200 && more == more_queued; }));
  for (std::size_t i = 0; i < 200; ++i) ASSERT_EQ(nodes[1]->got.ids[had + i], std::uint32_t(had + i));
  EXPECT_EQ(nodes[0]->channels[1].stats.frames, before + 100);
}

// A link event on a channel that never carried traffic to the peer: taken out of use and given
// back without a connection, a notice or a failure.
TEST(RailScheduler, LinkDownOnAnUnusedChannelConnectsNothing) {
  auto nodes = make_pair(Policy::round_robin);
  nodes[0]->scheduler->channel_down(1, "interface test1 set down");
  EXPECT_EQ(nodes[0]->scheduler->lanes_in_service(1), 1u);
  pump_for(nodes, 200ms);
  EXPECT_EQ(nodes[1]->scheduler->lanes_in_service(0), 2u);
  for (auto& n : nodes)
    for (auto& c : n->channels) EXPECT_FALSE(c.device->in_use(1 - int(&n - nodes.data())));
  EXPECT_EQ(nodes[0]->channels[1].stats.failures, 0u);
  nodes[0]->scheduler->channel_up(1);
  EXPECT_EQ(nodes[0]->scheduler->lanes_in_service(1), 2u);
  // Traffic then uses both channels.
  int done = 0;
  std::vector<device::SendOp> ops(10);
  const auto payload = pattern(100, 1);
  for (int i = 0; i < 10; ++i) {
    numbered_frame(ops[i], std::uint32_t(i), payload, done);
    nodes[0]->scheduler->send(1, ops[i]);
  }
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == 10; }));
  EXPECT_EQ(nodes[0]->channels[1].stats.frames, 5u);
}

// Every channel cut: the peer is reported failed once, naming every channel.
TEST(RailScheduler, AllChannelsCutReportsThePeerNamingEveryChannel) {
  auto nodes = make_pair(Policy::round_robin);
  nodes[0]->got.expect_failure = true;
  nodes[1]->got.expect_failure = true;
  device::SendOp op;
  op.header_len = 8;
  nodes[0]->scheduler->send(1, op);
  ASSERT_TRUE(pump(nodes, [&] { return nodes[1]->got.ids.size() == 1; }));
  for (auto& c : nodes[1]->channels) c.device.reset();
  std::vector<std::unique_ptr<Node>> alive;
  alive.push_back(std::move(nodes[0]));
  ASSERT_TRUE(pump(alive, [&] { return !alive[0]->got.failures.empty(); }));
  ASSERT_EQ(alive[0]->got.failures.size(), 1u);
  const std::string& why = alive[0]->got.failures[0];
  EXPECT_NE(why.find("rank 1"), std::string::npos) << why;
  EXPECT_NE(why.find("channel 0 (127.0.0.1)"), std::string::npos) << why;
  EXPECT_NE(why.find("channel 1 (127.0.0.2)"), std::string::npos) << why;
}

}  // namespace
}  // namespace railmpi::mcm::rails
