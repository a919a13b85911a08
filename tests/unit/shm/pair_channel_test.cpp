// The pair channel alone: inline frames in the cell ring, larger ones announced with their
// payload in the packet ring; order, boundaries, both rings full, producer/consumer threads.
#include "device/shm/pair_channel.hpp"

#include "frame_budget.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

using namespace railmpi::device::shm;

namespace {

struct ChannelMemory {
  ChannelMemory(std::size_t cells, std::size_t packet_cells)
      : cells(cells), packet_cells(packet_cells), bytes(channel_memory_bytes(cells, packet_cells)) {
    mem = static_cast<std::byte*>(std::aligned_alloc(4096, bytes));
    std::memset(mem, 0, bytes);
  }
  ~ChannelMemory() { std::free(mem); }
  // The seq word of the packet ring's first cell: non-zero once a packet was written there.
  std::uint64_t first_packet_seq() const {
    std::uint64_t v;
    std::memcpy(&v, mem + ring_memory_bytes(cells) + kRingCellsOffset, sizeof v);
    return v;
  }
  std::size_t cells, packet_cells, bytes;
  std::byte* mem;
};

// A channel's memory with its producer and consumer attached.
struct AttachedChannel {
  AttachedChannel(std::size_t cells, std::size_t packet_cells) : m(cells, packet_cells) {
    p.attach(m.mem, m.cells, m.packet_cells);
    c.attach(m.mem, m.cells, m.packet_cells);
  }
  ChannelMemory m;
  ChannelProducer p;
  ChannelConsumer c;
};

std::byte pattern(std::uint64_t frame, std::size_t i) {
  return static_cast<std::byte>((frame * 131 + i * 7 + 3) & 0xff);
}

struct Frame {
  std::vector<std::byte> header, payload;
};

Frame make_frame(std::uint64_t n, std::uint32_t header_len, std::size_t payload_len) {
  Frame f{std::vector<std::byte>(header_len), std::vector<std::byte>(payload_len)};
  std::memcpy(f.header.data(), &n, 8);
  for (std::size_t i = 8; i < header_len; ++i) f.header[i] = pattern(n, i);
  for (std::size_t i = 0; i < payload_len; ++i) f.payload[i] = pattern(n + 1, i);
  return f;
}

bool write(ChannelProducer& p, const Frame& f) {
  return p.try_write(f.header.data(), std::uint32_t(f.header.size()), f.payload.data(), f.payload.size(),
                     std::memory_order_release);
}

// Drains everything and compares with `expect` from index `next`; returns frames delivered.
int drain_all(ChannelConsumer& c, const std::vector<Frame>& expect, std::size_t& next) {
  auto r = c.drain(
      [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
        ASSERT_LT(next, expect.size());
        const Frame& e = expect[next++];
        ASSERT_EQ(h.size(), e.header.size());
        ASSERT_EQ(pl.size(), e.payload.size());
        EXPECT_EQ(std::memcmp(h.data(), e.header.data(), h.size()), 0);
        EXPECT_TRUE(pl.empty() || std::memcmp(pl.data(), e.payload.data(), pl.size()) == 0);
      },
      1 << 20);
  return r.frames;
}

}  // namespace

TEST(ShmPairChannel, InlineBoundary) {
  // A frame of exactly kInlineFrameCells cells stays inline; one byte more is announced.
  const std::size_t inline_max = kInlineFrameCells * kCellBytes - kCellHeaderBytes - 16;
  EXPECT_TRUE(inline_frame(16, inline_max));
  EXPECT_FALSE(inline_frame(16, inline_max + 1));
  EXPECT_TRUE(inline_frame(0, 0));
  EXPECT_LE(kInlineFrameCells + 0, max_frame_cells(64));

  AttachedChannel ch(64, 256);
  auto& [m, p, c] = ch;
  std::vector<Frame> frames{make_frame(0, 16, inline_max)};
  ASSERT_TRUE(write(p, frames[0]));
  EXPECT_EQ(m.first_packet_seq(), 0u) << "an inline frame must not touch the packet ring";
  frames.push_back(make_frame(1, 16, inline_max + 1));
  ASSERT_TRUE(write(p, frames[1]));
  EXPECT_EQ(m.first_packet_seq(), 1u) << "an announced frame's payload goes to the packet ring";
  std::size_t next = 0;
  EXPECT_EQ(drain_all(c, frames, next), 2);
  EXPECT_EQ(next, 2u);
}

