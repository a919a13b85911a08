// One-sided communication over the point-to-point engine: a window's origin side (operations,
// flushes, locks, epochs) and its target side (the requests other ranks send it).
//
// Every operation is a request message to the target on the window's context (rma/wire.hpp).
// The target keeps one receive posted for requests and handles them in arrival order when it
// makes progress (a progress hook: passive-target operations progress while the target is in any
// MPI call, as with MPICH's ch3 and Open MPI's pt2pt component). Small data travels in the
// request; larger data follows as its own message, received straight into the window (puts) or
// sent straight out of it (gets) through the region's layout, with no staging copy. While a
// request's data is on its way, the target handles no later request: so a flush, an unlock or an
// epoch's complete, answered in arrival order, reaches the target after every earlier operation
// from that origin is done there, and accumulates apply in the order they were issued.
// Nothing here knows MPI handles beyond the predefined operations and types that accumulates
// apply (core::find_reduce).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "base/layout.hpp"
#include "base/object_pool.hpp"
#include "p2p/engine.hpp"
#include "progress/engine.hpp"
#include "rma/wire.hpp"

namespace railmpi::rma {

// Where one rank's window memory is, as every rank learns it when the window is created.
struct TargetInfo {
  static constexpr std::uint64_t kAddresses = UINT64_MAX;  // size of a dynamic window: any address
  std::uint64_t base = 0;
  std::uint64_t size = 0;
  std::int64_t disp_unit = 1;
};

// Bytes at the origin: `bytes` contiguous bytes at `ptr`, or (layout set) the layout's runs.
struct Buffer {
  std::byte* ptr = nullptr;
  std::size_t bytes = 0;
  const base::Layout* layout = nullptr;  // copied by the call: need not outlive it
};

// Bytes at the target: `layout` (base ignored) placed at `offset` bytes from the window base.
struct Region {
  std::uint64_t offset = 0;
  base::Layout layout;  // copied by the call
};

// An accumulate's operation: predefined `op` applied to elements of predefined `elem_type` of
// `elem_size` bytes (MPI_REPLACE and MPI_NO_OP included).
struct Reduction {
  int op = 0;
  int elem_type = 0;
  std::size_t elem_size = 1;
};

// A window whose every rank's memory this process maps (shared memory, one node): operations are
// the origin's own loads and stores (rma/direct_access.cpp), accumulates and atomics under the
// target's lock word, MPI_Win_lock an atomic on the target's epoch word: the target takes no part
// (it may compute without calling MPI). Only an epoch's complete (post/start/complete/wait) is
// still a message.
struct DirectAccess {
  std::vector<std::byte*> bases;             // each target's window memory, mapped in this process
  std::vector<std::uint32_t*> locks;         // each target's accumulate lock (0 free, 1 held)
  std::vector<std::uint32_t*> epoch_locks;   // each target's MPI_Win_lock word (rma/epoch_lock.hpp)
};

class Engine;

class Window {
 public:
  // `context`: the window's own point-to-point context; `rank`: this rank in the window's group;
  // `job_ranks`: the group's job ranks; `targets`: every rank's memory; `memory`: this rank's.
  Window(Engine& engine, int context, int rank, std::vector<int> job_ranks, std::vector<TargetInfo> targets);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  // From now on, operations go through `direct` (every target's memory, mapped here).
  void use_direct_access(DirectAccess direct) { direct_ = std::move(direct); }
  bool direct() const { return !direct_.bases.empty(); }
  // Whether operations on `target` are this rank's loads and stores: every target of a window in
  // shared memory, and this rank itself on any window (its own requests would be handled by this
  // thread, between its own calls, so no other access can come between the loads and stores).
  bool reaches_directly(int target) const { return direct() || target == rank_; }

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(job_ranks_.size()); }
  const TargetInfo& target(int rank) const { return targets_[static_cast<std::size_t>(rank)]; }

