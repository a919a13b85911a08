#include "coll/schedule.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "core/datatype/datatype.hpp"
#include "core/datatype/type_table.hpp"

namespace railmpi::coll {
namespace {
constexpr int kTagMask = 0x0fffffff;
constexpr int kLocalGroupTag = 0x10000000;  // intercommunicators: traffic inside the local group
}  // namespace

void Reducer::operator()(const void* in, void* inout, std::size_t count) const {
  if (count == 0) return;
  if (fn) {
    fn(in, inout, count);
    return;
  }
  if (types) {
    typed(static_cast<const std::byte*>(in), static_cast<std::byte*>(inout), count);
    return;
  }
  // User functions take an int length: split very long vectors.
  auto* a = static_cast<std::byte*>(const_cast<void*>(in));
  auto* b = static_cast<std::byte*>(inout);
  while (count > 0) {
    int len = static_cast<int>(std::min<std::size_t>(count, INT_MAX));
    int dt = datatype;
    user(a, b, &len, &dt);
    a += std::size_t(len) * elem;
    b += std::size_t(len) * elem;
    count -= std::size_t(len);
  }
}

void Reducer::typed(const std::byte* in, std::byte* inout, std::size_t count) const {
  // Chunks of at most ~1 MiB of typed memory (and INT_MAX elements: the user function's length).
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  const std::size_t stride = static_cast<std::size_t>(extent < 0 ? -extent : extent);
  const std::size_t chunk = std::min<std::size_t>(std::max<std::size_t>(1, kChunkBytes / std::max<std::size_t>(stride, 1)), INT_MAX);
  const std::size_t n0 = std::min(chunk, count);
  // Element i of a chunk spans true_lb + i*extent .. + true_extent from the chunk's base.
  const std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(n0 - 1) * extent;
  const std::ptrdiff_t lo = true_lb + std::min<std::ptrdiff_t>(0, reach);
  const std::ptrdiff_t hi = true_lb + true_extent + std::max<std::ptrdiff_t>(0, reach);
  std::vector<std::byte> a(static_cast<std::size_t>(hi - lo)), b(static_cast<std::size_t>(hi - lo));
  std::byte* base_a = a.data() - lo;
  std::byte* base_b = b.data() - lo;
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(chunk, count - done);
    core::unpack(*types, in + done * elem, n * elem, n, datatype, base_a);
    core::unpack(*types, inout + done * elem, n * elem, n, datatype, base_b);
    int len = static_cast<int>(n);
    int dt = datatype;
    user(base_a, base_b, &len, &dt);
    core::pack(*types, base_b, n, datatype, inout + done * elem);
    done += n;
  }
}

Schedule::Schedule(Engine* engine, const core::Communicator& comm) : Schedule(engine, comm, next_tag(comm)) {}

Schedule::Schedule(Engine* engine, const core::Communicator& comm, int tag)
    : engine_(engine), comm_(&comm), tag_(tag) {
  open_round();
}

void Schedule::reset(Engine* engine, const core::Communicator& comm, int tag) {
  engine_ = engine;
  comm_ = &comm;
  tag_ = tag;
  on_done = nullptr;
  release_held_types();  // none unless the schedule was dropped before it finished
  rounds_.clear();
  transfers_.clear();
  steps_.clear();
  calls_.clear();
  if (transfers_.capacity() > Engine::kKeptTransfersMax) std::vector<Transfer>().swap(transfers_);
  if (steps_.capacity() > Engine::kKeptTransfersMax) std::vector<Step>().swap(steps_);
  // Scratch kept for the next use, up to Engine::kKeptScratchMax in all.
  std::size_t kept = 0;
  for (base::ByteRoom& b : scratch_) {
    if (kept + b.capacity() > Engine::kKeptScratchMax) b.release();
    kept += b.capacity();
  }
  scratch_used_ = 0;
  current_ = 0;
  pending_ = 0;
  posting_ = queued_ = done_ = truncated_ = false;
  open_round();
}

int Schedule::next_tag(const core::Communicator& comm) { return static_cast<int>(comm.coll_seq++ & kTagMask); }

