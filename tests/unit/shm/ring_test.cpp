// The SPSC cell ring alone: single thread, then producer/consumer threads.
#include "device/shm/ring.hpp"

#include "frame_budget.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>
#include <vector>

using namespace railmpi::device::shm;

namespace {

struct RingMemory {
  explicit RingMemory(std::size_t cells) : cells(cells), bytes(ring_memory_bytes(cells)) {
    mem = static_cast<std::byte*>(std::aligned_alloc(4096, bytes));
    std::memset(mem, 0, bytes);
  }
  ~RingMemory() { std::free(mem); }
  std::size_t cells;
  std::size_t bytes;
  std::byte* mem;
};

std::byte pattern(std::uint64_t frame, std::size_t i) {
  return static_cast<std::byte>((frame * 131 + i * 7 + 3) & 0xff);
}

void fill(std::vector<std::byte>& v, std::uint64_t frame) {
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = pattern(frame, i);
}

bool check(std::span<const std::byte> s, std::uint64_t frame) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] != pattern(frame, i)) return false;
  return true;
}

}  // namespace

TEST(ShmRing, Sizes) {
  EXPECT_EQ(frame_cells(0, 0), 1u);
  EXPECT_EQ(frame_cells(0, 48), 1u);
  EXPECT_EQ(frame_cells(0, 49), 2u);
  EXPECT_EQ(frame_cells(64, 0), 2u);
  EXPECT_EQ(ring_max_payload(4096), 65536u);
  EXPECT_LE(frame_cells(64, ring_max_payload(4096)), max_frame_cells(4096));
}

TEST(ShmRing, EmptyRingIsNotReady) {
  RingMemory m(64);
  RingConsumer c;
  c.attach(m.mem, m.cells);
  EXPECT_FALSE(c.ready());
  auto r = c.drain([](auto, auto) { FAIL(); }, 100);
  EXPECT_EQ(r.frames, 0);
}

TEST(ShmRing, SingleThreadRoundTripAndWrap) {
  RingMemory m(64);  // 4 KiB: many laps
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem, m.cells);
  c.attach(m.mem, m.cells);
  std::mt19937_64 rng(1);
  std::uint64_t sent = 0, received = 0;
  std::vector<std::byte> hdr(64), pay(ring_max_payload(64));
  for (int round = 0; round < 20000; ++round) {
    // write a few frames until full
    int n = 1 + int(rng() % 5);
    for (int i = 0; i < n; ++i) {
      std::uint32_t hl = std::uint32_t(rng() % 65);
      std::size_t pl = rng() % (ring_max_payload(64) + 1);
      if (rng() % 2) pl %= 70;
      hdr.resize(hl);
      pay.resize(pl);
      fill(hdr, sent);
      fill(pay, sent + 1000);
      if (!p.try_write(hdr.data(), hl, pay.data(), pl)) break;
      ++sent;
    }
    c.drain(
        [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
          ASSERT_TRUE(check(h, received));
          ASSERT_TRUE(check(pl, received + 1000));
          ++received;
        },
        int(rng() % 4));
  }
  c.drain([&](auto h, auto pl) {
    ASSERT_TRUE(check(h, received));
    ASSERT_TRUE(check(pl, received + 1000));
    ++received;
  }, 1 << 30);
  EXPECT_EQ(sent, received);
  EXPECT_GT(p.tail(), 64u * 100);  // wrapped many times
}

TEST(ShmRing, FullRingRefusesThenAcceptsAfterDrain) {
  RingMemory m(64);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem, m.cells);
  c.attach(m.mem, m.cells);
  std::byte b[48]{};
  int written = 0;
  while (p.try_write(nullptr, 0, b, 48)) ++written;  // one cell each
  EXPECT_EQ(written, 63);  // one spare cell
  int got = c.drain([](auto, auto) {}, 1000).frames;
  EXPECT_EQ(got, 63);
  // the largest frame must fit now, even with a skip
  std::vector<std::byte> big(ring_max_payload(64));
  std::byte h[64]{};
  EXPECT_TRUE(p.try_write(h, 64, big.data(), big.size()));
  EXPECT_EQ(c.drain([](auto, auto) {}, 10).frames, 1);
}

