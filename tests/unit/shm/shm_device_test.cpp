// The shm device between forked processes.
#include "device/shm/shm_device.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace railmpi;
using namespace railmpi::device;
using railmpi::device::shm::ShmDevice;
using railmpi::device::shm::automatic_ring_bytes;
using Clock = std::chrono::steady_clock;

namespace {

#define CHECK(cond)                                                                   \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      std::fprintf(stderr, "child %d: %s:%d: CHECK failed: %s\n", int(::getpid()),    \
                   __FILE__, __LINE__, #cond);                                        \
      std::fflush(stderr);                                                            \
      ::_exit(1);                                                                     \
    }                                                                                 \
  } while (0)

constexpr int kMaxRanks = 8;

struct SharedArea {
  pthread_barrier_t barrier;
  char address[kMaxRanks][256];
  int pid[kMaxRanks];
  std::uint64_t word[16];
};

SharedArea* g_area = nullptr;
int g_job_counter = 0;
std::string g_job_id;

void area_barrier(void*) { pthread_barrier_wait(&g_area->barrier); }

base::Settings default_settings() {
  base::Settings s{};
  s.shm_eager_limit = 16 * 1024;
  s.shm_cma = true;
  s.shm_ring_bytes = 256 * 1024;
  s.shm_cell_ring_bytes = 16 * 1024;  // small: the cell rings wrap often
  return s;
}

// Forks n ranks running f(rank) (returns the exit code); the parent checks they all exit 0.
void run_ranks(int n, const std::function<int(int)>& f) {
  void* mem = mmap(nullptr, sizeof(SharedArea), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  g_area = new (mem) SharedArea{};
  pthread_barrierattr_t attr;
  pthread_barrierattr_init(&attr);
  pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
  pthread_barrier_init(&g_area->barrier, &attr, unsigned(n));
  g_job_id = "ut" + std::to_string(getpid()) + "-" + std::to_string(++g_job_counter);
  std::vector<pid_t> kids;
  for (int r = 0; r < n; ++r) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(20);
      int rc = f(r);
      std::fflush(stdout);
      std::fflush(stderr);
      _exit(rc);
    }
    kids.push_back(pid);
  }
  bool all_passed = true;
  for (int i = 0; i < n; ++i) {  // reap in exit order (a dead rank must not stay a zombie)
    int status = 0;
    pid_t pid = wait(&status);
    ASSERT_GT(pid, 0);
    int rank = int(std::find(kids.begin(), kids.end(), pid) - kids.begin());
    EXPECT_TRUE(WIFEXITED(status)) << "rank " << rank << " killed by signal "
                                   << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0) << "rank " << rank;
    }
    all_passed = all_passed && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  // Destroying a barrier that a killed rank was waiting in blocks for ever (glibc waits for the
  // waiters to leave): after a failure the mapping just goes.
  if (all_passed) pthread_barrier_destroy(&g_area->barrier);
  munmap(mem, sizeof(SharedArea));
  g_area = nullptr;
}

bool shm_file_exists(const std::string& job) {
  DIR* d = opendir("/dev/shm");
  if (!d) return false;
  bool found = false;
  std::string prefix = "railmpi-" + job + "-";
  while (dirent* e = readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) found = true;
  }
  closedir(d);
  return found;
}

// Handler with std::function members.
struct Handler {
  std::function<void(int, std::span<const std::byte>, std::span<const std::byte>)> frame;
  std::function<void(int, std::string_view)> failed;
  int from_end = 0;  // frames delivered with ReadHint::from_end
  FrameHandler raw() {
    FrameHandler h;
    h.ctx = this;
    h.on_frame = [](void* c, int peer, std::span<const std::byte> hd, std::span<const std::byte> pl,
                    ReadHint hint) {
      auto* self = static_cast<Handler*>(c);
      if (hint == ReadHint::from_end) ++self->from_end;
      if (self->frame) self->frame(peer, hd, pl);
    };
    h.on_peer_failed = [](void* c, int peer, std::string_view why) {
      auto* self = static_cast<Handler*>(c);
      if (self->failed) self->failed(peer, why);
    };
    return h;
  }
};

// Creates and connects rank `rank` of an n-rank job where every rank is node-local.
std::unique_ptr<ShmDevice> start(int rank, int n, const base::Settings& s = default_settings()) {
  auto dev = std::make_unique<ShmDevice>(rank, n, g_job_id, s);
  std::string a = dev->local_address();
  CHECK(a.size() < 256);
  CHECK(a.find(' ') == std::string::npos && a.find('=') == std::string::npos);
  std::strcpy(g_area->address[rank], a.c_str());
  g_area->pid[rank] = getpid();
  area_barrier(nullptr);
  std::vector<PeerAddress> peers;
  for (int r = 0; r < n; ++r) {
    if (r == rank) continue;
    PeerAddress p;
    p.rank = r;
    p.local_index = r;
    p.pid = g_area->pid[r];
    p.address = g_area->address[r];
    peers.push_back(p);
  }
  dev->connect(peers, Bootstrap{nullptr, area_barrier});
  area_barrier(nullptr);  // everyone has unlinked
  CHECK(!shm_file_exists(g_job_id));
  return dev;
}

// Polls until pred(); like a progress engine, blocks in wait() after a run of empty polls
// (the tests share 2 cores with other work).
template <class Pred>
bool poll_until(ShmDevice& dev, Pred pred, double seconds = 10) {
  auto end = Clock::now() + std::chrono::duration<double>(seconds);
  int empty = 0;
  while (!pred()) {
    if (dev.poll() == 0) {
      if (++empty >= 200) {
        dev.wait(std::chrono::milliseconds(1));
        empty = 0;
      }
    } else {
      empty = 0;
    }
    if (Clock::now() > end) return false;
  }
  return true;
}

// Flush own queued sends, then a job barrier while still serving others' frames is not needed:
// every test makes sure traffic has ended before calling this.
void finish(ShmDevice& dev) {
  CHECK(poll_until(dev, [&] { return dev.idle(); }));
  area_barrier(nullptr);
  dev.shutdown();
}

std::byte pat(std::uint64_t a, std::size_t i) { return std::byte((a * 131 + i * 7 + 1) & 0xff); }

void fill_op(SendOp& op, std::uint32_t hlen, std::uint64_t id) {
  op.header_len = hlen;
  for (std::uint32_t i = 0; i < hlen; ++i) op.header[i] = pat(id, i);
  if (hlen >= 8) std::memcpy(op.header.data(), &id, 8);
}

}  // namespace

TEST(ShmDevice, FiguresAndEagerClamp) {
  base::Settings s = default_settings();
  s.shm_eager_limit = 1 << 30;
  s.shm_ring_bytes = 256 * 1024;
  ShmDevice d(0, 1, "figs", s);
  Figures f = d.figures();
  EXPECT_EQ(f.max_payload, 64u * 1024);
  EXPECT_EQ(f.eager_limit, f.max_payload);
  EXPECT_EQ(f.packet_bytes, 256u * 1024 / ShmDevice::kPacketsPerRing);
  EXPECT_GT(f.bandwidth_mbs, 0);
  EXPECT_GT(f.latency_us, 0);
  EXPECT_EQ(d.cell_ring_bytes(), 16u * 1024);
  s.shm_ring_bytes = 100;  // rounded up to the minimum
  ShmDevice d2(0, 1, "figs2", s);
  EXPECT_EQ(d2.ring_bytes(), 4096u);
  EXPECT_EQ(d2.cell_ring_bytes(), 4096u);  // never more than the packet ring
  s.shm_ring_bytes = 1 << 20;
  s.shm_cell_ring_bytes = 300 * 1024;  // rounded down to a power of two
  ShmDevice d3(0, 1, "figs3", s);
  EXPECT_EQ(d3.cell_ring_bytes(), 256u * 1024);
  EXPECT_TRUE(d2.idle());
}