TEST(ShmPairChannel, PacketPayloadsStartOnACacheLine) {
  AttachedChannel ch(64, 1024);  // 4 KiB of cells, 64 KiB of packets: the packet ring wraps
  auto& [m, p, c] = ch;
  std::mt19937 rng(3);
  int packets = 0;
  for (std::uint64_t n = 0; n < 300; ++n) {
    const Frame f = make_frame(n, 8 + rng() % 33, 1000 + rng() % 9000);  // inline and announced
    ASSERT_TRUE(write(p, f));
    c.drain(
        [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
          ASSERT_EQ(pl.size(), f.payload.size());
          EXPECT_EQ(std::memcmp(h.data(), f.header.data(), h.size()), 0);
          EXPECT_EQ(std::memcmp(pl.data(), f.payload.data(), pl.size()), 0);
          if (inline_frame(h.size(), pl.size())) return;
          ++packets;
          EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pl.data()) % kCellBytes, 0u) << "frame " << n;
        },
        1);
  }
  EXPECT_GT(packets, 250);
}

// A packet written in a stream (nothing heard from the consumer's side since the last packet)
// comes flagged kStreamed; if the producer had not published its next frame when the consumer
// reads it, kWriterAhead too (the producer may be writing just past it). The consumer adds
// kWriterAhead: the producer never writes it.
TEST(ShmPairChannel, StreamedPacketNotYetFollowedIsFlaggedWriterAhead) {
  AttachedChannel ch(64, 1024);
  auto& [m, p, c] = ch;
  std::vector<Frame> frames;
  std::vector<std::uint8_t> flags;
  auto drain = [&] {
    return c.drain(
        [&](std::span<const std::byte> h, std::span<const std::byte> pl, std::uint8_t fl) {
          ASSERT_LT(flags.size(), frames.size());
          const Frame& e = frames[flags.size()];
          ASSERT_EQ(pl.size(), e.payload.size());
          EXPECT_EQ(std::memcmp(h.data(), e.header.data(), h.size()), 0);
          EXPECT_EQ(std::memcmp(pl.data(), e.payload.data(), pl.size()), 0);
          flags.push_back(fl);
        },
        100);
  };
  auto send = [&](std::size_t payload_len) {
    frames.push_back(make_frame(frames.size(), 24, payload_len));
    return write(p, frames.back());
  };
  // Before one drain: packet (the first: not in a stream), packet, inline, packet.
  ASSERT_TRUE(send(4096));
  ASSERT_TRUE(send(2000));
  ASSERT_TRUE(send(100));
  ASSERT_TRUE(send(5000));
  EXPECT_EQ(drain().frames, 4);
  ASSERT_EQ(flags.size(), 4u);
  EXPECT_EQ(flags[0], kAnnounced) << "nothing written before it: not a stream";
  EXPECT_EQ(flags[1], kAnnounced | kStreamed) << "followed by frame 2";
  EXPECT_EQ(flags[2], 0) << "an inline frame";
  EXPECT_EQ(flags[3], kAnnounced | kStreamed | kWriterAhead) << "the last frame written";
  // Still nothing heard: the next packet streams, and is the last one written when it is read.
  ASSERT_TRUE(send(3000));
  EXPECT_EQ(drain().frames, 1);
  EXPECT_EQ(flags.back(), kAnnounced | kStreamed | kWriterAhead);
  // A frame from the consumer's side (a ping-pong's answer): the next packet is no stream.
  p.heard();
  ASSERT_TRUE(send(3000));
  EXPECT_EQ(drain().frames, 1);
  EXPECT_EQ(flags.back(), kAnnounced);
}