// A payload produced in place (a gather) lands in the cells like a copied one, also across the
// ring's wrap; fill is not called for an empty payload nor for a frame that does not fit.
TEST(ShmRing, PayloadFilledInPlace) {
  RingMemory m(64);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem, m.cells);
  c.attach(m.mem, m.cells);
  std::byte h[8]{};
  std::uint64_t sent = 0, received = 0;
  int fills = 0, expected_fills = 0;
  for (int round = 0; round < 200; ++round) {
    const std::size_t len = std::size_t(round * 37) % (ring_max_payload(64) + 1);
    const bool wrote = p.try_write_with(h, 8, len, [&](std::byte* to, std::size_t n) {
      ++fills;
      EXPECT_EQ(n, len);
      for (std::size_t i = 0; i < n; ++i) to[i] = pattern(sent, i);
    });
    if (wrote) {
      ++sent;
      expected_fills += len > 0;
    }
    EXPECT_EQ(fills, expected_fills);
    c.drain([&](auto, std::span<const std::byte> pl) { ASSERT_TRUE(check(pl, received++)); }, round % 3);
  }
  c.drain([&](auto, std::span<const std::byte> pl) { ASSERT_TRUE(check(pl, received++)); }, 1 << 30);
  EXPECT_EQ(sent, received);
  EXPECT_GT(p.tail(), 64u * 10);  // wrapped
}