TEST(ShmDevice, AutomaticRingBytesShareEightMiBAmongTheNodesPeers) {
  EXPECT_EQ(automatic_ring_bytes(1), 4u << 20);
  EXPECT_EQ(automatic_ring_bytes(2), 4u << 20);
  EXPECT_EQ(automatic_ring_bytes(3), 4u << 20);
  EXPECT_EQ(automatic_ring_bytes(4), 2u << 20);
  EXPECT_EQ(automatic_ring_bytes(5), 2u << 20);
  EXPECT_EQ(automatic_ring_bytes(6), 1u << 20);
  EXPECT_EQ(automatic_ring_bytes(9), 1u << 20);
  EXPECT_EQ(automatic_ring_bytes(10), 512u << 10);
  EXPECT_EQ(automatic_ring_bytes(17), 512u << 10);
  EXPECT_EQ(automatic_ring_bytes(18), 256u << 10);
  EXPECT_EQ(automatic_ring_bytes(1000), 256u << 10);  // never below 256 KiB, with room on /dev/shm
  EXPECT_EQ(automatic_ring_bytes(0), 4u << 20);
}

// A small /dev/shm: every pair's channels (at most twice the ring each) in half of what is free.
TEST(ShmDevice, AutomaticRingBytesFitDevShm) {
  EXPECT_EQ(automatic_ring_bytes(2, std::size_t(24) << 30), 4u << 20);  // plenty: as without the limit
  EXPECT_EQ(automatic_ring_bytes(8, std::size_t(24) << 30), 1u << 20);
  EXPECT_EQ(automatic_ring_bytes(2, std::size_t(64) << 20), 4u << 20);  // 16 MiB a rank: 4 MiB fits
  EXPECT_EQ(automatic_ring_bytes(8, std::size_t(64) << 20), 256u << 10);  // 4 MiB a rank, 7 peers
  EXPECT_EQ(automatic_ring_bytes(8, std::size_t(16) << 20), 64u << 10);   // 1 MiB a rank
  EXPECT_EQ(automatic_ring_bytes(8, std::size_t(1) << 20), 16u << 10);    // the floor (start-up refuses)
  for (int n : {2, 3, 8, 16})
    for (std::size_t mib : {16, 64, 256}) {
      const std::size_t r = automatic_ring_bytes(n, mib << 20);
      EXPECT_LE(std::size_t(n) * std::size_t(n - 1) * 2 * r, (mib << 20) / 2) << n << " ranks, " << mib << " MiB";
    }

  base::Settings s = default_settings();
  s.shm_ring_bytes = base::Settings::kAutomatic;
  s.local_size = 4;  // what mpiexec says wins over the job size
  EXPECT_EQ(ShmDevice(0, 2, "auto1", s).ring_bytes(), 2u << 20);
  s.local_size = 0;  // not given: the job size bounds the node's ranks
  EXPECT_EQ(ShmDevice(0, 2, "auto2", s).ring_bytes(), 4u << 20);
  EXPECT_EQ(ShmDevice(0, 12, "auto3", s).ring_bytes(), 512u << 10);
  s.shm_ring_bytes = 64 * 1024;  // a size set is used as it is
  s.local_size = 2;
  EXPECT_EQ(ShmDevice(0, 2, "auto4", s).ring_bytes(), 64u << 10);
}

TEST(ShmDevice, NoPeersCallsBarrierOnce) {
  ShmDevice d(0, 1, "solo" + std::to_string(getpid()), default_settings());
  std::string a = d.local_address();
  EXPECT_NE(a.find("railmpi-"), std::string::npos);
  int calls = 0;
  d.connect({}, Bootstrap{&calls, [](void* c) { ++*static_cast<int*>(c); }});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(d.poll(), 0);
  d.wait(std::chrono::microseconds(1000));
  EXPECT_TRUE(d.idle());
  EXPECT_FALSE(shm_file_exists("solo" + std::to_string(getpid())));
  d.shutdown();
}

TEST(ShmDevice, FrameSizesTwoProcesses) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    const std::size_t maxp = dev->figures().max_payload;
    const std::vector<std::size_t> sizes = {0, 1, 47, 48, 49, 63, 64, 65, 4096, maxp - 1, maxp};
    const std::vector<std::uint32_t> hlens = {0, 1, 8, 16, 63, 64};
    const std::size_t total = sizes.size() * hlens.size();
    if (rank == 0) {
      std::vector<std::vector<std::byte>> payloads;
      std::vector<SendOp> ops(total);
      for (std::size_t i = 0; i < total; ++i) {
        std::size_t len = sizes[i % sizes.size()];
        std::vector<std::byte> p(len);
        for (std::size_t j = 0; j < len; ++j) p[j] = pat(i + 1000, j);
        payloads.push_back(std::move(p));
      }
      int queued = 0, done_calls = 0;
      for (std::size_t i = 0; i < total; ++i) {
        SendOp& op = ops[i];
        fill_op(op, hlens[i / sizes.size()], i);
        op.payload = payloads[i].data();
        op.payload_len = payloads[i].size();
        op.owner = &done_calls;
        op.on_done = [](SendOp& o) { ++*static_cast<int*>(o.owner); };
        if (dev->send(1, op) == SendResult::queued) ++queued;
      }
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      CHECK(done_calls == queued);
    } else {
      std::size_t got = 0;
      bool ok = true;
      Handler h;
      h.frame = [&](int peer, std::span<const std::byte> hd, std::span<const std::byte> pl) {
        std::size_t i = got++;
        std::uint32_t hl = hlens[i / sizes.size()];
        std::size_t len = sizes[i % sizes.size()];
        if (peer != 0 || hd.size() != hl || pl.size() != len) {
          ok = false;
          return;
        }
        for (std::uint32_t j = (hl >= 8 ? 8 : 0); j < hl; ++j)
          if (hd[j] != pat(i, j)) ok = false;
        if (hl >= 8) {
          std::uint64_t id;
          std::memcpy(&id, hd.data(), 8);
          if (id != i) ok = false;
        }
        for (std::size_t j = 0; j < len; ++j)
          if (pl[j] != pat(i + 1000, j)) ok = false;
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return got == total; }));
      CHECK(ok);
    }
    finish(*dev);
    return 0;
  });
}

