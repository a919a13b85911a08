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
#include <deque>
#include <functional>
#include <memory>
#include <vector>

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

  // Scratch memory owned by the schedule (freed with it). Never moves.
  std::byte* scratch(std::size_t bytes);

  // Transfers of the current round. `peer` is a rank of the communicator (of the remote group
  // for an intercommunicator unless `local`); p2p::kProcNull is skipped.
  void send(const void* buf, std::size_t bytes, int peer, bool local = false);
  void recv(void* buf, std::size_t bytes, int peer, bool local = false);
  // Local steps, run after the transfers of their round.
  void reduce(const Reducer& r, const void* in, void* inout, std::size_t count);
  void copy(const void* src, void* dst, std::size_t bytes);
  void local(std::function<void()> fn);
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
  struct Round {
    std::deque<Transfer> transfers;
    std::vector<std::function<void()>> steps;
    bool posted = false;
  };
  Round& current_for_transfer();
  void start();        // posts the first round
  void advance();      // runs finished rounds and posts the next one
  static void on_transfer_done(p2p::Request& r);

  Engine* engine_;
  const core::Communicator* comm_;
  // Non-blocking schedules run on their own copy of the communicator's routing (the user may
  // free the communicator while the operation is pending).
  std::unique_ptr<core::Communicator> own_comm_;
  int tag_;
  std::deque<Round> rounds_;
  std::deque<std::unique_ptr<std::byte[]>> scratch_;
  std::size_t current_ = 0;
  int pending_ = 0;
  bool posting_ = false;
  bool queued_ = false;
  bool done_ = false;
  bool truncated_ = false;
};

// Owns running schedules and advances them from the progress engine's hook.
class Engine {
 public:
  Engine(p2p::Engine& p2p, progress::Engine& progress);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  std::unique_ptr<Schedule> create(const core::Communicator& comm) {
    return std::make_unique<Schedule>(this, comm);
  }
  std::unique_ptr<Schedule> create(const core::Communicator& comm, int tag) {
    return std::make_unique<Schedule>(this, comm, tag);
  }
  // Starts a schedule; it is destroyed after its on_done ran.
  void start(std::unique_ptr<Schedule> s);
  // Starts a schedule and waits for it (blocking collectives). Returns Schedule::truncated().
  bool run(std::unique_ptr<Schedule> s);

  p2p::Engine& p2p() { return p2p_; }
  progress::Engine& progress() { return progress_; }
  std::size_t running() const { return running_.size(); }

 private:
  friend class Schedule;
  static int hook(void* ctx);
  void finished(Schedule* s);

  p2p::Engine& p2p_;
  progress::Engine& progress_;
  std::vector<Schedule*> ready_;
  bool armed_ = false;  // ready_ is not empty: the progress engine calls hook()
  std::vector<std::unique_ptr<Schedule>> running_;
};

}  // namespace railmpi::coll
