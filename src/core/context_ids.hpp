// Context ids of communicators.
//
// Scheme: a context id is an even number c; point-to-point traffic of the communicator uses c,
// its collectives use c + 1 (Communicator::coll_context()). Slot s = c / 2. MPI_COMM_WORLD has
// slot 0, MPI_COMM_SELF slot 1; slots 2 .. kSlots-1 are dynamic.
//
// Every process keeps a bitmask of the slots it has free. A communicator-creating call runs, over
// the parent communicator's collective context only (no job-wide step), an allreduce with bitwise
// AND of the members' masks and then every member takes the lowest slot that is free everywhere
// (lowest_common()); processes of the parent that do not join the new communicator (MPI_UNDEFINED
// colour, not in the group) take nothing. Communicators created by one call from disjoint member
// sets (the colours of a split) share the id, which is safe: a process holds at most one
// communicator per id, and a message only travels between members of one communicator.
// Freeing a communicator gives its slot back to this process's mask (release()), so thousands of
// create/free cycles reuse ids without ever colliding with a live one.
// Intercommunicators: each group reduces its masks to its leader, the leaders exchange them over
// the peer communicator and AND them, and each leader broadcasts the outcome in its group; an
// intercommunicator takes two slots: one for the traffic between the groups, one for the local
// group's own collectives (Communicator::local_context).
//
// Non-blocking agreements (MPI_Comm_idup) overlap other agreements of the same process, so the
// mask a process contributed may be stale when the outcome arrives. They run in two phases
// (api/context_agreement.hpp): the AND of the masks names candidates, then every member reserves
// them if they are still free and not reserved by another agreement, and a second AND tells
// whether all members could; if not, the reservations are dropped and the agreement starts over.
// A process contributes its free slots minus its reserved ones, and says whether it has a
// non-blocking agreement in flight: blocking agreements where no member has one take the lowest
// common slots at once (one phase, as before); otherwise they use the two phases as well.
#pragma once

#include <cstdint>
#include <cstring>

namespace railmpi::core {

class ContextIds {
 public:
  static constexpr int kSlots = 4096;
  static constexpr int kWords = kSlots / 64;
  static constexpr int kFirstDynamic = 2;

  ContextIds() {
    std::memset(free_, 0xff, sizeof free_);
    free_[0] &= ~std::uint64_t{3};  // world and self
  }

  // This process's contribution to an agreement (kWords words): free and not reserved.
  void contribution(std::uint64_t* out) const {
    for (int w = 0; w < kWords; ++w) out[w] = free_[w] & ~reserved_[w];
  }

  // Lowest slot set in `mask` at or above kFirstDynamic, or -1.
  static int lowest(const std::uint64_t* mask, int skip = 0) {
    for (int w = 0; w < kWords; ++w) {
      std::uint64_t bits = mask[w];
      while (bits) {
        const int slot = w * 64 + __builtin_ctzll(bits);
        bits &= bits - 1;
        if (slot >= kFirstDynamic && skip-- == 0) return slot;
      }
    }
    return -1;
  }

  static int context_of(int slot) { return slot * 2; }

  bool is_free(int slot) const { return bit(free_, slot); }
  void take(int slot) { free_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64)); }
  // Gives the slot of `context` back (world and self are never released).
  void release(int context) {
    const int slot = context / 2;
    if (slot >= kFirstDynamic && slot < kSlots) free_[slot / 64] |= std::uint64_t{1} << (slot % 64);
  }
  // Reserves all `n` slots if each is free and unreserved (else none); true when reserved.
  bool reserve(const int* slots, int n) {
    for (int i = 0; i < n; ++i)
      if (!is_free(slots[i]) || bit(reserved_, slots[i])) return false;
    for (int i = 0; i < n; ++i) reserved_[slots[i] / 64] |= std::uint64_t{1} << (slots[i] % 64);
    return true;
  }
  void unreserve(const int* slots, int n) {
    for (int i = 0; i < n; ++i) reserved_[slots[i] / 64] &= ~(std::uint64_t{1} << (slots[i] % 64));
  }
  // Non-blocking agreements of this process that have not finished.
  int in_flight = 0;

  int free_count() const {
    int n = 0;
    for (auto w : free_) n += __builtin_popcountll(w);
    return n;
  }

 private:
  static bool bit(const std::uint64_t* words, int slot) { return (words[slot / 64] >> (slot % 64)) & 1u; }

  std::uint64_t free_[kWords];
  std::uint64_t reserved_[kWords] = {};
};

}  // namespace railmpi::core