// Eager-sized frames through the packet ring: the receiver is told to read a payload from its
// end (ReadHint::from_end) exactly when the sender wrote it in a stream (nothing received from
// the receiver since its last packet) and had not yet published the frame after it.
TEST(ShmDevice, ReadHintFromEndOnlyForTheLastPacketOfAStream) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    const std::vector<std::size_t> sizes = {4096, 2000, 6000, 4096, 3000};
    if (rank == 0) {
      std::vector<std::vector<std::byte>> payloads;
      std::vector<SendOp> ops(sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        payloads.emplace_back(sizes[i]);
        for (std::size_t j = 0; j < sizes[i]; ++j) payloads[i][j] = pat(i + 7, j);
        fill_op(ops[i], 16, i);
        ops[i].payload = payloads[i].data();
        ops[i].payload_len = sizes[i];
      }
      for (std::size_t i = 0; i < 3; ++i) CHECK(dev->send(1, ops[i]) == SendResult::done);
      area_barrier(nullptr);  // the receiver reads the three
      area_barrier(nullptr);
      CHECK(dev->send(1, ops[3]) == SendResult::done);  // nothing heard yet: still the stream
      // The receiver answers (a ping-pong): the next packet is no stream.
      int answers = 0;
      Handler h;
      h.frame = [&](int, std::span<const std::byte>, std::span<const std::byte>) { ++answers; };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return answers == 1; }));
      CHECK(dev->send(1, ops[4]) == SendResult::done);
    } else {
      std::size_t got = 0;
      bool ok = true;
      Handler h;
      h.frame = [&](int peer, std::span<const std::byte>, std::span<const std::byte> pl) {
        const std::size_t i = got++;
        if (peer != 0 || i >= sizes.size() || pl.size() != sizes[i]) {
          ok = false;
          return;
        }
        for (std::size_t j = 0; j < pl.size(); ++j)
          if (pl[j] != pat(i + 7, j)) ok = false;
      };
      dev->set_handler(h.raw());
      area_barrier(nullptr);
      CHECK(poll_until(*dev, [&] { return got == 3; }));
      CHECK(h.from_end == 1);  // the third: nothing written after it
      area_barrier(nullptr);
      CHECK(poll_until(*dev, [&] { return got == 4; }));
      CHECK(h.from_end == 2);
      SendOp answer;
      fill_op(answer, 16, 99);
      CHECK(dev->send(0, answer) == SendResult::done);
      CHECK(poll_until(*dev, [&] { return got == 5; }));
      CHECK(h.from_end == 2);
      CHECK(ok);
    }
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, ManySmallFramesInOrder) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    constexpr std::uint64_t kFrames = 100000;
    if (rank == 0) {
      std::vector<SendOp> ops(kFrames);
      std::vector<std::uint64_t> vals(kFrames);
      int queued = 0, done_calls = 0;
      for (std::uint64_t i = 0; i < kFrames; ++i) {
        vals[i] = i * 3;
        fill_op(ops[i], 8, i);
        ops[i].payload = reinterpret_cast<const std::byte*>(&vals[i]);
        ops[i].payload_len = 8;
        ops[i].owner = &done_calls;
        ops[i].on_done = [](SendOp& o) { ++*static_cast<int*>(o.owner); };
        if (dev->send(1, ops[i]) == SendResult::queued) ++queued;
        if (i % 64 == 0) dev->poll();
      }
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      CHECK(done_calls == queued);
    } else {
      std::uint64_t next = 0;
      bool ok = true;
      Handler h;
      h.frame = [&](int, std::span<const std::byte> hd, std::span<const std::byte> pl) {
        std::uint64_t id, v;
        std::memcpy(&id, hd.data(), 8);
        std::memcpy(&v, pl.data(), 8);
        if (id != next || v != next * 3 || pl.size() != 8) ok = false;
        ++next;
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return next == kFrames; }));
      CHECK(ok);
    }
    finish(*dev);
    return 0;
  });
}

void all_to_all(int n, std::size_t ring_bytes, int kPerPeer) {
  run_ranks(n, [=](int rank) {
    base::Settings s = default_settings();
    s.shm_ring_bytes = ring_bytes;
    auto dev = start(rank, n, s);
    std::vector<std::uint64_t> next(std::size_t(n), 0);
    bool ok = true;
    std::uint64_t received = 0;
    Handler h;
    h.frame = [&](int peer, std::span<const std::byte> hd, std::span<const std::byte> pl) {
      std::uint64_t id;
      std::memcpy(&id, hd.data(), 8);
      if (id != next[peer]) ok = false;
      if (pl.size() != id % 300) ok = false;
      for (std::size_t j = 0; j < pl.size(); ++j)
        if (pl[j] != pat(id * 4 + std::uint64_t(peer), j)) ok = false;
      ++next[peer];
      ++received;
    };
    dev->set_handler(h.raw());
    std::vector<SendOp> ops(std::size_t(n - 1) * kPerPeer);
    std::vector<std::byte> payload_store(std::size_t(n - 1) * kPerPeer * 300);
    int queued = 0, done_calls = 0;
    std::size_t k = 0;
    for (int i = 0; i < kPerPeer; ++i) {
      for (int peer = 0; peer < n; ++peer) {
        if (peer == rank) continue;
        SendOp& op = ops[k];
        std::byte* p = payload_store.data() + k * 300;
        ++k;
        std::size_t len = std::size_t(i) % 300;
        for (std::size_t j = 0; j < len; ++j) p[j] = pat(std::uint64_t(i) * 4 + rank, j);
        fill_op(op, 8, std::uint64_t(i));
        op.payload = p;
        op.payload_len = len;
        op.owner = &done_calls;
        op.on_done = [](SendOp& o) { ++*static_cast<int*>(o.owner); };
        if (dev->send(peer, op) == SendResult::queued) ++queued;
      }
      dev->poll();
    }
    CHECK(poll_until(*dev, [&] { return dev->idle() && received == std::uint64_t(n - 1) * kPerPeer; }));
    CHECK(done_calls == queued);
    CHECK(ok);
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, FourProcessesAllToAll) { all_to_all(4, 256 * 1024, 5000); }

// 8 ranks on 2 cores, tiny rings: progress relies on wait() and the doorbells.
TEST(ShmDevice, EightProcessesOversubscribedSmallRings) { all_to_all(8, 4096, 2000); }

// Each rank tells the others the CPU it is bound to; a rank sleeping for a rank bound to its own
// CPU (no process barrier) is woken by that rank's frame, not by the timeout.
TEST(ShmDevice, CpuMatesKnowEachOtherAndWakeEachOther) {
  cpu_set_t mask;
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mask)) ++cpu;
  run_ranks(3, [cpu](int rank) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    if (rank < 2) CHECK(sched_setaffinity(0, sizeof one, &one) == 0);  // ranks 0 and 1 share a CPU
    auto dev = start(rank, 3);
    CHECK(!dev->shares_cpu(rank == 0 ? 1 : 0));  // nobody said anything yet
    dev->set_cpu(rank < 2 ? cpu : cpu + 1);      // rank 2 says another CPU
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(dev->shares_cpu(1));
      CHECK(!dev->shares_cpu(2));
      CHECK(!dev->shares_cpu(0));   // itself: not a peer of the device
      CHECK(!dev->shares_cpu(7));   // not a rank of the job
      CHECK(!dev->shares_cpu(-1));
    }
    if (rank == 2) CHECK(!dev->shares_cpu(0) && !dev->shares_cpu(1));
    area_barrier(nullptr);
    if (rank == 0) {
      bool got = false;
      Handler h;
      h.frame = [&](int peer, std::span<const std::byte>, std::span<const std::byte>) { got = peer == 1; };
      dev->set_handler(h.raw());
      g_area->word[0] = 1;  // rank 1 sends once rank 0 is about to sleep
      const auto t0 = Clock::now();
      while (!got && Clock::now() - t0 < std::chrono::seconds(5)) {
        dev->wait_for_cpu_mate(std::chrono::seconds(5));
        dev->poll();
      }
      CHECK(got);
      CHECK(Clock::now() - t0 < std::chrono::seconds(2));  // the frame's wake, not the timeout
    } else if (rank == 1) {
      while (__atomic_load_n(&g_area->word[0], __ATOMIC_ACQUIRE) == 0) sched_yield();
      for (int i = 0; i < 20; ++i) sched_yield();  // rank 0 (this CPU) gets to sleep
      SendOp op;
      fill_op(op, 8, 1);
      CHECK(dev->send(0, op) == SendResult::done);
    }
    area_barrier(nullptr);
    dev->set_cpu(-1);  // let go: no longer a mate
    area_barrier(nullptr);
    if (rank == 0) CHECK(!dev->shares_cpu(1));
    area_barrier(nullptr);
    finish(*dev);
    return 0;
  });
}