// Producer and consumer threads, millions of frames of random sizes (the producer starting with
// a window of `window` cells when given); fewer, 50000 at least, on a machine too slow for them
// (FrameBudget).
void threads_random_sizes(std::size_t cells, std::uint64_t frames, std::size_t window = 0) {
  {
    test_support::FrameBudget budget(frames, 50'000);
    RingMemory m(cells);
    RingProducer p;
    RingConsumer c;
    p.attach(m.mem, m.cells, window);
    c.attach(m.mem, m.cells, window);
    const std::size_t maxp = ring_max_payload(cells);
    std::thread prod([&] {
      std::mt19937_64 rng(7);
      std::vector<std::byte> buf(maxp + 64);
      std::uint64_t f = 0;
      for (; budget.write_more(f); ++f) {
        std::uint32_t hl = 8 + std::uint32_t(rng() % 57);
        std::size_t pl = (rng() % 64 == 0) ? rng() % (maxp + 1) : rng() % 200;
        // header: frame number + length, then pattern; payload: pattern
        std::byte* h = buf.data();
        std::memcpy(h, &f, 8);
        for (std::uint32_t i = 8; i < hl; ++i) h[i] = pattern(f, i);
        std::byte* pay = buf.data() + 64;
        pay[0] = pattern(f, 0);
        if (pl) pay[pl - 1] = pattern(f, pl - 1);
        if (pl > 1) pay[pl / 2] = pattern(f, pl / 2);
        while (!p.try_write(h, hl, pay, pl)) std::this_thread::yield();
      }
      budget.finish(f);
    });
    std::uint64_t expect = 0;
    bool ok = true;
    std::mt19937_64 rng(7);
    while (budget.receive_more(expect)) {
      if (!c.ready()) {
        std::this_thread::yield();
        continue;
      }
      c.drain(
          [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
            std::uint32_t hl = 8 + std::uint32_t(rng() % 57);
            std::size_t plen = (rng() % 64 == 0) ? rng() % (maxp + 1) : rng() % 200;
            std::uint64_t f;
            std::memcpy(&f, h.data(), 8);
            if (f != expect || h.size() != hl || pl.size() != plen) ok = false;
            for (std::uint32_t i = 8; ok && i < hl; ++i)
              if (h[i] != pattern(f, i)) ok = false;
            if (ok && plen) {
              if (pl[0] != pattern(f, 0) || pl[plen - 1] != pattern(f, plen - 1) ||
                  pl[plen / 2] != pattern(f, plen / 2))
                ok = false;
            }
            ++expect;
          },
          64);
    }
    prod.join();
    EXPECT_TRUE(ok) << "mismatch at frame " << expect << " (cells " << cells << ")";
    EXPECT_EQ(expect, budget.written());
    EXPECT_GE(expect, budget.least());
  }
}

TEST(ShmRing, ThreadsRandomSizesSmallRing) { threads_random_sizes(64, 1'000'000); }
TEST(ShmRing, ThreadsRandomSizesLargeRing) { threads_random_sizes(4096, 1'500'000); }
TEST(ShmRing, ThreadsRandomSizesFromAWindow) { threads_random_sizes(4096, 1'000'000, 64); }

namespace {

// Writes frame `n` of `cells` cells (8-byte header holding n, pattern payload).
bool write_numbered(RingProducer& p, std::uint64_t n, std::size_t cells) {
  std::vector<std::byte> payload(cells * kCellBytes - kCellHeaderBytes - 8);
  fill(payload, n);
  return p.try_write(reinterpret_cast<const std::byte*>(&n), 8, payload.data(), payload.size());
}

// Drains everything; every frame must be the next number with its pattern. Returns frames taken.
int drain_numbered(RingConsumer& c, std::uint64_t& next) {
  return c
      .drain(
          [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
            std::uint64_t n;
            std::memcpy(&n, h.data(), 8);
            EXPECT_EQ(n, next);
            EXPECT_TRUE(check(pl, n));
            ++next;
          },
          1 << 30)
      .frames;
}

// A ring of 1024 cells whose producer starts with a window of 64.
struct WindowedRing {
  WindowedRing() {
    p.attach(m.mem, m.cells, 64);
    c.attach(m.mem, m.cells, 64);
  }
  RingMemory m{1024};
  RingProducer p;
  RingConsumer c;
};

bool all_zero(const std::byte* from, const std::byte* to) {
  return std::all_of(from, to, [](std::byte b) { return b == std::byte{0}; });
}

}  // namespace

// Traffic that never fills the window and laps it slowly stays in the window's cells: the cells
// past it (but the one that may hold the skip marker) are never written.
TEST(ShmRingWindow, SlowTrafficStaysInTheWindow) {
  WindowedRing r;
  RingProducer& p = r.p;
  RingConsumer& c = r.c;
  EXPECT_EQ(p.window(), 64u);
  std::uint64_t sent = 0, next = 0;
  while (p.tail() < 5 * 1024) {  // five laps of the ring's positions
    const std::uint64_t lap = p.tail() / 1024;
    ASSERT_TRUE(write_numbered(p, sent++, 5));
    ASSERT_EQ(drain_numbered(c, next), 1);
    if (p.tail() / 1024 != lap) std::this_thread::sleep_for(RingProducer::kFastLap + std::chrono::microseconds(200));
  }
  EXPECT_EQ(next, sent);
  EXPECT_EQ(p.window(), 64u);
  const std::byte* cells = r.m.mem + kRingCellsOffset;
  EXPECT_TRUE(all_zero(cells + 65 * kCellBytes, cells + 1024 * kCellBytes));
}

// A frame that does not fit the window makes the window the whole ring: more frames fit then.
TEST(ShmRingWindow, FullWindowBecomesTheWholeRing) {
  WindowedRing r;
  RingProducer& p = r.p;
  RingConsumer& c = r.c;
  std::uint64_t sent = 0, next = 0;
  while (write_numbered(p, sent, 4)) ++sent;
  EXPECT_LE(sent, 16u);
  EXPECT_EQ(p.window(), 1024u);
  while (write_numbered(p, sent, 4)) ++sent;
  EXPECT_GT(sent, 200u);
  EXPECT_EQ(drain_numbered(c, next), int(sent));
  EXPECT_EQ(next, sent);
}

// Laps of the window faster than kFastLap that carry a stream make it the whole ring.
TEST(ShmRingWindow, FastLapsOfAStreamGiveTheWholeRing) {
  WindowedRing r;
  RingProducer& p = r.p;
  RingConsumer& c = r.c;
  std::uint64_t sent = 0, next = 0;
  for (int i = 0; i < 10000 && p.window() < 1024; ++i) {
    p.note_stream();
    ASSERT_TRUE(write_numbered(p, sent++, 3));
    ASSERT_EQ(drain_numbered(c, next), 1);
  }
  EXPECT_EQ(p.window(), 1024u);
}

// Fast laps without a stream (a ping-pong: every frame answered before the next) keep the window,
// and so do fast laps where only a lap long ago streamed.
TEST(ShmRingWindow, FastLapsOfAPingPongKeepTheWindow) {
  WindowedRing r;
  RingProducer& p = r.p;
  RingConsumer& c = r.c;
  std::uint64_t sent = 0, next = 0;
  p.note_stream();  // a stream in a slow first lap
  while (p.tail() < 1024) {
    ASSERT_TRUE(write_numbered(p, sent++, 3));
    ASSERT_EQ(drain_numbered(c, next), 1);
  }
  std::this_thread::sleep_for(RingProducer::kFastLap + std::chrono::microseconds(200));
  for (int i = 0; i < 10000; ++i) {
    ASSERT_TRUE(write_numbered(p, sent++, 3));
    ASSERT_EQ(drain_numbered(c, next), 1);
  }
  EXPECT_GT(p.tail(), 100u * 1024);  // many laps of the window's positions
  EXPECT_EQ(p.window(), 64u);
  EXPECT_EQ(next, sent);
}

// The window is kept at least twice the largest frame, so a drained ring always takes the next.
TEST(ShmRingWindow, LargeFrameWidensTheWindow) {
  WindowedRing r;
  RingProducer& p = r.p;
  RingConsumer& c = r.c;
  std::uint64_t sent = 0, next = 0;
  ASSERT_TRUE(write_numbered(p, sent++, 40));
  EXPECT_EQ(p.window(), 128u);
  ASSERT_TRUE(write_numbered(p, sent++, 40));
  EXPECT_EQ(drain_numbered(c, next), 2);
  ASSERT_TRUE(write_numbered(p, sent++, 63));  // 2 * 64 = 128: still fits
  EXPECT_EQ(p.window(), 128u);
  EXPECT_EQ(drain_numbered(c, next), 1);
  ASSERT_TRUE(write_numbered(p, sent++, 64));
  EXPECT_EQ(p.window(), 256u);
  EXPECT_EQ(drain_numbered(c, next), 1);
  EXPECT_EQ(next, sent);
}

// A continuation cell's seq word holds payload bytes. Here those bytes are exactly the value the
// consumer will look for when it reaches that cell again as a frame start one lap later; a run of
// one-cell frames (try_write_cell, which clears a following cell only when it is such a cell) must
// still never show the consumer a frame that was not written.
TEST(ShmRing, StalePayloadNeverLooksPublished) {
  constexpr std::size_t kCells = 64;
  RingMemory m(kCells);
  RingProducer p;
  RingConsumer c;
  p.attach(m.mem, kCells);
  c.attach(m.mem, kCells);
  for (int round = 0; round < 6; ++round) {
    // One multi-cell frame: header 8 bytes, payload words at every continuation cell's seq word set
    // to that cell's position one lap later + 1.
    const std::uint64_t pos = p.tail();
    const std::size_t header_len = 8, payload_len = 10 * kCellBytes;
    std::vector<std::byte> payload(payload_len);
    for (std::size_t j = 1; j < frame_cells(header_len, payload_len); ++j) {
      const std::size_t at = j * kCellBytes - kCellHeaderBytes - header_len;  // offset in the payload
      const std::uint64_t fake = pos + j + kCells + 1;
      if (at + 8 <= payload_len) std::memcpy(payload.data() + at, &fake, 8);
    }
    const std::byte header[8]{std::byte{1}};
    ASSERT_TRUE(p.try_write(header, header_len, payload.data(), payload_len));
    EXPECT_EQ(c.drain([](auto, auto) {}, 10).frames, 1);
    // A lap of one-cell frames, each drained at once: exactly one frame each time, then nothing.
    for (std::uint64_t n = 0; n < kCells + 7; ++n) {
      const std::uint64_t value = n * 1000 + round;
      ASSERT_TRUE(p.try_write_cell(std::as_bytes(std::span(&value, 1)), {}));
      std::uint64_t got = ~value;
      const auto r = c.drain(
          [&](std::span<const std::byte> h, std::span<const std::byte> pl) {
            ASSERT_EQ(h.size(), 8u);
            ASSERT_TRUE(pl.empty());
            std::memcpy(&got, h.data(), 8);
          },
          10);
      ASSERT_EQ(r.frames, 1) << "round " << round << " frame " << n;
      ASSERT_EQ(got, value);
      ASSERT_FALSE(c.ready());
    }
  }
}
