// The request table: MPI_Request handles <-> request slots, from a pool that grows in chunks and
// never moves a slot (the engine keeps pointers). Allocation on the hot path is a free-list pop.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "p2p/request.hpp"

namespace railmpi::core {

enum class RequestOp : std::uint8_t { none, send, recv, proc_null, bsend, message, coll, generalized, rma, file };

// One MPI request as the API sees it: the engine's state machine plus what MPI adds.
struct RequestSlot {
  p2p::Request p2p;
  RequestOp op = RequestOp::none;
  bool in_use = false;
  bool persistent = false;
  bool active = false;        // persistent: started and not yet completed by a wait/test
  bool user_freed = false;    // MPI_Request_free on an active request
  int handle = 0;
  int comm = 0;               // for errors and status translation
  int datatype = 0;
  std::size_t type_size = 1;
  int error = 0;              // error class to report when completed
  // Persistent requests: arguments for MPI_Start.
  const void* buf = nullptr;
  int count = 0;
  int rank = 0;
  int tag = 0;
  p2p::SendMode mode = p2p::SendMode::standard;
  bool buffered = false;
  // Buffered sends: the region of the attached buffer this send holds.
  std::size_t bsend_offset = 0;
  // Non-contiguous datatypes (api/typed_buffer.hpp): the layout the data comes from or lands in;
  // holds_type: a reference on the derived datatype.
  base::Layout layout;
  bool scattered = false;
  bool holds_type = false;
};

// Slots are rebuilt in place on reuse (a copy of a blank one), never destroyed first.
static_assert(std::is_trivially_destructible_v<RequestSlot>);
static_assert(std::is_trivially_copyable_v<RequestSlot>);

class RequestTable {
 public:
  static constexpr std::uint32_t kPrefix = 0xac000000u;  // direct kind, object type request
  static constexpr std::uint32_t kIndexMask = 0x03ffffffu;
  static constexpr std::size_t kChunk = 1024;

  RequestSlot* allocate() {
    if (free_.empty()) grow();
    const std::uint32_t index = free_.back();
    free_.pop_back();
    // Rebuilt by copying a blank slot through the C library's memcpy (the size is a member, not a
    // constant, so the call is not inlined). Assigning RequestSlot{} zeroed a 440-byte temporary
    // and copied it; std::construct_at zeroed the slot with one `rep stos`, whose start-up cost
    // held 40% of MPI_Irecv's and MPI_Isend's samples in osu_bibw 4 KiB (perf).
    RequestSlot* s = slot(index);
    std::memcpy(static_cast<void*>(s), &kBlank, blank_bytes_);
    s->in_use = true;
    s->handle = static_cast<int>(kPrefix | index);
    s->p2p.owner = s;
    return s;
  }

  void release(RequestSlot* s) {
    s->in_use = false;
    free_.push_back(static_cast<std::uint32_t>(s->handle) & kIndexMask);
  }

  // nullptr when `handle` is not a live request.
  RequestSlot* find(int handle) const {
    const auto h = static_cast<std::uint32_t>(handle);
    if ((h & ~kIndexMask) != kPrefix) return nullptr;
    const std::uint32_t index = h & kIndexMask;
    if (index / kChunk >= chunks_.size()) return nullptr;
    RequestSlot* s = slot(index);
    return s->in_use ? s : nullptr;
  }

  std::size_t live() const { return chunks_.size() * kChunk - free_.size(); }

 private:
  RequestSlot* slot(std::uint32_t index) const { return &chunks_[index / kChunk][index % kChunk]; }
  void grow() {
    const auto base = static_cast<std::uint32_t>(chunks_.size() * kChunk);
    chunks_.push_back(std::make_unique<RequestSlot[]>(kChunk));
    for (std::uint32_t i = kChunk; i-- > 0;) free_.push_back(base + i);
  }

  static inline const RequestSlot kBlank{};
  std::size_t blank_bytes_ = sizeof(RequestSlot);
  std::vector<std::unique_ptr<RequestSlot[]>> chunks_;
  std::vector<std::uint32_t> free_;
};

}  // namespace railmpi::core