// cpu_mates_idle(): every peer that says this rank's CPU awaits or sleeps with nothing come.
TEST(ShmDevice, CpuMatesIdleWhileEveryMateWaitsWithNothingCome) {
  run_ranks(3, [](int rank) {
    auto dev = start(rank, 3);
    Handler h;
    int frames = 0;
    h.frame = [&](int, std::span<const std::byte>, std::span<const std::byte>) { ++frames; };
    dev->set_handler(h.raw());
    dev->set_cpu(5);  // what the ranks say, not where they run
    area_barrier(nullptr);
    if (rank == 0) CHECK(!dev->cpu_mates_idle());  // nobody waits
    area_barrier(nullptr);
    if (rank > 0) dev->begin_awaiting(0);
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(dev->cpu_mates_idle());
      SendOp op;
      fill_op(op, 8, 0);
      CHECK(dev->send(1, op) == SendResult::done);  // rings 1's doorbell: 1 has something
      CHECK(!dev->cpu_mates_idle());
    }
    area_barrier(nullptr);
    if (rank == 1) {
      while (frames == 0) dev->poll();
      dev->end_awaiting();
      dev->begin_awaiting(0);  // waits again, nothing come since
    }
    area_barrier(nullptr);
    if (rank == 0) CHECK(dev->cpu_mates_idle());
    area_barrier(nullptr);
    if (rank == 2) {
      dev->end_awaiting();
      dev->set_cpu(6);  // another CPU: no longer a mate, whatever it does
    }
    area_barrier(nullptr);
    if (rank == 0) CHECK(dev->cpu_mates_idle());  // rank 1 alone, and it waits
    area_barrier(nullptr);
    if (rank == 1) dev->end_awaiting();
    area_barrier(nullptr);
    if (rank == 0) CHECK(!dev->cpu_mates_idle());
    area_barrier(nullptr);
    if (rank == 1) {
      dev->begin_awaiting(0);
      dev->set_cpu(6);
    }
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(!dev->cpu_mates_idle());  // no mate at all
      dev->set_cpu(-1);
      CHECK(!dev->cpu_mates_idle());  // not bound
    }
    area_barrier(nullptr);
    if (rank == 1) dev->end_awaiting();
    area_barrier(nullptr);
    finish(*dev);
    return 0;
  });
}

// A rank that awaits another (begin_awaiting()) or sleeps counts in unanswered_chain() until a
// frame reaches it; the chain follows the ranks awaited and stops at the asking rank itself.
TEST(ShmDevice, UnansweredChainFollowsTheRanksAwaited) {
  run_ranks(3, [](int rank) {
    auto dev = start(rank, 3);
    Handler h;
    int frames = 0;
    h.frame = [&](int, std::span<const std::byte>, std::span<const std::byte>) { ++frames; };
    dev->set_handler(h.raw());
    area_barrier(nullptr);
    if (rank == 0) CHECK(dev->unanswered_chain(1, 3) == 0 && dev->unanswered_chain(2, 3) == 0);
    area_barrier(nullptr);
    if (rank == 1) dev->begin_awaiting(2);
    if (rank == 2) dev->begin_awaiting(0);
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(dev->unanswered_chain(1, 3) == 2);  // 1 awaits 2, 2 awaits 0: this rank
      CHECK(dev->unanswered_chain(1, 1) == 1);
      CHECK(dev->unanswered_chain(2, 3) == 1);
      CHECK(dev->unanswered_chain(0, 3) == 0);   // itself
      CHECK(dev->unanswered_chain(-1, 3) == 0);  // not a rank of the job
      CHECK(dev->unanswered_chain(9, 3) == 0);
      SendOp op;
      fill_op(op, 8, 0);
      CHECK(dev->send(2, op) == SendResult::done);  // rings 2's doorbell: 2 is answered
      CHECK(dev->unanswered_chain(2, 3) == 0);
      CHECK(dev->unanswered_chain(1, 3) == 1);
    }
    area_barrier(nullptr);
    if (rank == 2) {
      while (frames == 0) dev->poll();
      dev->end_awaiting();
    }
    if (rank == 1) dev->end_awaiting();
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(dev->unanswered_chain(1, 3) == 0);
      g_area->word[0] = 0;
    }
    area_barrier(nullptr);
    // A sleeping rank counts too, until the frame that wakes it.
    if (rank == 1) {
      dev->begin_awaiting(0);
      dev->end_awaiting();  // the rank awaited stays told
      const auto t0 = Clock::now();
      while (frames == 0 && Clock::now() - t0 < std::chrono::seconds(5)) {
        __atomic_store_n(&g_area->word[0], 1, __ATOMIC_RELEASE);
        dev->wait(std::chrono::seconds(5));
        dev->poll();
      }
      CHECK(frames == 1);
    } else if (rank == 0) {
      while (__atomic_load_n(&g_area->word[0], __ATOMIC_ACQUIRE) == 0) sched_yield();
      const auto t0 = Clock::now();
      while (dev->unanswered_chain(1, 3) != 1 && Clock::now() - t0 < std::chrono::seconds(5)) sched_yield();
      CHECK(dev->unanswered_chain(1, 3) == 1);  // asleep for 0: this rank ends the chain
      SendOp op;
      fill_op(op, 8, 0);
      CHECK(dev->send(1, op) == SendResult::done);
      CHECK(dev->unanswered_chain(1, 3) == 0);
    }
    area_barrier(nullptr);
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, BackPressureOnDoneOncePerQueuedOp) {
  run_ranks(2, [](int rank) {
    base::Settings s = default_settings();
    s.shm_ring_bytes = 64 * 1024;
    auto dev = start(rank, 2, s);
    constexpr int kOps = 4000;  // 4000 x 1000 B = ~4 MB through a 64 KiB ring
    if (rank == 0) {
      std::vector<SendOp> ops(kOps);
      std::vector<int> done_count(kOps, 0);
      std::vector<std::byte> data(1000 * kOps);
      for (std::size_t j = 0; j < data.size(); ++j) data[j] = pat(j / 1000, j % 1000);
      std::vector<bool> was_queued(kOps, false);
      int queued = 0;
      for (int i = 0; i < kOps; ++i) {
        fill_op(ops[i], 8, std::uint64_t(i));
        ops[i].payload = data.data() + std::size_t(i) * 1000;
        ops[i].payload_len = 1000;
        ops[i].owner = &done_count[i];
        ops[i].on_done = [](SendOp& o) { ++*static_cast<int*>(o.owner); };
        if (dev->send(1, ops[i]) == SendResult::queued) {
          was_queued[i] = true;
          ++queued;
        }
      }
      CHECK(queued > kOps / 2);  // the receiver is asleep: most had to wait
      CHECK(!dev->idle());
      CHECK(poll_until(*dev, [&] {
        dev->wait(std::chrono::microseconds(10000));
        return dev->idle();
      }));
      for (int i = 0; i < kOps; ++i) CHECK(done_count[i] == (was_queued[i] ? 1 : 0));
      std::printf("back-pressure: %d of %d sends queued\n", queued, kOps);
    } else {
      usleep(200000);
      int next = 0;
      bool ok = true;
      Handler h;
      h.frame = [&](int, std::span<const std::byte> hd, std::span<const std::byte> pl) {
        std::uint64_t id;
        std::memcpy(&id, hd.data(), 8);
        if (id != std::uint64_t(next) || pl.size() != 1000) ok = false;
        for (std::size_t j = 0; ok && j < pl.size(); ++j)
          if (pl[j] != pat(id, j)) ok = false;
        ++next;
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return next == kOps; }));
      CHECK(ok);
    }
    finish(*dev);
    return 0;
  });
}

