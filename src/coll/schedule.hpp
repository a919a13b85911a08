// Collective schedules: a collective operation is built as a list of rounds; a round is a set of
// sends and receives posted together, followed by local steps (reductions, copies) run once all of
// them completed. The same schedule serves the blocking call (start, then wait for it) and the
// non-blocking one (attached to a request; it advances in the background of any MPI call that
// polls progress).
//
// Event flow: each send/receive of a round carries the schedule in its completion hook. The hook
// (possibly called from inside a device callback) only counts down; when a round's last transfer
// completes the schedule is queued, and the engine's progress hook runs its local steps and posts
// the next round outside any device callback.
//
// Tags: every collective call on a communicator takes the next number of the communicator's
// collective sequence as its tag on the collective context, so any number of outstanding
// collectives on one communicator never match each other's messages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/byte_room.hpp"
#include "core/communicator.hpp"
#include "core/datatype.hpp"
#include "core/reduce_op.hpp"
#include "p2p/engine.hpp"
#include "progress/engine.hpp"

namespace railmpi::coll {

// How to combine two vectors: a predefined function or a user function (MPI_Op_create).
// Schedules hold reduction operands packed (`elem` data bytes per element). A user function on a
// non-contiguous datatype (`types` set) gets them laid out with its datatype instead: the
// operands are unpacked into typed scratch memory, combined, and the result packed back.
struct Reducer {
  core::ReduceFn fn = nullptr;
  core::UserFn user = nullptr;
  int datatype = 0;
  std::size_t elem = 0;  // bytes per element
  bool commutative = true;
  const core::dtype::TypeTable* types = nullptr;  // set: `datatype` is non-contiguous
  std::ptrdiff_t extent = 0, true_lb = 0, true_extent = 0;
  // inout = in (op) inout, element-wise, `count` elements.
  void operator()(const void* in, void* inout, std::size_t count) const;

 private:
  void typed(const std::byte* in, std::byte* inout, std::size_t count) const;
};

class Engine;
class Schedule;

// Gives a finished schedule back to its engine's pool (deletes one made without an engine).
struct Recycle {
  Engine* engine = nullptr;
  void operator()(Schedule* s) const;
};
using SchedulePtr = std::unique_ptr<Schedule, Recycle>;

class Schedule {
 public:
  // `engine` may be null for a schedule that is only inspected (tests simulate them). Takes the
  // next tag of the communicator's collective sequence.
  Schedule(Engine* engine, const core::Communicator& comm);
  // A schedule on a tag taken before (next_tag()): an operation made of several schedules run one
  // after the other keeps the tag of its call.
  Schedule(Engine* engine, const core::Communicator& comm, int tag);
  // Takes the next tag of the communicator's collective sequence.
  static int next_tag(const core::Communicator& comm);
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  const core::Communicator& comm() const { return *comm_; }
  int rank() const { return comm_->rank; }
  int size() const { return comm_->size(); }

  // Scratch memory owned by the schedule (until it finishes), zeroed. Never moves.
  std::byte* scratch(std::size_t bytes);

  // Transfers of the current round. `peer` is a rank of the communicator (of the remote group
  // for an intercommunicator unless `local`); p2p::kProcNull is skipped.
  void send(const void* buf, std::size_t bytes, int peer, bool local = false);
  void recv(void* buf, std::size_t bytes, int peer, bool local = false);
  // Local steps, run after the transfers of their round.
  void reduce(const Reducer& r, const void* in, void* inout, std::size_t count);
  void copy(const void* src, void* dst, std::size_t bytes);
  // Unpacks `count` elements of `type` (a datatype of `types`) from `bytes` packed bytes at
  // `flat` into `typed` (a staged non-contiguous output, see api::collective::Staging).
  void unpack(const core::dtype::TypeTable& types, int type, const std::byte* flat, std::size_t bytes,
              std::size_t count, void* typed);
  void local(std::function<void()> fn);
  // Keeps the derived datatype `type` of `types` alive until the schedule is done: its steps
  // unpack or reduce with it, and the program may free it while a non-blocking collective runs.
  // Predefined types need nothing.
  void hold_type(core::dtype::TypeTable& types, int type);
  // Ends the current round: later transfers start once it completed.
  void round();

  // Called once when the schedule finished (after its last round).
  std::function<void()> on_done;
  bool done() const { return done_; }
  // A receive got a longer message than it expected (counts/types differ across ranks); the data
  // past its size was dropped.
  bool truncated() const { return truncated_; }