TEST(ShmPairChannel, MixedFramesKeepOrderThroughManyLaps) {
  AttachedChannel ch(64, 256);  // 4 KiB cells, 16 KiB packets: both rings wrap often
  auto& [m, p, c] = ch;
  std::mt19937 rng(11);
  std::vector<Frame> frames;
  std::size_t next = 0;
  const std::size_t maxp = channel_max_payload(m.packet_cells);
  for (int round = 0; round < 2000; ++round) {
    const std::size_t at = frames.size();
    // Write until a frame is refused (the channel is full), then drain and write it again.
    for (;;) {
      const std::size_t n = frames.size();
      const std::size_t pl = rng() % 3 == 0 ? rng() % (maxp + 1) : rng() % 1100;
      frames.push_back(make_frame(n, 8 + rng() % 57, pl));
      if (!write(p, frames.back())) break;
    }
    const Frame refused = frames.back();
    frames.pop_back();
    ASSERT_GT(frames.size(), at) << "an empty channel refused a frame";
    drain_all(c, frames, next);
    ASSERT_EQ(next, frames.size());
    ASSERT_TRUE(write(p, refused)) << "a drained channel refused a frame";
    frames.push_back(refused);
  }
  drain_all(c, frames, next);
  EXPECT_EQ(next, frames.size());
}

TEST(ShmPairChannel, FullPacketRingRefusesAnnouncedButNotInlineFrames) {
  AttachedChannel ch(256, 64);  // many cells, a 4 KiB packet ring
  auto& [m, p, c] = ch;
  std::vector<Frame> frames;
  const std::size_t big = channel_max_payload(m.packet_cells);  // 1 KiB: announced
  ASSERT_FALSE(inline_frame(16, big));
  while (true) {
    Frame f = make_frame(frames.size(), 16, big);
    if (!write(p, f)) break;
    frames.push_back(f);
  }
  ASSERT_GE(frames.size(), 2u);
  ASSERT_LT(frames.size(), 8u) << "the packet ring, not the cell ring, must be what is full";
  EXPECT_FALSE(p.can_write(16, big, std::memory_order_acquire));
  EXPECT_TRUE(p.can_write(16, 8, std::memory_order_acquire));
  frames.push_back(make_frame(frames.size(), 16, 8));  // inline frames still fit
  ASSERT_TRUE(write(p, frames.back()));
  std::size_t next = 0;
  drain_all(c, frames, next);
  EXPECT_EQ(next, frames.size());
  EXPECT_TRUE(p.can_write(16, big, std::memory_order_acquire));
}

TEST(ShmPairChannel, FullCellRingRefusesAnnouncedFramesWithoutWritingThePacket) {
  AttachedChannel ch(64, 4096);  // 64 cells, a 256 KiB packet ring
  auto& [m, p, c] = ch;
  std::vector<Frame> frames;
  while (true) {
    Frame f = make_frame(frames.size(), 16, 0);  // one cell each
    if (!write(p, f)) break;
    frames.push_back(f);
  }
  const Frame announced = make_frame(frames.size(), 16, 4000);
  EXPECT_FALSE(write(p, announced));
  EXPECT_EQ(m.first_packet_seq(), 0u) << "a refused frame must leave the packet ring alone";
  std::size_t next = 0;
  drain_all(c, frames, next);
  ASSERT_TRUE(write(p, announced));
  frames.push_back(announced);
  drain_all(c, frames, next);
  EXPECT_EQ(next, frames.size());
}