std::byte* Schedule::scratch(std::size_t bytes) {
  if (scratch_used_ == scratch_.size()) scratch_.emplace_back();
  std::byte* p = scratch_[scratch_used_++].at_least(bytes);
  std::memset(p, 0, bytes);
  return p;
}

void Schedule::open_round() {
  rounds_.push_back(Round{transfers_.size(), 0, steps_.size(), 0, false});
}

Schedule::Round& Schedule::current_for_transfer() {
  // A transfer after a local step belongs to the next round (it may depend on the step).
  if (rounds_.back().steps != 0) open_round();
  return rounds_.back();
}

Schedule::Transfer& Schedule::add_transfer() {
  ++current_for_transfer().transfers;
  Transfer& t = transfers_.emplace_back();
  t.owner = this;
  return t;
}

Schedule::Step& Schedule::add_step() {
  ++rounds_.back().steps;
  return steps_.emplace_back();
}

void Schedule::send(const void* buf, std::size_t bytes, int peer, bool local) {
  if (peer == p2p::kProcNull) return;
  Transfer& t = add_transfer();
  t.is_send = true;
  t.buf = buf;
  t.bytes = bytes;
  t.peer = peer;
  t.local = local;
}

void Schedule::recv(void* buf, std::size_t bytes, int peer, bool local) {
  if (peer == p2p::kProcNull) return;
  Transfer& t = add_transfer();
  t.buf = buf;
  t.bytes = bytes;
  t.peer = peer;
  t.local = local;
}

void Schedule::reduce(const Reducer& r, const void* in, void* inout, std::size_t count) {
  if (count == 0) return;
  Step& st = add_step();
  st.kind = Step::Kind::reduce;
  st.red = r;
  st.in = in;
  st.inout = inout;
  st.count = count;
}

void Schedule::copy(const void* src, void* dst, std::size_t bytes) {
  if (bytes == 0 || src == dst) return;
  Step& st = add_step();
  st.kind = Step::Kind::copy;
  st.in = src;
  st.inout = dst;
  st.count = bytes;
}

void Schedule::unpack(const core::dtype::TypeTable& types, int type, const std::byte* flat, std::size_t bytes,
                      std::size_t count, void* typed) {
  if (count == 0) return;
  Step& st = add_step();
  st.kind = Step::Kind::unpack;
  st.red.types = &types;
  st.red.datatype = type;
  st.in = flat;
  st.inout = typed;
  st.count = count;
  st.bytes = bytes;
}

void Schedule::hold_type(core::dtype::TypeTable& types, int type) {
  bool predefined;
  core::builtin_size(type, predefined);
  if (predefined || !types.find(type)) return;
  core::dtype::retain(types, type);
  held_types_table_ = &types;
  held_types_.push_back(type);
}

void Schedule::release_held_types() {
  for (int type : held_types_) core::dtype::release(*held_types_table_, type);
  held_types_.clear();
}

void Schedule::local(std::function<void()> fn) {
  Step& st = add_step();
  st.kind = Step::Kind::call;
  st.count = calls_.size();
  calls_.push_back(std::move(fn));
}

void Schedule::round() {
  if (rounds_.back().transfers != 0 || rounds_.back().steps != 0) open_round();
}

void Schedule::run_steps(const Round& r) {
  for (std::size_t i = r.first_step; i < r.first_step + r.steps; ++i) {
    const Step& st = steps_[i];
    switch (st.kind) {
    case Step::Kind::reduce: st.red(st.in, st.inout, st.count); break;
    case Step::Kind::copy: std::memmove(st.inout, st.in, st.count); break;
    case Step::Kind::unpack:
      core::unpack(*st.red.types, static_cast<const std::byte*>(st.in), st.bytes, st.count, st.red.datatype, st.inout);
      break;
    case Step::Kind::call: calls_[st.count](); break;
    }
  }
}

void Schedule::on_transfer_done(p2p::Request& r) {
  auto* t = static_cast<Transfer*>(r.owner);
  Schedule* s = t->owner;
  if (r.truncated) s->truncated_ = true;
  if (--s->pending_ > 0 || s->posting_) return;
  if (!s->queued_) {
    s->queued_ = true;
    s->engine_->ready_.push_back(s);
    s->engine_->armed_ = true;
  }
}

void Schedule::start() { advance(); }