 private:
  friend class Engine;
  friend class Simulator;  // tests: runs schedules of simulated ranks without a network
  struct Transfer {
    p2p::Request req;
    bool is_send = false;
    const void* buf = nullptr;
    std::size_t bytes = 0;
    int peer = 0;
    bool local = false;
    Schedule* owner = nullptr;
  };
  // A local step: a reduction, a copy or an unpack held as data, or a call of calls_[call].
  struct Step {
    enum class Kind : std::uint8_t { reduce, copy, unpack, call } kind = Kind::copy;
    Reducer red;  // reduce; unpack: its types and datatype
    const void* in = nullptr;
    void* inout = nullptr;
    std::size_t count = 0;  // reduce, unpack: elements; copy: bytes; call: the index in calls_
    std::size_t bytes = 0;  // unpack: packed bytes at `in`
  };
  // A round: its transfers and steps are the ranges [first, first + n) of transfers_ and steps_
  // (transfers and steps are only ever added to the last round).
  struct Round {
    std::size_t first_transfer = 0, transfers = 0;
    std::size_t first_step = 0, steps = 0;
    bool posted = false;
  };
  // Makes a pooled schedule new again (its containers keep their memory).
  void reset(Engine* engine, const core::Communicator& comm, int tag);
  void open_round();
  Round& current_for_transfer();
  Transfer& add_transfer();
  Step& add_step();
  std::span<Transfer> transfers_of(const Round& r) { return {transfers_.data() + r.first_transfer, r.transfers}; }
  void run_steps(const Round& r);
  void start();        // posts the first round
  void advance();      // runs finished rounds and posts the next one
  static void on_transfer_done(p2p::Request& r);

  Engine* engine_;
  const core::Communicator* comm_;
  // Non-blocking schedules run on their own copy of the communicator's routing (the user may
  // free the communicator while the operation is pending); kept for the schedule's next use.
  std::unique_ptr<core::Communicator> own_comm_;
  int tag_;
  std::vector<Round> rounds_;
  std::vector<Transfer> transfers_;  // every round's; grows only while the schedule is built
  std::vector<Step> steps_;
  std::vector<std::function<void()>> calls_;  // bodies of local()
  core::dtype::TypeTable* held_types_table_ = nullptr;
  std::vector<int> held_types_;  // hold_type()'s, released when the schedule is done
  void release_held_types();
  std::vector<base::ByteRoom> scratch_;  // blocks kept with the schedule in the engine's pool
  std::size_t scratch_used_ = 0;  // blocks of scratch_ handed out
  std::size_t current_ = 0;
  int pending_ = 0;
  bool posting_ = false;
  bool queued_ = false;
  bool done_ = false;
  bool truncated_ = false;
};

// Owns running schedules and advances them from the progress engine's hook; keeps finished ones
// for the next calls, so a collective that repeats allocates nothing.
class Engine {
 public:
  Engine(p2p::Engine& p2p, progress::Engine& progress);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  SchedulePtr create(const core::Communicator& comm) { return create(comm, Schedule::next_tag(comm)); }
  SchedulePtr create(const core::Communicator& comm, int tag);
  // Starts a schedule; it goes back to the pool after its on_done ran.
  void start(SchedulePtr s);
  // Starts a schedule and waits for it (blocking collectives). Returns Schedule::truncated().
  bool run(SchedulePtr s);

  p2p::Engine& p2p() { return p2p_; }
  progress::Engine& progress() { return progress_; }
  std::size_t running() const { return running_.size(); }
  // Finished schedules kept for reuse.
  std::size_t pooled() const { return pool_.size(); }
  // Schedules the pool keeps at most (more finish at once only when that many ran at once); and
  // what a kept schedule keeps at most: bytes of scratch memory, transfers and steps (a schedule
  // that held more gives its memory back; small collectives need far less).
  static constexpr std::size_t kPoolMax = 64;
  static constexpr std::size_t kKeptScratchMax = std::size_t{64} << 10;
  static constexpr std::size_t kKeptTransfersMax = 256;

 private:
  friend class Schedule;
  friend struct Recycle;
  static int hook(void* ctx);
  void finished(Schedule* s);
  void recycle(Schedule* s);

  p2p::Engine& p2p_;
  progress::Engine& progress_;
  std::vector<Schedule*> ready_;
  std::vector<Schedule*> batch_;  // hook(): the schedules it advances now
  bool in_hook_ = false;
  bool armed_ = false;  // ready_ is not empty: the progress engine calls hook()
  std::vector<SchedulePtr> running_;
  std::vector<std::unique_ptr<Schedule>> pool_;
};

}  // namespace railmpi::coll