// Gathered payloads (SendOp::layout): windows of a non-contiguous source (5-byte runs 9 bytes
// apart, then 3000-byte runs) are copied run by run into the cells, at once or from the queue
// while the receiver sleeps, mixed with contiguous frames; they arrive in order, as the packed bytes.
TEST(ShmDevice, GatheredPayloadsSegmentWise) {
  run_ranks(2, [](int rank) {
    base::Settings s = default_settings();
    s.shm_ring_bytes = 64 * 1024;  // 16 KiB payloads at most
    auto dev = start(rank, 2, s);
    const base::Strided blocks[2] = {{0, 5, 700, 9}, {6400, 3000, 4, 3100}};
    std::vector<std::byte> memory(6400 + 4 * 3100);
    for (std::size_t j = 0; j < memory.size(); ++j) memory[j] = pat(7, j);
    base::Layout layout;
    layout.base = memory.data();
    layout.blocks = blocks;
    layout.repeat = 1;
    layout.extent = std::ptrdiff_t(memory.size());
    layout.bytes_per_copy = 5 * 700 + 3000 * 4;
    std::vector<std::byte> packed;  // by plain expansion
    for (const auto& b : blocks)
      for (std::size_t r = 0; r < b.count; ++r)
        for (std::size_t i = 0; i < b.length; ++i) packed.push_back(memory[std::size_t(b.offset) + r * std::size_t(b.stride) + i]);
    constexpr int kOps = 600;
    auto window = [&](int i, std::size_t& at, std::size_t& len) {
      at = std::size_t(i) * 131 % packed.size();
      len = std::min<std::size_t>(std::size_t(i) * 977 % (16 * 1024 - 64), packed.size() - at);
    };
    if (rank == 0) {
      std::vector<SendOp> ops(kOps);
      int queued = 0, done_calls = 0;
      for (int i = 0; i < kOps; ++i) {
        SendOp& op = ops[i];
        fill_op(op, 8, std::uint64_t(i));
        std::size_t at, len;
        window(i, at, len);
        if (i % 5 == 4) {  // a contiguous frame now and then
          op.payload = packed.data() + at;
        } else {
          op.layout = &layout;
          op.layout_offset = at;
        }
        op.payload_len = len;
        op.owner = &done_calls;
        op.on_done = [](SendOp& o) { ++*static_cast<int*>(o.owner); };
        if (dev->send(1, op) == SendResult::queued) ++queued;
      }
      CHECK(queued > 0);  // the receiver sleeps: some waited in the queue
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      CHECK(done_calls == queued);
    } else {
      usleep(100000);
      int next = 0;
      bool ok = true;
      Handler h;
      h.frame = [&](int, std::span<const std::byte> hd, std::span<const std::byte> pl) {
        std::uint64_t id;
        std::memcpy(&id, hd.data(), 8);
        std::size_t at, len;
        window(next, at, len);
        if (id != std::uint64_t(next) || pl.size() != len || std::memcmp(pl.data(), packed.data() + at, len) != 0)
          ok = false;
        ++next;
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return next == kOps; }));
      CHECK(ok);
    }
    finish(*dev);
    return 0;
  });
}

// send() from inside on_frame: ping-pong.
TEST(ShmDevice, PingPongFromHandler) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    constexpr int kRounds = 20000;
    constexpr int kWarmup = 2000;
    struct State {
      Clock::time_point warm;
      ShmDevice* dev = nullptr;
      int rank = 0;
      int count = 0;
      SendOp op;
      std::uint64_t value = 0;
      bool ok = true;
    } st;
    st.dev = dev.get();
    st.rank = rank;
    st.op.header_len = 8;
    st.op.payload = reinterpret_cast<const std::byte*>(&st.value);
    st.op.payload_len = 8;
    FrameHandler h;
    h.ctx = &st;
    h.on_frame = [](void* c, int peer, std::span<const std::byte> hd, std::span<const std::byte> pl,
                    ReadHint) {
      auto* s = static_cast<State*>(c);
      std::uint64_t v;
      std::memcpy(&v, pl.data(), 8);
      if (v != std::uint64_t(s->count) || peer != 1 - s->rank) s->ok = false;
      ++s->count;
      if (s->count == kWarmup) s->warm = Clock::now();
      if (s->rank == 0 && s->count == kRounds) return;
      s->value = v + (s->rank == 1 ? 0 : 1);
      // answer at once, from inside the handler (the op is never queued: one frame in flight)
      if (s->dev->send(peer, s->op) != SendResult::done) s->ok = false;
    };
    dev->set_handler(h);
    if (rank == 0) {
      st.value = 0;
      CHECK(dev->send(1, st.op) == SendResult::done);
    }
    CHECK(poll_until(*dev, [&] { return st.count == kRounds; }));
    double us = std::chrono::duration<double, std::micro>(Clock::now() - st.warm).count();
    CHECK(st.ok);
    if (rank == 0) {
      std::printf("shm ping-pong: %d round trips (after %d warm-up), one-way latency %.3f us\n",
                  kRounds - kWarmup, kWarmup, us / (kRounds - kWarmup) / 2);
    }
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, ReadRemoteFourMiB) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    CHECK(dev->figures().single_copy);
    constexpr std::size_t kBytes = 4 << 20;
    std::vector<std::byte> buf(kBytes);
    if (rank == 1) {
      for (std::size_t j = 0; j < kBytes; ++j) buf[j] = pat(j >> 12, j);
      g_area->word[0] = reinterpret_cast<std::uintptr_t>(buf.data());
    }
    area_barrier(nullptr);
    if (rank == 0) {
      CHECK(dev->read_remote(1, g_area->word[0], buf));
      for (std::size_t j = 0; j < kBytes; ++j) CHECK(buf[j] == pat(j >> 12, j));
      // a bad address fails cleanly
      std::byte tiny[16];
      CHECK(!dev->read_remote(1, 8, tiny));
    }
    finish(*dev);
    return 0;
  });
}

// Many runs in one call: all arrive in order; more runs than one system call takes (64) go in
// several; a run at a bad address ends the batch there, the runs before it copied whole, and the
// count says where it stopped. Reads, then writes.
TEST(ShmDevice, RemoteRunsStopAtTheFirstBadRun) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    constexpr std::size_t kRuns = 100, kRunBytes = 5000;
    std::vector<std::byte> buf(kRuns * kRunBytes);
    if (rank == 1) {
      for (std::size_t j = 0; j < buf.size(); ++j) buf[j] = pat(j / kRunBytes, j);
      g_area->word[0] = reinterpret_cast<std::uintptr_t>(buf.data());
    }
    area_barrier(nullptr);
    if (rank == 0) {
      const std::uint64_t base = g_area->word[0];
      // Runs taken backwards from the peer's buffer: run i reads the peer's run kRuns-1-i.
      std::vector<RemoteRun> runs(kRuns);
      for (std::size_t i = 0; i < kRuns; ++i)
        runs[i] = {base + (kRuns - 1 - i) * kRunBytes, {buf.data() + i * kRunBytes, kRunBytes}};
      CHECK(dev->read_remote_runs(1, runs) == kRuns);
      for (std::size_t i = 0; i < kRuns; ++i)
        for (std::size_t j = 0; j < kRunBytes; ++j) {
          const std::size_t remote = (kRuns - 1 - i) * kRunBytes + j;
          CHECK(buf[i * kRunBytes + j] == pat(remote / kRunBytes, remote));
        }
      // Run 70 (in the second call) points nowhere: 70 runs are read, the rest is left alone.
      std::fill(buf.begin(), buf.end(), std::byte{0});
      runs[70].remote_addr = 8;
      CHECK(dev->read_remote_runs(1, runs) == 70);
      for (std::size_t j = 0; j < kRunBytes; ++j) CHECK(buf[69 * kRunBytes + j] == pat(30, 30 * kRunBytes + j));
      for (std::size_t j = 70 * kRunBytes; j < buf.size(); ++j) CHECK(buf[j] == std::byte{0});
      // A bad first run: nothing read.
      runs[0].remote_addr = 8;
      CHECK(dev->read_remote_runs(1, std::span<const RemoteRun>(runs).first(5)) == 0);
      // Writes the same way: runs 0-39 back into the peer's buffer in order, run 40 nowhere.
      std::vector<RemoteSource> sources(kRuns);
      for (std::size_t i = 0; i < kRuns; ++i) {
        for (std::size_t j = 0; j < kRunBytes; ++j) buf[i * kRunBytes + j] = pat(i + 500, j);
        sources[i] = {base + i * kRunBytes, {buf.data() + i * kRunBytes, kRunBytes}};
      }
      sources[40].remote_addr = 8;
      CHECK(dev->write_remote_runs(1, sources) == 40);
      g_area->word[1] = 1;
    }
    area_barrier(nullptr);
    if (rank == 1) {
      CHECK(g_area->word[1] == 1);
      for (std::size_t i = 0; i < kRuns; ++i)
        for (std::size_t j = 0; j < kRunBytes; ++j)
          CHECK(buf[i * kRunBytes + j] == (i < 40 ? pat(i + 500, j) : pat(i, i * kRunBytes + j)));
    }
    finish(*dev);
    return 0;
  });
}