  // Operations. `done` (may be null) is completed (complete = true, then its on_complete) when the
  // operation is complete at the origin: its data sent, its fetched data arrived.
  void put(int target, const Buffer& origin, const Region& where, p2p::Request* done);
  void get(int target, const Buffer& origin, const Region& where, p2p::Request* done);
  void accumulate(int target, const Buffer& origin, const Region& where, const Reduction& red, p2p::Request* done);
  // Fetches the region's old contents into `result`, then applies `origin` (empty for MPI_NO_OP).
  void get_accumulate(int target, const Buffer& origin, const Buffer& result, const Region& where,
                      const Reduction& red, p2p::Request* done);
  // `origin` and `compare` hold one element of `elem_size` bytes; `result` receives the old one.
  void compare_and_swap(int target, const std::byte* origin, const std::byte* compare, std::byte* result,
                        std::uint64_t offset, std::size_t elem_size, p2p::Request* done);

  // Waits until every operation started here is complete at the origin.
  void wait_local();
  // Waits until nothing is in flight either way (every rank's epochs on the window are over).
  void wait_idle();
  // Waits until every operation to each of `targets` is complete at its target (and here): asks
  // those with puts or accumulates since their last flush.
  void flush(std::span<const int> targets);
  // Every rank of the window's group, in order (for flushes and locks of all targets).
  std::span<const int> everyone() const { return everyone_; }

  // Passive target: waits until the target grants the lock; unlock() flushes first.
  void lock(int target, bool exclusive);
  void unlock(int target);
  // MPI_Win_lock_all / MPI_Win_unlock_all: shared locks of every target, asked for together.
  void lock_shared(std::span<const int> targets);
  void unlock_all(std::span<const int> targets);
  // Generalized active target. post(): opens this rank's exposure to `origins` (they learn it in
  // start()); start() waits for every target's post; complete() ends the access epoch at each
  // target of the start; wait() / test() end the exposure once every origin completed.
  void post(std::span<const int> origins);
  void start(std::span<const int> targets);
  void complete(std::span<const int> targets);
  void wait_exposure();
  bool test_exposure();

  // Target side: handles arrived requests in order. Returns the number of events.
  int progress();
  // Whether progress() has work it can do now.
  bool ready() const { return request_recv_.complete || (stalled_ && stalled_->req.complete) || (!stalled_ && !queue_.empty()); }

 private:
  struct OriginOp {
    Window* window = nullptr;
    // The request (or a long request's announcement), its separate data, the fetched data, a
    // long request's message.
    p2p::Request message, data, fetched, body;
    Request long_header;
    int pending = 0;  // parts not complete, + 1 while the operation is being started
    p2p::Request* done = nullptr;
    std::vector<std::byte> bytes;  // the request message
    std::vector<base::Strided> origin_blocks, result_blocks;
    base::Layout origin_layout, result_layout;
  };
  struct TargetOp {
    Window* window = nullptr;
    p2p::Request req;
    int origin = 0;
    Request request;                 // the request this op serves
    std::vector<std::byte> bytes;    // received data, fetched data, a reply
    std::vector<base::Strided> blocks;
    base::Layout layout;             // the region in this rank's window
  };
  struct Incoming {
    int origin = 0;
    std::vector<std::byte> message;
  };

  // Direct access (rma/direct_access.cpp).
  std::byte* direct_region(int target, const Region& where) const;
  void direct_put(int target, const Buffer& origin, const Region& where);
  void direct_get(int target, const Buffer& origin, const Region& where);
  void direct_accumulate(int target, const Buffer& origin, const Buffer* result, const Region& where,
                         const Reduction& red);
  void direct_compare_and_swap(int target, const std::byte* origin, const std::byte* compare, std::byte* result,
                               std::uint64_t offset, std::size_t elem_size);
  void lock_target(int target);
  void unlock_target(int target);
  void direct_lock(int target, bool exclusive);
  void direct_unlock(int target);
  static void complete_now(p2p::Request* done);

