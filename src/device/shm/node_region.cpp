#include "device/shm/node_region.hpp"

#include <atomic>
#include <algorithm>
#include <cstring>

#include "device/shm/futex.hpp"
#include "device/shm/process_barrier.hpp"
#include "device/shm/segment.hpp"

namespace railmpi::device::shm {
namespace {

constexpr std::uint64_t kMagic = 0x52'61'69'6c'4e'6f'64'31ULL;  // "RailNod1"
constexpr std::size_t kHeaderBytes = 4096;

std::size_t round_up(std::size_t v, std::size_t to) { return (v + to - 1) / to * to; }

}  // namespace

// Page 0 of the region. Layout fields are written by the creator before anyone else maps it.
struct NodeRegion::Header {
  std::uint64_t magic;
  std::uint64_t slot_bytes;
  std::uint32_t members;
  std::uint32_t slots;
  std::uint32_t attached;
  alignas(64) std::uint32_t refs[kMaxSlots];  // references per slot, 0 = free
  alignas(64) std::uint32_t crowded;          // crowded_word()
};


NodeRegion NodeRegion::create(const std::string& name, int members, int slots, std::size_t slot_bytes,
                              std::string* error) {
  NodeRegion r;
  if (members < 1 || slots < 1 || slots > kMaxSlots || slot_bytes == 0) {
    if (error) *error = "node region " + name + ": bad layout";
    return r;
  }
  slot_bytes = round_up(slot_bytes, 64);
  static_assert(sizeof(Header) <= kHeaderBytes);
  r.map_ = SharedMapping::create(name, kHeaderBytes + std::size_t(slots) * slot_bytes, error);
  if (!r.valid()) return r;
  Header* h = r.header();
  h->slot_bytes = slot_bytes;
  h->members = static_cast<std::uint32_t>(members);
  h->slots = static_cast<std::uint32_t>(slots);
  std::atomic_ref<std::uint64_t>(h->magic).store(kMagic, std::memory_order_release);
  r.attach(name);
  return r;
}

NodeRegion NodeRegion::open(const std::string& name, std::string* error) {
  NodeRegion r;
  SharedMapping first = SharedMapping::open(name, 0, kHeaderBytes, error);
  if (!first.valid()) return r;
  const auto* h = reinterpret_cast<const Header*>(first.data());
  if (std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(h->magic)).load(std::memory_order_acquire) !=
      kMagic) {
    if (error) *error = "node region " + name + " is not a RailMPI node region";
    return r;
  }
  const std::size_t total = kHeaderBytes + std::size_t(h->slots) * h->slot_bytes;
  first.unmap();
  r.map_ = SharedMapping::open(name, 0, total, error);
  if (r.valid()) r.attach(name);
  return r;
}

void NodeRegion::attach(const std::string& name) {
  light_stores_ = register_for_process_barriers();
  Header* h = header();
  const std::uint32_t now = std::atomic_ref<std::uint32_t>(h->attached).fetch_add(1, std::memory_order_acq_rel) + 1;
  if (now == h->members) unlink_shared(name, nullptr);
}

int NodeRegion::members() const { return static_cast<int>(header()->members); }
int NodeRegion::slots() const { return static_cast<int>(header()->slots); }
std::size_t NodeRegion::slot_bytes() const { return header()->slot_bytes; }

bool NodeRegion::complete() const {
  return std::atomic_ref<std::uint32_t>(header()->attached).load(std::memory_order_acquire) >= header()->members;
}

int NodeRegion::claim(int refs, std::size_t zero) {
  Header* h = header();
  for (int i = 0; i < slots(); ++i) {
    std::uint32_t expected = 0;
    if (std::atomic_ref<std::uint32_t>(h->refs[i])
            .compare_exchange_strong(expected, static_cast<std::uint32_t>(refs), std::memory_order_acq_rel)) {
      std::span<std::byte> s = slot(i);
      std::memset(s.data(), 0, std::min(zero, s.size()));
      std::atomic_thread_fence(std::memory_order_release);
      return i;
    }
  }
  return -1;
}

void NodeRegion::release(int index) {
  std::atomic_ref<std::uint32_t>(header()->refs[index]).fetch_sub(1, std::memory_order_acq_rel);
}

std::uint32_t* NodeRegion::crowded_word() const { return &header()->crowded; }

int NodeRegion::references(int index) const {
  return static_cast<int>(std::atomic_ref<std::uint32_t>(header()->refs[index]).load(std::memory_order_acquire));
}

std::span<std::byte> NodeRegion::slot(int index) const {
  return {map_.data() + kHeaderBytes + std::size_t(index) * slot_bytes(), slot_bytes()};
}

void NodeRegion::wait(std::uint32_t* word, std::uint32_t expected, std::chrono::microseconds timeout) {
  futex_wait(word, expected, timeout);
}

void NodeRegion::wake(std::uint32_t* word) { futex_wake_all(word); }

void NodeRegion::prefault(std::span<std::byte> bytes) const {
  // Whole pages of the mapping: the first one rounded down, the last one rounded up (still mapped).
  constexpr std::uintptr_t kPage = 4096;
  const auto from = reinterpret_cast<std::uintptr_t>(bytes.data()) & ~(kPage - 1);
  const auto to = (reinterpret_cast<std::uintptr_t>(bytes.data() + bytes.size()) + kPage - 1) & ~(kPage - 1);
  shm::prefault(reinterpret_cast<std::byte*>(from), to - from);
}

}  // namespace railmpi::device::shm