// RAILMPI_SHM_CMA_MIN: a value is taken as it is; empty (automatic) means every rendezvous on a
// node with more ranks than cores, else none one way and those of 6 KiB or more both ways (eager
// sizes included).
void single_copy_min_case(int ranks, std::size_t setting) {
  run_ranks(ranks, [setting, ranks](int rank) {
    base::Settings s = default_settings();
    s.shm_cma_min = setting;
    auto dev = start(rank, ranks, s);
    cpu_set_t cpus;
    CHECK(sched_getaffinity(0, sizeof cpus, &cpus) == 0);
    const bool oversubscribed = ranks > CPU_COUNT(&cpus);
    const std::size_t expected = setting != base::Settings::kAutomatic ? setting
                                 : oversubscribed                      ? 0
                                                                       : ShmDevice::kNoSingleCopy;
    CHECK(dev->figures().single_copy);
    CHECK(dev->figures().single_copy_min == expected);
    // Both ways at once: from kBothWaysSingleCopyMin on, unless a value is set (then it alone
    // rules) or the node is oversubscribed (every rendezvous is read, eager stays eager).
    CHECK(dev->figures().single_copy_both_ways_min ==
          (setting != base::Settings::kAutomatic || oversubscribed ? ShmDevice::kNoSingleCopy
                                                                   : ShmDevice::kBothWaysSingleCopyMin));
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, SingleCopyMinFromSetting) { single_copy_min_case(2, 12345); }
TEST(ShmDevice, SingleCopyMinAutomaticTwoRanks) { single_copy_min_case(2, base::Settings::kAutomatic); }
TEST(ShmDevice, SingleCopyMinAutomaticEightRanks) { single_copy_min_case(8, base::Settings::kAutomatic); }

TEST(ShmDevice, CmaOffMeansNoSingleCopy) {
  run_ranks(2, [](int rank) {
    base::Settings s = default_settings();
    s.shm_cma = false;
    auto dev = start(rank, 2, s);
    CHECK(!dev->figures().single_copy);
    std::byte b[8];
    CHECK(!dev->read_remote(1 - rank, reinterpret_cast<std::uintptr_t>(b), b));
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, WaitWakesOnFrameWithoutBurningCpu) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    if (rank == 0) {
      usleep(200000);
      SendOp op;
      op.header_len = 4;
      CHECK(dev->send(1, op) == SendResult::done);
    } else {
      bool got = false;
      Handler h;
      h.frame = [&](int, auto, auto) { got = true; };
      dev->set_handler(h.raw());
      rusage before{}, after{};
      getrusage(RUSAGE_SELF, &before);
      auto t0 = Clock::now();
      while (!got) {
        dev->wait(std::chrono::seconds(5));
        dev->poll();
      }
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      getrusage(RUSAGE_SELF, &after);
      auto cpu = [](const rusage& r) {
        return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
               double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
      };
      double cpu_ms = cpu(after) - cpu(before);
      std::printf("wait: woke after %.1f ms of wall time, %.2f ms of CPU\n", ms, cpu_ms);
      CHECK(ms < 1500);   // woken by the frame, not by the 5 s timeout
      CHECK(cpu_ms < 50);
    }
    finish(*dev);
    return 0;
  });
}

// A receiver that frees room in a sender's ring rings the sender's doorbell only when the sender
// sleeps with frames queued: one that sleeps for anything else (its next message) is left asleep.
// Rank 0 writes 96 KiB of 8 KiB frames into its ring to rank 1 (room to spare, nothing queued)
// and sleeps; rank 1 takes them, which releases room twice (every 32 KiB): no ring. Then rank 0
// writes frames until one is queued and sleeps again; rank 1's take rings, and the queued frames
// go out.
TEST(ShmDevice, ReleasedRoomWakesOnlyASenderWithFramesQueued) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    std::atomic_ref<std::uint64_t> taken(g_area->word[0]), sent_total(g_area->word[1]);
    std::vector<std::byte> data(8192, std::byte{7});
    constexpr int kNoQueue = 12;
    if (rank == 0) {
      std::vector<SendOp> ops(200);
      auto send = [&](int i) {
        fill_op(ops[std::size_t(i)], 8, std::uint64_t(i));
        ops[std::size_t(i)].payload = data.data();
        ops[std::size_t(i)].payload_len = data.size();
        return dev->send(1, ops[std::size_t(i)]);
      };
      for (int i = 0; i < kNoQueue; ++i) CHECK(send(i) == SendResult::done);
      area_barrier(nullptr);
      const std::uint32_t rings = dev->doorbell_rings();
      while (taken.load() < std::uint64_t(kNoQueue)) dev->wait(std::chrono::milliseconds(500));
      std::printf("doorbell rings while asleep with nothing queued: %u\n", dev->doorbell_rings() - rings);
      CHECK(dev->doorbell_rings() == rings);
      int sent = kNoQueue;
      for (bool queued = false; !queued; ++sent) {
        CHECK(sent < int(ops.size()));
        queued = send(sent) == SendResult::queued;
      }
      sent_total.store(std::uint64_t(sent));
      const std::uint32_t queued_rings = dev->doorbell_rings();
      area_barrier(nullptr);
      CHECK(poll_until(*dev, [&] {
        dev->wait(std::chrono::milliseconds(500));
        return dev->idle();
      }));
      std::printf("doorbell rings while asleep with frames queued: %u\n", dev->doorbell_rings() - queued_rings);
      CHECK(dev->doorbell_rings() != queued_rings);
    } else {
      std::uint64_t got = 0;
      Handler h;
      h.frame = [&](int, auto, std::span<const std::byte> pl) { got += pl.size() == data.size(); };
      dev->set_handler(h.raw());
      area_barrier(nullptr);
      usleep(30000);  // rank 0 sleeps
      CHECK(poll_until(*dev, [&] { return got == std::uint64_t(kNoQueue); }));
      taken.store(got);
      area_barrier(nullptr);  // rank 0 has written frames until one was queued
      usleep(30000);          // and sleeps
      CHECK(poll_until(*dev, [&] { return got == sent_total.load(); }));
    }
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, WaitTimesOut) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    auto t0 = Clock::now();
    dev->wait(std::chrono::milliseconds(30));
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    CHECK(ms >= 20 && ms < 1000);
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, DeadPeerReported) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    if (rank == 1) _exit(0);  // vanish without shutdown
    bool failed = false;
    std::string why;
    Handler h;
    h.failed = [&](int peer, std::string_view w) {
      if (peer == 1) failed = true;
      why = std::string(w);
    };
    dev->set_handler(h.raw());
    auto end = Clock::now() + std::chrono::seconds(5);
    while (!failed && Clock::now() < end) {
      dev->wait(std::chrono::milliseconds(20));
      dev->poll();
    }
    CHECK(failed);
    CHECK(why.find("rank 1") != std::string::npos);
    SendOp op;
    CHECK(dev->send(1, op) == SendResult::done);  // dropped, never blocks
    dev->shutdown();
    return 0;
  });
}

TEST(ShmDevice, NoSegmentLeftAfterConnect) {
  run_ranks(3, [](int rank) {
    auto dev = std::make_unique<ShmDevice>(rank, 3, g_job_id, default_settings());
    std::string a = dev->local_address();
    CHECK(shm_file_exists(g_job_id));
    std::strcpy(g_area->address[rank], a.c_str());
    g_area->pid[rank] = getpid();
    area_barrier(nullptr);
    std::vector<PeerAddress> peers;
    for (int r = 0; r < 3; ++r) {
      if (r == rank) continue;
      peers.push_back(PeerAddress{r, r, g_area->pid[r], g_area->address[r]});
    }
    dev->connect(peers, Bootstrap{nullptr, area_barrier});
    area_barrier(nullptr);
    CHECK(!shm_file_exists(g_job_id));
    area_barrier(nullptr);
    dev->shutdown();
    return 0;
  });
  EXPECT_FALSE(shm_file_exists(g_job_id));
}