  OriginOp* origin_op(p2p::Request* done);
  static void origin_part_done(p2p::Request& r);
  void drop_guard(OriginOp& op);
  // Builds the request message of an operation (header, the region's blocks, `inline_data`
  // bytes of room for data when they fit): returns where the data goes, nullptr when the data
  // must follow as its own message (or the request as a long_request).
  std::byte* build_request(OriginOp& op, Request h, const base::Layout& region, std::size_t inline_data);
  void send_request(OriginOp& op, int target, std::size_t message_bytes);
  void send_with_data(int target, const Buffer& origin, const Region& where, Request h, p2p::Request* done);
  int next_tag();
  void copy_origin_layout(OriginOp& op, const Buffer& b, bool result);
  void gather(const Buffer& b, std::byte* out) const;
  // Puts and accumulates: done at the target only once it answers a flush. Gets, fetches and
  // compare-and-swap are done there when their data arrives here (the target sends it after it
  // has read, or applied): flushing them is waiting for them (osu_rma get_lat over
  // MPI_Win_create: one round trip a get instead of two).
  void touch(int target) { touched_[static_cast<std::size_t>(target)] = 1; }
  // One control request to each target, then waits for each reply.
  void control(std::span<const int> targets, RequestKind kind, std::uint8_t flags);

  TargetOp* target_op();
  static void target_op_done(p2p::Request& r);
  void release(TargetOp* op);
  static void request_arrived(p2p::Request& r);
  void post_request_recv();
  void handle(int origin, std::span<const std::byte> message);
  // Sets op.layout to the request's region in this rank's window.
  void region_layout(TargetOp& op, const Request& h, std::span<const std::byte> blocks);
  void finish_stalled();
  void apply(TargetOp& op, std::span<const std::byte> data);
  void fetch_and_apply(TargetOp& op, std::span<const std::byte> data);
  void reply(int origin, int tag, std::span<const std::byte> bytes);
  void grant_waiting_locks();
  bool lockable(bool exclusive) const { return !exclusive_held_ && (!exclusive || shared_holders_ == 0); }

  Engine& engine_;
  DirectAccess direct_;
  int context_;
  int rank_;
  std::vector<int> job_ranks_;
  std::vector<TargetInfo> targets_;
  std::uint32_t next_id_ = 0;
  base::ObjectPool<OriginOp> origin_ops_;
  int in_flight_ = 0;
  std::vector<std::uint8_t> touched_;
  std::vector<int> flush_targets_;  // flush()'s, kept
  std::vector<int> everyone_;       // 0 .. size - 1
  // control()'s and start()'s requests and replies, kept (grown, never shrunk, while none is in
  // flight: both wait for all of theirs before they return).
  std::vector<p2p::Request> control_sends_, control_replies_;
  std::vector<Reply> control_got_;

  // Target side.
  p2p::Request request_recv_;
  std::vector<std::byte> request_room_;
  std::deque<Incoming> queue_;
  std::vector<std::vector<std::byte>> spare_messages_;
  TargetOp* stalled_ = nullptr;  // the op whose data the queue waits for
  base::ObjectPool<TargetOp> target_ops_;
  int target_busy_ = 0;
  int shared_holders_ = 0;
  bool exclusive_held_ = false;
  struct LockWaiter {
    int origin;
    bool exclusive;
  };
  std::deque<LockWaiter> lock_waiters_;
  int completes_seen_ = 0;     // MPI_Win_complete requests handled
  int completes_expected_ = 0; // origins of the exposure epoch in force
};

// The windows of this process, and the progress hook that runs their target sides.
class Engine {
 public:
  Engine(p2p::Engine& p2p, progress::Engine& progress);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  p2p::Engine& p2p() { return p2p_; }
  progress::Engine& progress() { return progress_; }
  void add(Window* w) { windows_.push_back(w); }
  void remove(Window* w);
  void arm() { armed_ = true; }

 private:
  static int hook(void* ctx);
  p2p::Engine& p2p_;
  progress::Engine& progress_;
  std::vector<Window*> windows_;
  bool armed_ = false;
};

}  // namespace railmpi::rma
