// What the multi-method layer offers above it for node-level collectives: the node's shared byte
// region, divided in slots that one process claims for a group of users and each user releases,
// and a futex wait/wake on 32-bit words inside it. The node's ranks are MultiMethod::node_ranks().
// Empty (available() false) when the node has no shared region: a single rank on the node, the
// shm device disabled, or RAILMPI_NODE_COLL_LIMIT=0.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

#include "device/shm/node_region.hpp"
#include "device/shm/process_barrier.hpp"

namespace railmpi::mcm {

class NodeMemory {
 public:
  NodeMemory() = default;
  explicit NodeMemory(device::shm::NodeRegion* region) : region_(region) {}

  bool available() const { return region_ != nullptr; }
  // A slot holding `users` references, its first `zero` bytes zeroed, or -1 when all are taken.
  int claim(int users, std::size_t zero) { return region_->claim(users, zero); }
  void release(int slot) { region_->release(slot); }
  std::span<std::byte> slot(int index) const { return region_->slot(index); }
  // Maps these bytes of a slot into this process now (no page faults at their first use).
  void prefault(std::span<std::byte> bytes) const { region_->prefault(bytes); }
  std::size_t slot_bytes() const { return region_->slot_bytes(); }
  int slots() const { return region_->slots(); }

  // A word any rank of the node may set to tell the others that other programs crowd its cores
  // (zero until then); nullptr without a region.
  std::uint32_t* crowded_word() const { return region_ ? region_->crowded_word() : nullptr; }

  // Whether this process may store a futex word without a fence before it loads the word's
  // sleeper count: a sleeper calls sleeper_fence() between counting itself and re-checking the
  // word (device/shm/process_barrier.hpp). False: store with a full fence (seq_cst).
  bool light_stores() const { return region_ != nullptr && region_->light_stores(); }
  static void sleeper_fence() { device::shm::process_barrier(); }

  static void wait(std::uint32_t* word, std::uint32_t expected, std::chrono::microseconds timeout) {
    device::shm::NodeRegion::wait(word, expected, timeout);
  }
  static void wake(std::uint32_t* word) { device::shm::NodeRegion::wake(word); }

 private:
  device::shm::NodeRegion* region_ = nullptr;
};

}  // namespace railmpi::mcm