// Tiny ring (frames up to max_payload, skips at the ring end) with on_done calling send():
// frames must arrive in the order of the send() calls, intact.
TEST(ShmDevice, SmallRingRandomSizesAndSendFromOnDone) {
  run_ranks(2, [](int rank) {
    base::Settings s = default_settings();
    s.shm_ring_bytes = 4096;
    auto dev = start(rank, 2, s);
    const std::size_t maxp = dev->figures().max_payload;
    CHECK(maxp == 1024);
    static std::vector<std::byte> data(1 << 20);
    for (std::size_t j = 0; j < data.size(); ++j) data[j] = pat(j, j >> 8);
    if (rank == 0) {
      struct Sender {
        ShmDevice* dev = nullptr;
        std::deque<SendOp> ops;
        std::uint64_t seq = 0;
        std::uint64_t rng = 12345;
        int done_calls = 0, queued = 0, extra = 0;
        std::uint64_t next_rand() {
          rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
          return rng >> 33;
        }
        void send_one() {
          SendOp& op = ops.emplace_back();
          std::uint64_t id = seq++;
          std::size_t len = next_rand() % 3 == 0 ? next_rand() % 1025 : next_rand() % 100;
          fill_op(op, 8 + std::uint32_t(next_rand() % 57), id);
          op.payload = data.data() + (id % 1000);
          op.payload_len = len;
          op.owner = this;
          op.on_done = [](SendOp& o) {
            auto* self = static_cast<Sender*>(o.owner);
            ++self->done_calls;
            if (self->next_rand() % 4 == 0) {
              ++self->extra;
              self->send_one();  // re-entrant send from on_done
            }
          };
          if (dev->send(1, op) == SendResult::queued) ++queued;
        }
      } snd;
      snd.dev = dev.get();
      for (int i = 0; i < 5000; ++i) {
        snd.send_one();
        if (i % 16 == 0) dev->poll();
      }
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      CHECK(snd.done_calls == snd.queued);
      SendOp end;
      end.header_len = 1;
      end.header[0] = std::byte{0xEE};
      if (dev->send(1, end) == SendResult::queued) {
        CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      }
      std::printf("small ring: %llu frames, %d queued, %d sent from on_done\n",
                  static_cast<unsigned long long>(snd.seq), snd.queued, snd.extra);
    } else {
      std::uint64_t next = 0;
      bool ok = true, end = false;
      Handler h;
      h.frame = [&](int, std::span<const std::byte> hd, std::span<const std::byte> pl) {
        if (hd.size() == 1) {
          end = true;
          return;
        }
        std::uint64_t id;
        std::memcpy(&id, hd.data(), 8);
        if (id != next++) ok = false;
        for (std::size_t j = 8; j < hd.size(); ++j)
          if (hd[j] != pat(id, j)) ok = false;
        if (pl.size() > 1024 || std::memcmp(pl.data(), data.data() + id % 1000, pl.size()) != 0)
          ok = false;
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return end; }));
      CHECK(ok);
      CHECK(next >= 5000);
    }
    finish(*dev);
    return 0;
  });
}

// Streams max_payload frames (copied in and out, as eager messages are) and prints the
// bandwidth (not asserted).
TEST(ShmDevice, StreamBandwidthPrinted) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);
    const std::size_t maxp = dev->figures().max_payload;
    constexpr int kFrames = 2000;
    if (rank == 0) {
      std::vector<std::byte> buf(maxp, std::byte{7});
      std::vector<SendOp> ops(kFrames);
      auto t0 = Clock::now();
      for (int i = 0; i < kFrames; ++i) {
        ops[i].header_len = 8;
        ops[i].payload = buf.data();
        ops[i].payload_len = maxp;
        ops[i].on_done = [](SendOp&) {};
        dev->send(1, ops[i]);
        dev->poll();
      }
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      // the receiver's last frame has been copied in; the ack tells it was read
      bool ack = false;
      Handler h;
      h.frame = [&](int, auto, auto) { ack = true; };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return ack; }));
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      std::printf("shm stream: %d x %zu B frames, %.0f MB/s\n", kFrames, maxp,
                  double(kFrames) * double(maxp) / s / 1e6);
    } else {
      int got = 0;
      std::uint64_t sum = 0;
      std::vector<std::byte> sink(maxp);
      Handler h;
      h.frame = [&](int, std::span<const std::byte>, std::span<const std::byte> pl) {
        ++got;
        std::memcpy(sink.data(), pl.data(), pl.size());  // like an eager receive
        sum += std::uint64_t(sink[pl.size() - 1]);
      };
      dev->set_handler(h.raw());
      CHECK(poll_until(*dev, [&] { return got == kFrames; }));
      CHECK(sum == 7u * kFrames);
      SendOp op;
      op.header_len = 1;
      CHECK(dev->send(0, op) == SendResult::done);
    }
    finish(*dev);
    return 0;
  });
}

// With RAILMPI_NODE_COLL_LIMIT > 0 every rank maps the one node region during connect (its name
// is gone afterwards, checked by start()), and a slot claimed by one rank is seen by all.
TEST(ShmDevice, NodeRegionSharedByEveryRank) {
  run_ranks(4, [](int rank) {
    base::Settings s = default_settings();
    s.node_coll_limit = 200;
    auto dev = start(rank, 4, s);
    shm::NodeRegion* region = dev->node_region();
    CHECK(region != nullptr);
    CHECK(region->members() == 4);
    CHECK(region->complete());
    CHECK(region->slots() == ShmDevice::kNodeSlots);
    // per member 11 lines and 2 cells, 16 more cells, 256 small cells of 256 bytes
    CHECK(region->slot_bytes() == 4 * (11 * 64 + 2 * 256) + 16 * 256 + 256 * 256);
    if (rank == 2) {
      const int slot = region->claim(4, region->slot_bytes());
      CHECK(slot >= 0);
      std::memcpy(region->slot(slot).data(), "hello", 6);
      g_area->word[0] = std::uint64_t(slot);
    }
    area_barrier(nullptr);
    const int slot = int(g_area->word[0]);
    CHECK(std::memcmp(region->slot(slot).data(), "hello", 6) == 0);
    region->release(slot);
    area_barrier(nullptr);
    CHECK(region->references(slot) == 0);
    finish(*dev);
    return 0;
  });
}

TEST(ShmDevice, NoNodeRegionWhenLimitIsZero) {
  run_ranks(2, [](int rank) {
    auto dev = start(rank, 2);  // default_settings(): node_coll_limit 0
    CHECK(dev->node_region() == nullptr);
    finish(*dev);
    return 0;
  });
}