void Schedule::advance() {
  queued_ = false;
  while (current_ < rounds_.size()) {
    Round& r = rounds_[current_];
    if (!r.posted && r.transfers != 0) {
      r.posted = true;
      // Post the round's transfers.
      posting_ = true;
      pending_ = static_cast<int>(r.transfers);
      const int tag = tag_;
      for (Transfer& t : transfers_of(r)) {
        t.req.owner = &t;
        t.req.on_complete = &Schedule::on_transfer_done;
        const int ctag = t.local ? (tag | kLocalGroupTag) : tag;
        if (t.is_send) {
          const int job = t.local ? comm_->job_ranks[static_cast<std::size_t>(t.peer)] : comm_->job_rank(t.peer);
          engine_->p2p_.isend(t.req, t.buf, t.bytes, job, comm_->coll_context(), comm_->rank, ctag,
                             p2p::SendMode::standard, p2p::Marker::collective);
        } else {
          engine_->p2p_.irecv(t.req, const_cast<void*>(t.buf), t.bytes, comm_->coll_context(), t.peer, ctag,
                             p2p::Marker::collective);
        }
      }
      posting_ = false;
    }
    if (pending_ > 0) return;  // the last completion queues the schedule again
    run_steps(r);
    r.steps = 0;
    ++current_;
  }
  if (!done_) {
    done_ = true;
    release_held_types();
    if (on_done) on_done();
  }
}

void Recycle::operator()(Schedule* s) const {
  if (engine) engine->recycle(s);
  else delete s;
}

Engine::Engine(p2p::Engine& p2p, progress::Engine& progress) : p2p_(p2p), progress_(progress) {
  progress_.set_hook(progress::Engine::HookSlot::collectives, &Engine::hook, this, &armed_);
}

Engine::~Engine() {
  progress_.set_hook(progress::Engine::HookSlot::collectives, nullptr, nullptr, nullptr);
  running_.clear();  // their deleters give them to pool_, still alive here
}

SchedulePtr Engine::create(const core::Communicator& comm, int tag) {
  if (pool_.empty()) return SchedulePtr(new Schedule(this, comm, tag), Recycle{this});
  Schedule* s = pool_.back().release();
  pool_.pop_back();
  s->reset(this, comm, tag);
  return SchedulePtr(s, Recycle{this});
}

void Engine::recycle(Schedule* s) {
  if (pool_.size() >= kPoolMax) {
    delete s;
    return;
  }
  s->on_done = nullptr;  // drop what its callback holds now, not at its next use
  pool_.emplace_back(s);
}

int Engine::hook(void* ctx) {
  auto* e = static_cast<Engine*>(ctx);
  e->armed_ = false;
  if (e->ready_.empty()) return 0;
  // A schedule's on_done may wait for progress again: a nested call takes a batch of its own.
  std::vector<Schedule*> nested;
  const bool outer = !e->in_hook_;
  std::vector<Schedule*>& batch = outer ? e->batch_ : nested;
  e->in_hook_ = true;
  int n = 0;
  while (!e->ready_.empty()) {
    batch.swap(e->ready_);
    for (Schedule* s : batch) {
      ++n;
      s->advance();
      if (s->done_) e->finished(s);
    }
    batch.clear();
  }
  if (outer) e->in_hook_ = false;
  return n;
}

void Engine::finished(Schedule* s) {
  auto it = std::find_if(running_.begin(), running_.end(), [s](const auto& p) { return p.get() == s; });
  if (it != running_.end()) running_.erase(it);  // blocking schedules belong to their caller
}

void Engine::start(SchedulePtr s) {
  Schedule* raw = s.get();
  if (raw->own_comm_) *raw->own_comm_ = *raw->comm_;  // the copy's vectors keep their memory
  else raw->own_comm_ = std::make_unique<core::Communicator>(*raw->comm_);
  raw->comm_ = raw->own_comm_.get();
  running_.push_back(std::move(s));
  raw->start();
  if (raw->done_) finished(raw);
}

bool Engine::run(SchedulePtr s) {
  s->start();
  Schedule* raw = s.get();
  progress_.wait_until([raw] { return raw->done_; });
  return raw->truncated_;
}

}  // namespace railmpi::coll
