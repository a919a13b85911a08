#include "coll/schedule.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

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
  rounds_.emplace_back();
}

int Schedule::next_tag(const core::Communicator& comm) { return static_cast<int>(comm.coll_seq++ & kTagMask); }

std::byte* Schedule::scratch(std::size_t bytes) {
  scratch_.push_back(std::make_unique<std::byte[]>(bytes ? bytes : 1));
  return scratch_.back().get();
}

Schedule::Round& Schedule::current_for_transfer() {
  // A transfer after a local step belongs to the next round (it may depend on the step).
  if (!rounds_.back().steps.empty()) rounds_.emplace_back();
  return rounds_.back();
}

void Schedule::send(const void* buf, std::size_t bytes, int peer, bool local) {
  if (peer == p2p::kProcNull) return;
  Transfer& t = current_for_transfer().transfers.emplace_back();
  t.is_send = true;
  t.buf = buf;
  t.bytes = bytes;
  t.peer = peer;
  t.local = local;
  t.owner = this;
}

void Schedule::recv(void* buf, std::size_t bytes, int peer, bool local) {
  if (peer == p2p::kProcNull) return;
  Transfer& t = current_for_transfer().transfers.emplace_back();
  t.buf = buf;
  t.bytes = bytes;
  t.peer = peer;
  t.local = local;
  t.owner = this;
}

void Schedule::reduce(const Reducer& r, const void* in, void* inout, std::size_t count) {
  if (count == 0) return;
  Reducer red = r;
  rounds_.back().steps.push_back([red, in, inout, count] { red(in, inout, count); });
}

void Schedule::copy(const void* src, void* dst, std::size_t bytes) {
  if (bytes == 0 || src == dst) return;
  rounds_.back().steps.push_back([src, dst, bytes] { std::memmove(dst, src, bytes); });
}

void Schedule::local(std::function<void()> fn) { rounds_.back().steps.push_back(std::move(fn)); }

void Schedule::round() {
  if (!rounds_.back().transfers.empty() || !rounds_.back().steps.empty()) rounds_.emplace_back();
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
    if (!r.posted && !r.transfers.empty()) {
      r.posted = true;
      // Post the round's transfers.
      posting_ = true;
      pending_ = static_cast<int>(r.transfers.size());
      const int tag = tag_;
      for (Transfer& t : r.transfers) {
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
    for (auto& step : r.steps) step();
    r.steps.clear();
    ++current_;
  }
  if (!done_) {
    done_ = true;
    if (on_done) on_done();
  }
}

Engine::Engine(p2p::Engine& p2p, progress::Engine& progress) : p2p_(p2p), progress_(progress) {
  progress_.set_hook(progress::Engine::HookSlot::collectives, &Engine::hook, this, &armed_);
}

Engine::~Engine() { progress_.set_hook(progress::Engine::HookSlot::collectives, nullptr, nullptr, nullptr); }

int Engine::hook(void* ctx) {
  auto* e = static_cast<Engine*>(ctx);
  e->armed_ = false;
  if (e->ready_.empty()) return 0;
  int n = 0;
  std::vector<Schedule*> batch;
  while (!e->ready_.empty()) {
    batch.swap(e->ready_);
    for (Schedule* s : batch) {
      ++n;
      s->advance();
      if (s->done_) e->finished(s);
    }
    batch.clear();
  }
  return n;
}

void Engine::finished(Schedule* s) {
  auto it = std::find_if(running_.begin(), running_.end(), [s](const auto& p) { return p.get() == s; });
  if (it != running_.end()) running_.erase(it);  // blocking schedules belong to their caller
}

void Engine::start(std::unique_ptr<Schedule> s) {
  Schedule* raw = s.get();
  raw->own_comm_ = std::make_unique<core::Communicator>(*raw->comm_);
  raw->comm_ = raw->own_comm_.get();
  running_.push_back(std::move(s));
  raw->start();
  if (raw->done_) finished(raw);
}

bool Engine::run(std::unique_ptr<Schedule> s) {
  s->start();
  Schedule* raw = s.get();
  progress_.wait_until([raw] { return raw->done_; });
  return raw->truncated_;
}

}  // namespace railmpi::coll