// A packet ring larger than the first window starts with it; one of its size keeps it whole.
TEST(ShmPairChannel, PacketRingStartsWithAWindow) {
  ChannelMemory big(64, 4 * kPacketWindowCells), small(64, kPacketWindowCells);
  ChannelProducer p, q;
  p.attach(big.mem, big.cells, big.packet_cells);
  q.attach(small.mem, small.cells, small.packet_cells);
  EXPECT_EQ(p.packet_window(), kPacketWindowCells);
  EXPECT_EQ(q.packet_window(), kPacketWindowCells);
  ChannelConsumer c;
  c.attach(big.mem, big.cells, big.packet_cells);
  std::vector<Frame> frames;
  std::size_t next = 0;
  for (std::uint64_t n = 0; n < 200; ++n) {  // 4 KiB packets, drained at once
    frames.push_back(make_frame(n, 16, 4000));
    ASSERT_TRUE(write(p, frames.back()));
    drain_all(c, frames, next);
    if (n % 50 == 49) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(next, frames.size());
}

// Packets written back to back stream: fast laps of them give the whole ring. With a frame from
// the consumer's side heard between any two (a ping-pong) the window stays.
TEST(ShmPairChannel, OnlyAStreamOfPacketsGrowsTheWindow) {
  for (const bool ping_pong : {true, false}) {
    ChannelMemory m(64, 4 * kPacketWindowCells);
    ChannelProducer p;
    ChannelConsumer c;
    p.attach(m.mem, m.cells, m.packet_cells);
    c.attach(m.mem, m.cells, m.packet_cells);
    // 60000-byte packets, four to a lap of the window (a lap stays under kFastLap in sanitizer
    // builds too), drained at once: 50 laps.
    std::vector<Frame> frames;
    for (std::uint64_t n = 0; n < 200; ++n) frames.push_back(make_frame(n, 16, 60000));
    std::size_t next = 0;
    for (const Frame& f : frames) {
      ASSERT_TRUE(write(p, f));
      drain_all(c, frames, next);
      if (ping_pong) p.heard();
    }
    EXPECT_EQ(next, frames.size());
    EXPECT_EQ(p.packet_window(), ping_pong ? kPacketWindowCells : 4 * kPacketWindowCells) << "ping-pong " << ping_pong;
  }
}

TEST(ShmPairChannel, ThreadsRandomSizes) {
  AttachedChannel ch(128, 1024);
  auto& [m, p, c] = ch;
  test_support::FrameBudget budget(400'000, 20'000);
  const std::size_t maxp = channel_max_payload(m.packet_cells);
  auto size_of = [maxp](std::mt19937_64& rng) {
    return rng() % 8 == 0 ? rng() % (maxp + 1) : rng() % 1200;  // around the inline boundary too
  };
  std::thread producer([&] {
    std::mt19937_64 rng(5);
    std::vector<std::byte> payload(maxp);
    std::uint64_t f = 0;
    for (; budget.write_more(f); ++f) {
      const std::size_t pl = size_of(rng);
      for (std::size_t i : {std::size_t(0), pl / 2, pl - 1})
        if (pl) payload[i] = pattern(f, i);
      while (!p.try_write(reinterpret_cast<const std::byte*>(&f), 8, payload.data(), pl, std::memory_order_release))
        std::this_thread::yield();
    }
    budget.finish(f);
  });
  std::mt19937_64 rng(5);
  std::uint64_t expect = 0;
  bool ok = true;
  while (budget.receive_more(expect)) {  // on a mismatch, still drain so the producer ends
    if (!c.ready()) {
      std::this_thread::yield();
      continue;
    }
    c.drain(
        [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
          std::uint64_t f;
          std::memcpy(&f, h.data(), 8);
          const std::size_t len = size_of(rng);
          if (f != expect || pl.size() != len) ok = false;
          for (std::size_t i : {std::size_t(0), len / 2, len - 1})
            if (ok && len && pl[i] != pattern(f, i)) ok = false;
          ++expect;
        },
        64);
  }
  producer.join();
  EXPECT_TRUE(ok) << "mismatch at frame " << expect;
  EXPECT_EQ(expect, budget.written());
  EXPECT_GE(expect, budget.least());
}
