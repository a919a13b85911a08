// The messages of one-sided communication, sent over the point-to-point engine on the window's
// own context: requests from an origin to a target (one message each, taken in arrival order by
// the target's posted request receive), their data when it does not fit in the request, and the
// target's replies (lock granted, flush and unlock done, post notices, fetched data).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/layout.hpp"

namespace railmpi::rma {

// Tags on the window's context.
inline constexpr int kRequestTag = 0;  // origin -> target: a Request (posted receive at the target)
inline constexpr int kReplyTag = 1;    // target -> origin: a Reply to lock, unlock and flush
inline constexpr int kPostTag = 2;     // target -> origin: MPI_Win_post opened the exposure epoch
// An operation's own messages: tag (Request::tag) + one of the offsets below, tags from
// kFirstOpTag on, kTagsPerOp per operation, reused after kOpTags.
inline constexpr int kFirstOpTag = 16;
inline constexpr int kOpTags = 1 << 28;
inline constexpr int kTagsPerOp = 4;
inline constexpr int kDataTag = 0;     // origin -> target: data that did not fit in the request
inline constexpr int kBodyTag = 1;     // origin -> target: a long_request's request message
inline constexpr int kFetchedTag = 2;  // target -> origin: fetched data (gets, get_accumulate, CAS)

enum class RequestKind : std::uint8_t {
  put,
  get,
  accumulate,
  get_accumulate,  // and MPI_Fetch_and_op
  compare_and_swap,
  lock,
  unlock,
  flush,
  complete,      // MPI_Win_complete: the origin's accesses of this epoch are all before it
  long_request,  // the request did not fit: it follows as one message of `bytes` on `tag`
};

inline constexpr std::uint8_t kFlagInlineData = 1;  // the data follows the blocks in this message
inline constexpr std::uint8_t kFlagExclusive = 2;   // lock: exclusive

// A request; the target region's layout blocks follow it (nblocks base::Strided), then the
// inline data. The region is the layout at `offset` bytes from the target's window base (an
// address for a dynamic window).
struct Request {
  RequestKind kind = RequestKind::put;
  std::uint8_t flags = 0;
  std::uint16_t unused = 0;
  std::int32_t op = 0;         // accumulates: the predefined operation handle
  std::int32_t elem_type = 0;  // accumulates: the predefined type of every element
  std::int32_t tag = 0;        // the first of this operation's tags (kDataTag...)
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;     // origin data bytes (long_request: bytes of the request message)
  std::uint64_t repeat = 0;
  std::int64_t extent = 0;
  std::uint64_t bytes_per_copy = 0;
  std::uint32_t nblocks = 0;
  std::uint32_t unused2 = 0;
};
static_assert(sizeof(Request) == 64);

enum class ReplyKind : std::uint8_t { lock_granted, unlocked, flushed };
struct Reply {
  ReplyKind kind = ReplyKind::flushed;
};

// The largest request message the target's posted receive takes; larger ones go as long_request.
inline constexpr std::size_t kRequestBytes = 4096;

}  // namespace railmpi::rma
