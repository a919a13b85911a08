// One shared byte region per node, mapped once by every process of the node that the shm device
// serves, divided into fixed-size slots that processes claim and release with a reference count,
// plus futex wait/wake on 32-bit words inside it. Knows nothing of what the slots hold.
//
// Life cycle: the node's leader (lowest job rank on the node) create()s "/railmpi-<job>-node-<leader>"
// before the device's start-up barrier; every other process of the node open()s it after the
// barrier. Each attach counts itself in the header, and the process whose attach completes the
// count removes the name, so nothing is left in /dev/shm once start-up is over (a process that
// dies before attaching leaves the name to mpiexec's leftover cleanup, which matches the prefix).
//
// Slots: claim(refs, zero) finds a free slot, zeroes its first `zero` bytes (what its users read
// before anyone wrote it; the rest is touched only when used) and gives it `refs` references; each user drops
// one with release(), and the slot is free again once the last one did. One process claims on
// behalf of all users (it tells them the index), so two claims never race for one owner.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "device/shm/segment.hpp"

namespace railmpi::device::shm {

class NodeRegion {
 public:
  static constexpr int kMaxSlots = 256;

  NodeRegion() = default;
  NodeRegion(NodeRegion&&) noexcept = default;
  NodeRegion& operator=(NodeRegion&&) noexcept = default;

  // Creates the region for `members` processes with `slots` slots of at least `slot_bytes` each
  // (rounded up to 64 bytes). Counts the creator as attached. Invalid (with *error) on failure.
  static NodeRegion create(const std::string& name, int members, int slots, std::size_t slot_bytes,
                           std::string* error);
  // Maps an existing region and counts this process as attached; the last one unlinks the name.
  static NodeRegion open(const std::string& name, std::string* error);

  bool valid() const { return map_.valid(); }
  int members() const;
  int slots() const;
  std::size_t slot_bytes() const;
  // True once every member attached (the name is gone then).
  bool complete() const;

  // A free slot, its first `zero` bytes (at most slot_bytes()) zeroed, holding `refs` references;
  // -1 when every slot is in use.
  int claim(int refs, std::size_t zero);
  // Drops one reference of slot `index`.
  void release(int index);
  // References slot `index` holds now (0: free).
  int references(int index) const;
  // Maps the pages holding `bytes` (inside one slot) into this process now (segment.hpp
  // prefault): a slot's big cells then cost no page fault each the first time a call reaches them.
  void prefault(std::span<std::byte> bytes) const;
  std::span<std::byte> slot(int index) const;

  // A word on a line of its own, zero at creation, that any member may set: other programs crowd
  // the node's cores (the progress engine's self-binding reads it; see base/self_binding.hpp).
  std::uint32_t* crowded_word() const;

  // Whether this process is registered for process_barrier() (by create() or open()): its stores
  // of a word that a sleeper may wait on then need no fence before it loads the sleeper count.
  bool light_stores() const { return light_stores_; }

  // Sleeps while *word == expected, at most `timeout` (a wake, a signal or a spurious wake-up
  // may end it sooner). `word` must lie in a shared mapping.
  static void wait(std::uint32_t* word, std::uint32_t expected, std::chrono::microseconds timeout);
  // Wakes every process sleeping in wait() on `word`.
  static void wake(std::uint32_t* word);

 private:
  struct Header;
  Header* header() const { return reinterpret_cast<Header*>(map_.data()); }
  void attach(const std::string& name);

  SharedMapping map_;
  bool light_stores_ = false;
};

}  // namespace railmpi::device::shm
