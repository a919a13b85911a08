// Node-level collectives: blocking barrier, bcast, reduce and allreduce of small messages on
// intracommunicators whose ranks all share one node, through one slot of the node's shared region
// (mcm/node_memory.hpp) instead of point-to-point messages. Every call returns false, having done
// nothing, when the communicator or the message does not qualify; the caller then runs the
// point-to-point schedule. Whether a call qualifies depends only on what every member agrees on
// (communicator, size in bytes, predefined operation), so all members take the same path.
//
// Slot: the communicator's rank 0 claims one at the communicator's first qualifying call and
// broadcasts its index over point-to-point (once); each member releases it when it frees the
// communicator. Layout, with n members and L = RAILMPI_NODE_COLL_LIMIT rounded up to 64:
//   line 0        release: number of the last call whose writer finished
//   lines 1..n    arrive[i]: number of the last call rank i entered
//   2 cells of L  results of bcast and allreduce, alternating by call number
//   n cells of L  each rank's contribution to a reduction
// A line is 64 bytes: a 32-bit call number (a futex word), the count of ranks asleep on it and the
// byte count its writer passed (the release line: the largest of the call; ranks expecting fewer
// bytes report a truncation, as the point-to-point algorithms do).
//
// Call s (the communicator's s-th node-level collective): every rank sets arrive[me] = s. One
// writer (the root of bcast and reduce, rank 0 of barrier and allreduce) waits for what it needs,
// does the work and sets release = s; every other rank waits for release >= s, then copies its
// result. Reductions are combined in one fixed order, x0 op (x1 op (... op x(n-1))), by one rank,
// so every rank gets bitwise the same result. A bcast root only waits until every rank entered
// call s-1 (the reader of the result cell it is about to fill finished call s-2).
// Waiting spins RAILMPI_SPIN_COUNT times, yields RAILMPI_YIELD_COUNT times, then sleeps on the
// futex in growing slices; the progress engine is polled throughout, so point-to-point and
// non-blocking collective traffic keeps moving.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/settings.hpp"
#include "coll/schedule.hpp"
#include "core/communicator.hpp"
#include "mcm/multi_method.hpp"
#include "mcm/node_memory.hpp"

namespace railmpi::coll {

class NodeCollectives {
 public:
  NodeCollectives(mcm::MultiMethod& mcm, Engine& engine, const base::Settings& settings);

  // not_taken: nothing done, run the point-to-point schedule. truncated: the call completed but
  // another rank passed more data than this one expects (counts differ across ranks: an error).
  enum class Result { not_taken, done, truncated };

  Result barrier(const core::Communicator& c);
  // `bytes` contiguous bytes at buf, from root to every rank.
  Result bcast(const core::Communicator& c, void* buf, std::size_t bytes, int root);
  // Predefined operations only (op.fn set). recvbuf matters at the root only; sendbuf may equal
  // recvbuf (in place).
  Result reduce(const core::Communicator& c, const void* sendbuf, void* recvbuf, std::size_t count,
                const Reducer& op, int root);
  Result allreduce(const core::Communicator& c, const void* sendbuf, void* recvbuf, std::size_t count,
                   const Reducer& op);

  // The communicator is being freed: drops its reference to its slot.
  void release(const core::Communicator& c);

  std::size_t limit() const { return limit_; }

 private:
  struct alignas(64) Line {
    std::uint32_t seq;
    std::uint32_t sleepers;
    std::uint64_t bytes;
  };
  // One call's view of the communicator's slot.
  struct Cell {
    Line* release;
    Line* arrive;  // [n]
    std::byte* results;  // 2 cells
    std::byte* inputs;   // n cells
    std::size_t cell;
    std::uint32_t seq;
    std::byte* result() const { return results + (seq & 1u) * cell; }
    std::byte* input(int rank) const { return inputs + std::size_t(rank) * cell; }
  };

  // Whether `c` may take the node path for `bytes`; decides its slot on the first call.
  bool usable(const core::Communicator& c, std::size_t bytes);
  void decide(const core::Communicator& c);
  Cell begin(const core::Communicator& c);
  // Waits until line.seq has reached `target` (wraparound-safe).
  void wait_for(Line& line, std::uint32_t target);
  void post(Line& line, std::uint32_t value, std::size_t bytes);
  // Largest byte count posted by ranks [0, n) for call k.seq (the writer, after waiting for all).
  static std::size_t largest(const Cell& k, int n);
  static Result outcome(const Cell& k, std::size_t bytes) {
    return k.release->bytes > bytes ? Result::truncated : Result::done;
  }
  // Writer of a reduction: x0 op (x1 op (... op x(n-1))) of the input cells into out.
  void combine(const Cell& k, int n, void* out, std::size_t count, const Reducer& op);

  mcm::MultiMethod& mcm_;
  mcm::NodeMemory memory_;
  Engine& engine_;
  std::size_t limit_;
  std::size_t cell_;
  unsigned spin_;
  unsigned yield_;
};

}  // namespace railmpi::coll