// Tiny messages to a peer whose last short frame said it watches go through the pair line; the
// rest through the rings. Both ranks send at random (tiny, cell-ring and packet-ring frames, the
// last through send()) and poll a random number of times in between, so line messages overtake
// nothing and nothing overtakes them: each side checks the other's sequence numbers one by one.
TEST(ShmDevice, PairLineKeepsOrderWithTheRings) {
  run_ranks(2, [](int rank) {
    base::Settings s = default_settings();
    s.shm_pair_line = true;
    auto dev = start(rank, 2, s);
    constexpr std::uint64_t kMessages = 40000;
    std::uint64_t expected = 0, bad = 0, tiny_received = 0;
    Handler h;
    h.frame = [&](int, std::span<const std::byte> hd, std::span<const std::byte> pl) {
      std::uint64_t seq = ~std::uint64_t(0);
      if (pl.size() >= 8) std::memcpy(&seq, pl.data(), 8);
      if (seq != expected || hd.size() != 4 || hd[0] != std::byte(0x5a)) ++bad;
      for (std::size_t i = 8; i < pl.size(); ++i) bad += pl[i] != pat(seq, i);
      tiny_received += pl.size() <= 112;
      ++expected;
    };
    dev->set_handler(h.raw());
    std::uint64_t rng = 0x9e3779b97f4a7c15ULL * std::uint64_t(rank + 1);
    auto next = [&rng](std::uint64_t n) {
      rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
      return (rng >> 33) % n;
    };
    const std::byte header[4] = {std::byte(0x5a), std::byte(1), std::byte(2), std::byte(3)};
    std::vector<std::byte> payload(20000);
    std::deque<SendOp> ops;  // alive until done (send() may queue)
    for (std::uint64_t seq = 0; seq < kMessages; ++seq) {
      const std::uint64_t kind = next(16);
      const std::size_t len = kind < 12 ? 8 + next(105)         // fits the line (4 + 112: one or two lines)
                              : kind < 14 ? 113 + next(900)     // cell ring
                                          : 1000 + next(12000);  // packet ring, through send()
      std::memcpy(payload.data(), &seq, 8);
      for (std::size_t i = 8; i < len; ++i) payload[i] = pat(seq, i);
      if (kind >= 14 || !dev->try_send_now(1 - rank, header, std::span(payload.data(), len))) {
        SendOp& op = ops.emplace_back();
        op.header_len = 4;
        std::memcpy(op.header.data(), header, 4);
        auto* copy = new std::vector<std::byte>(payload.begin(), payload.begin() + std::ptrdiff_t(len));
        op.payload = copy->data();
        op.payload_len = len;
        op.owner = copy;
        op.on_done = [](SendOp& o) { delete static_cast<std::vector<std::byte>*>(o.owner); };
        if (dev->send(1 - rank, op) == SendResult::done) delete copy;  // on_done is not called
      }
      for (std::uint64_t polls = next(8); polls > 0; --polls) dev->poll();
      // Every 256 messages both ranks catch up (everything sent has arrived, nothing waits in a
      // queue): they interleave, and the next small message can take the line (a queued frame
      // keeps every later one off it), whatever else runs on the machine.
      if (seq % 256 == 255) CHECK(poll_until(*dev, [&] { return expected >= seq + 1 && dev->idle(); }));
    }
    CHECK(poll_until(*dev, [&] { return expected == kMessages; }, 20));
    const std::uint64_t posts = dev->line_posts();
    finish(*dev);
    if (bad != 0 || tiny_received == 0) {
      std::fprintf(stderr, "rank %d: %llu frames out of order or wrong, %llu tiny received\n", rank,
                   static_cast<unsigned long long>(bad), static_cast<unsigned long long>(tiny_received));
      return 1;
    }
    // The line carried some of the tiny messages (0.5-1% here on an idle machine, fewer beside
    // busy programs: a message takes the line only when the peer's last frame came just before).
    std::printf("rank %d: %llu of %llu messages through the pair line\n", rank,
                static_cast<unsigned long long>(posts), static_cast<unsigned long long>(kMessages));
    if (posts == 0) {
      std::fprintf(stderr, "rank %d: no message through the pair line\n", rank);
      return 1;
    }
    return 0;
  });
}

// A ping-pong of 8-byte payloads goes through the pair line after the first exchange; with
// RAILMPI_SHM_PAIR_LINE=0 never.
TEST(ShmDevice, PairLinePingPongAndSettingOff) {
  for (const bool on : {true, false}) {
    run_ranks(2, [on](int rank) {
      base::Settings s = default_settings();
      s.shm_pair_line = on;
      auto dev = start(rank, 2, s);
      constexpr std::uint64_t kRounds = 5000;
      std::uint64_t got = 0, bad = 0;
      Handler h;
      h.frame = [&](int peer, std::span<const std::byte>, std::span<const std::byte> pl) {
        std::uint64_t v = 0;
        if (pl.size() == 8) std::memcpy(&v, pl.data(), 8);
        bad += pl.size() != 8 || v != got || peer != 1 - rank;
        ++got;
      };
      dev->set_handler(h.raw());
      const std::byte header[4] = {};
      for (std::uint64_t i = 0; i < kRounds; ++i) {
        if (rank == 0) {
          CHECK(dev->try_send_now(1, header, std::as_bytes(std::span(&i, 1))));
          CHECK(poll_until(*dev, [&] { return got == i + 1; }));
        } else {
          CHECK(poll_until(*dev, [&] { return got == i + 1; }));
          CHECK(dev->try_send_now(0, header, std::as_bytes(std::span(&i, 1))));
        }
      }
      const std::uint64_t posts = dev->line_posts();
      finish(*dev);
      if (bad) return 1;
      // Each side's first message goes by the ring (rank 0: rank 1 did not watch yet; rank 1: rank
      // 0 holds the turn first).
      const std::uint64_t want = on ? kRounds - 1 : 0;
      if (posts < want || (!on && posts != 0)) {
        std::fprintf(stderr, "rank %d (line %d): %llu line posts\n", rank, on, static_cast<unsigned long long>(posts));
        return 1;
      }
      return 0;
    });
  }
}

// poll_peer(r) delivers the frames of rank r only (its rings' and its pair line's), and nothing
// for a rank the device does not serve.
TEST(ShmDevice, PollPeerDeliversThatPeersFramesOnly) {
  run_ranks(3, [](int rank) {
    base::Settings s = default_settings();
    s.shm_pair_line = true;
    auto dev = start(rank, 3, s);
    int from[3] = {0, 0, 0};
    Handler h;
    h.frame = [&](int peer, std::span<const std::byte>, std::span<const std::byte>) { ++from[peer]; };
    dev->set_handler(h.raw());
    std::vector<std::byte> payload(5000, std::byte(7));
    std::deque<SendOp> ops;
    if (rank != 0) {
      for (const std::size_t len : {5000, 100}) {  // packet ring, cell ring
        SendOp& op = ops.emplace_back();
        fill_op(op, 16, len);
        op.payload = payload.data();
        op.payload_len = len;
        dev->send(0, op);
      }
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
      const std::byte tiny[4] = {};  // cell ring; says this rank now watches the pair line
      CHECK(dev->try_send_now(0, tiny, std::span(payload.data(), 8)));
      CHECK(poll_until(*dev, [&] { return dev->idle(); }));
    }
    area_barrier(nullptr);  // every frame is in rank 0's rings
    int bad = 0;
    if (rank == 0) {
      bad += dev->poll_peer(2) != 3;
      bad += from[1] != 0 || from[2] != 3;
      bad += dev->poll_peer(1) != 3;
      bad += from[1] != 3 || from[2] != 3;
      bad += dev->poll_peer(1) != 0 || dev->poll_peer(0) != 0 || dev->poll_peer(-1) != 0 || dev->poll_peer(3) != 0;
    }
    // The pair line: rank 0's tiny message makes it watch the line, and rank 1's answer takes it.
    const std::byte header[4] = {};
    const std::uint64_t word = 42;
    if (rank == 0) CHECK(dev->try_send_now(1, header, std::as_bytes(std::span(&word, 1))));
    if (rank == 1) {
      CHECK(poll_until(*dev, [&] { return from[0] == 1; }));
      CHECK(dev->try_send_now(0, header, std::as_bytes(std::span(&word, 1))));
      bad += dev->line_posts() != 1;
    }
    area_barrier(nullptr);
    if (rank == 0) {
      bad += dev->poll_peer(2) != 0;
      bad += dev->poll_peer(1) != 1 || from[1] != 4;
      bad += dev->line_posts() != 1;
    }
    finish(*dev);
    if (bad) std::fprintf(stderr, "rank %d: %d checks failed (frames from 1: %d, from 2: %d)\n", rank, bad, from[1], from[2]);
    return bad ? 1 : 0;
  });
}
