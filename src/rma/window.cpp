#include "rma/window.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/datatype.hpp"
#include "core/reduce_op.hpp"
#include "rma/region_walk.hpp"

namespace railmpi::rma {
namespace {

constexpr auto kMarker = p2p::Marker::nonblocking;

std::byte* address(std::uint64_t a) { return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(a)); }

}  // namespace

Window::Window(Engine& engine, int context, int rank, std::vector<int> job_ranks, std::vector<TargetInfo> targets)
    : engine_(engine),
      context_(context),
      rank_(rank),
      job_ranks_(std::move(job_ranks)),
      targets_(std::move(targets)),
      touched_(job_ranks_.size(), 0),
      request_room_(kRequestBytes) {
  everyone_.resize(job_ranks_.size());
  for (std::size_t i = 0; i < everyone_.size(); ++i) everyone_[i] = static_cast<int>(i);
  request_recv_.owner = this;
  request_recv_.on_complete = &Window::request_arrived;
  engine_.add(this);
  post_request_recv();
}

Window::~Window() {
  if (!request_recv_.complete) engine_.p2p().cancel_recv(request_recv_);
  engine_.remove(this);
}

// ---- origin side ----

Window::OriginOp* Window::origin_op(p2p::Request* done) {
  OriginOp* op = origin_ops_.take([this](OriginOp& o) {
    o.window = this;
    for (p2p::Request* r : {&o.message, &o.data, &o.fetched, &o.body}) {
      r->owner = &o;
      r->on_complete = &Window::origin_part_done;
    }
  });
  op->pending = 1;  // a guard: parts completing at once do not finish it while it is built
  op->done = done;
  ++in_flight_;
  return op;
}

void Window::origin_part_done(p2p::Request& r) { static_cast<OriginOp*>(r.owner)->window->drop_guard(*static_cast<OriginOp*>(r.owner)); }

void Window::drop_guard(OriginOp& o) {
  OriginOp* op = &o;
  if (--op->pending > 0) return;
  Window& w = *this;
  if (p2p::Request* done = op->done) {
    done->complete = true;
    if (done->on_complete) done->on_complete(*done);
  }
  --w.in_flight_;
  w.origin_ops_.give(op);
}

int Window::next_tag() {
  const int tag = kFirstOpTag + static_cast<int>((next_id_ * kTagsPerOp) % kOpTags);
  ++next_id_;
  return tag;
}

void Window::copy_origin_layout(OriginOp& op, const Buffer& b, bool result) {
  if (!b.layout) return;
  std::vector<base::Strided>& blocks = result ? op.result_blocks : op.origin_blocks;
  base::Layout& l = result ? op.result_layout : op.origin_layout;
  blocks.assign(b.layout->blocks.begin(), b.layout->blocks.end());
  l = *b.layout;
  l.blocks = blocks;
}

void Window::gather(const Buffer& b, std::byte* out) const {
  if (b.layout) rma::gather(*b.layout, out, b.bytes);
  else if (b.bytes) std::memcpy(out, b.ptr, b.bytes);
}

std::byte* Window::build_request(OriginOp& op, Request h, const base::Layout& region, std::size_t inline_data) {
  h.repeat = region.repeat;
  h.extent = region.extent;
  h.bytes_per_copy = region.bytes_per_copy;
  h.nblocks = static_cast<std::uint32_t>(region.blocks.size());
  const std::size_t blocks_bytes = region.blocks.size() * sizeof(base::Strided);
  std::size_t total = sizeof(Request) + blocks_bytes;
  const bool in_line = total + inline_data <= kRequestBytes;
  if (in_line) {
    h.flags |= kFlagInlineData;
    total += inline_data;
  }
  op.bytes.resize(total);
  std::memcpy(op.bytes.data(), &h, sizeof h);
  if (blocks_bytes) std::memcpy(op.bytes.data() + sizeof h, region.blocks.data(), blocks_bytes);
  return in_line ? op.bytes.data() + sizeof h + blocks_bytes : nullptr;
}

void Window::send_request(OriginOp& op, int target, std::size_t message_bytes) {
  p2p::Engine& p2p = engine_.p2p();
  const int peer = job_ranks_[static_cast<std::size_t>(target)];
  if (message_bytes <= kRequestBytes) {
    ++op.pending;
    p2p.isend(op.message, op.bytes.data(), message_bytes, peer, context_, rank_, kRequestTag, p2p::SendMode::standard,
              kMarker);
    return;
  }
  // Too large for the target's request receive: announce it, then send it on the op's second tag.
  Request h;
  std::memcpy(&h, op.bytes.data(), sizeof h);
  op.long_header = Request{};
  op.long_header.kind = RequestKind::long_request;
  op.long_header.tag = h.tag;
  op.long_header.bytes = message_bytes;
  op.pending += 2;
  p2p.isend(op.message, &op.long_header, sizeof op.long_header, peer, context_, rank_, kRequestTag,
            p2p::SendMode::standard, kMarker);
  p2p.isend(op.body, op.bytes.data(), message_bytes, peer, context_, rank_, h.tag + kBodyTag, p2p::SendMode::standard,
            kMarker);
}

// Puts and accumulates: the request, with the data in it when it fits, else the data after it.
void Window::send_with_data(int target, const Buffer& origin, const Region& where, Request h, p2p::Request* done) {
  OriginOp& op = *origin_op(done);
  copy_origin_layout(op, origin, false);
  h.tag = next_tag();
  h.offset = where.offset;
  h.bytes = origin.bytes;
  std::byte* room = build_request(op, h, where.layout, origin.bytes);
  if (room) gather(origin, room);
  send_request(op, target, op.bytes.size());
  if (!room) {
    ++op.pending;
    engine_.p2p().isend(op.data, origin.ptr, origin.bytes, job_ranks_[std::size_t(target)], context_, rank_,
                        h.tag + kDataTag, p2p::SendMode::standard, kMarker,
                        origin.layout ? &op.origin_layout : nullptr);
  }
  touch(target);
  drop_guard(op);
}

void Window::put(int target, const Buffer& origin, const Region& where, p2p::Request* done) {
  if (reaches_directly(target)) {
    direct_put(target, origin, where);
    return complete_now(done);
  }
  Request h;
  h.kind = RequestKind::put;
  send_with_data(target, origin, where, h, done);
}

void Window::get(int target, const Buffer& origin, const Region& where, p2p::Request* done) {
  if (reaches_directly(target)) {
    direct_get(target, origin, where);
    return complete_now(done);
  }
  OriginOp& op = *origin_op(done);
  copy_origin_layout(op, origin, false);
  Request h;
  h.kind = RequestKind::get;
  h.tag = next_tag();
  h.offset = where.offset;
  h.bytes = origin.bytes;
  build_request(op, h, where.layout, 0);
  ++op.pending;  // the fetched data
  engine_.p2p().irecv(op.fetched, origin.ptr, origin.bytes, context_, target, h.tag + kFetchedTag, kMarker,
                      origin.layout ? &op.origin_layout : nullptr);
  send_request(op, target, op.bytes.size());
  drop_guard(op);
}

void Window::accumulate(int target, const Buffer& origin, const Region& where, const Reduction& red,
                        p2p::Request* done) {
  if (reaches_directly(target)) {
    direct_accumulate(target, origin, nullptr, where, red);
    return complete_now(done);
  }
  Request h;
  h.kind = RequestKind::accumulate;
  h.op = red.op;
  h.elem_type = red.elem_type;
  send_with_data(target, origin, where, h, done);
}

void Window::get_accumulate(int target, const Buffer& origin, const Buffer& result, const Region& where,
                            const Reduction& red, p2p::Request* done) {
  if (reaches_directly(target)) {
    direct_accumulate(target, origin, &result, where, red);
    return complete_now(done);
  }
  OriginOp& op = *origin_op(done);
  copy_origin_layout(op, origin, false);
  copy_origin_layout(op, result, true);
  const bool no_data = core::is_no_op(red.op);
  Request h;
  h.kind = RequestKind::get_accumulate;
  h.op = red.op;
  h.elem_type = red.elem_type;
  h.tag = next_tag();
  h.offset = where.offset;
  h.bytes = result.bytes;
  std::byte* room = build_request(op, h, where.layout, no_data ? 0 : origin.bytes);
  if (room) gather(origin.bytes && !no_data ? origin : Buffer{}, room);
  ++op.pending;
  engine_.p2p().irecv(op.fetched, result.ptr, result.bytes, context_, target, h.tag + kFetchedTag, kMarker,
                      result.layout ? &op.result_layout : nullptr);
  send_request(op, target, op.bytes.size());
  if (!room) {
    ++op.pending;
    engine_.p2p().isend(op.data, origin.ptr, origin.bytes, job_ranks_[std::size_t(target)], context_, rank_, h.tag + kDataTag,
                        p2p::SendMode::standard, kMarker, origin.layout ? &op.origin_layout : nullptr);
  }
  drop_guard(op);
}

void Window::compare_and_swap(int target, const std::byte* origin, const std::byte* compare, std::byte* result,
                              std::uint64_t offset, std::size_t elem_size, p2p::Request* done) {
  if (reaches_directly(target)) {
    direct_compare_and_swap(target, origin, compare, result, offset, elem_size);
    return complete_now(done);
  }
  OriginOp& op = *origin_op(done);
  Request h;
  h.kind = RequestKind::compare_and_swap;
  h.tag = next_tag();
  h.offset = offset;
  h.bytes = elem_size;
  base::Strided block;
  std::byte* room = build_request(op, h, base::contiguous_layout(nullptr, elem_size, block), 2 * elem_size);
  std::memcpy(room, origin, elem_size);
  std::memcpy(room + elem_size, compare, elem_size);
  ++op.pending;
  engine_.p2p().irecv(op.fetched, result, elem_size, context_, target, h.tag + kFetchedTag, kMarker);
  send_request(op, target, op.bytes.size());
  drop_guard(op);
}

void Window::wait_local() {
  if (in_flight_ == 0) return;
  engine_.progress().wait_until([&] { return in_flight_ == 0; });
}

void Window::wait_idle() {
  engine_.progress().wait_until(
      [&] { return in_flight_ == 0 && target_busy_ == 0 && !stalled_ && queue_.empty() && !request_recv_.complete; });
}

void Window::control(std::span<const int> targets, RequestKind kind, std::uint8_t flags) {
  const std::size_t n = targets.size();
  const bool answered = kind != RequestKind::complete;
  // Kept between calls: a flush or a lock allocates nothing once the window has seen as many targets.
  if (control_sends_.size() < n) {
    control_sends_.resize(n);
    control_replies_.resize(n);
    control_got_.resize(n);
  }
  const std::span<p2p::Request> sends(control_sends_.data(), n), replies(control_replies_.data(), answered ? n : 0);
  Request h;
  h.kind = kind;
  h.flags = flags;
  p2p::Engine& p2p = engine_.p2p();
  for (std::size_t i = 0; i < n; ++i) {
    const int t = targets[i];
    if (answered) p2p.irecv(replies[i], &control_got_[i], sizeof(Reply), context_, t, kReplyTag, kMarker);
    p2p.isend(sends[i], &h, sizeof h, job_ranks_[std::size_t(t)], context_, rank_, kRequestTag,
              p2p::SendMode::standard, kMarker);
  }
  engine_.progress().wait_until([&] {
    for (const p2p::Request& r : sends)
      if (!r.complete) return false;
    for (const p2p::Request& r : replies)
      if (!r.complete) return false;
    return true;
  });
}

void Window::flush(std::span<const int> targets) {
  if (direct()) {  // done already: the stores only need to be ordered before what follows
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (int t : targets) touched_[std::size_t(t)] = 0;
    return;
  }
  // Only targets with puts or accumulates since their last flush need to answer one.
  flush_targets_.clear();
  for (int t : targets)
    if (touched_[std::size_t(t)]) flush_targets_.push_back(t);
  if (!flush_targets_.empty()) control(flush_targets_, RequestKind::flush, 0);
  for (int t : flush_targets_) touched_[std::size_t(t)] = 0;
  wait_local();
}

void Window::lock(int target, bool exclusive) {
  if (direct()) return direct_lock(target, exclusive);
  const int t[] = {target};
  control(t, RequestKind::lock, exclusive ? kFlagExclusive : 0);
}

void Window::unlock(int target) {
  const int t[] = {target};
  unlock_all(t);
}

void Window::lock_shared(std::span<const int> targets) {
  if (direct()) {
    for (int t : targets) direct_lock(t, false);
    return;
  }
  control(targets, RequestKind::lock, 0);
}

void Window::unlock_all(std::span<const int> targets) {
  if (direct()) {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // the epoch's stores before the release
    for (int t : targets) {
      direct_unlock(t);
      touched_[std::size_t(t)] = 0;
    }
    return;
  }
  control(targets, RequestKind::unlock, 0);
  for (int t : targets) touched_[std::size_t(t)] = 0;
  wait_local();
}

void Window::post(std::span<const int> origins) {
  completes_expected_ += static_cast<int>(origins.size());
  for (int o : origins) reply(o, kPostTag, {});
}

void Window::start(std::span<const int> targets) {
  if (control_replies_.size() < targets.size()) control_replies_.resize(targets.size());
  const std::span<p2p::Request> posts(control_replies_.data(), targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i)
    engine_.p2p().irecv(posts[i], nullptr, 0, context_, targets[i], kPostTag, kMarker);
  engine_.progress().wait_until([&] {
    for (const p2p::Request& r : posts)
      if (!r.complete) return false;
    return true;
  });
}

void Window::complete(std::span<const int> targets) {
  control(targets, RequestKind::complete, 0);
  for (int t : targets) touched_[std::size_t(t)] = 0;
  wait_local();
}

void Window::wait_exposure() {
  engine_.progress().wait_until([&] { return completes_seen_ >= completes_expected_; });
  completes_seen_ -= completes_expected_;
  completes_expected_ = 0;
}

bool Window::test_exposure() {
  if (completes_seen_ < completes_expected_) engine_.progress().test_poll();
  if (completes_seen_ < completes_expected_) return false;
  completes_seen_ -= completes_expected_;
  completes_expected_ = 0;
  return true;
}

// ---- target side ----

void Window::request_arrived(p2p::Request& r) { static_cast<Window*>(r.owner)->engine_.arm(); }

void Window::post_request_recv() {
  engine_.p2p().irecv(request_recv_, request_room_.data(), request_room_.size(), context_, p2p::kAnySource,
                      kRequestTag, kMarker);
}

Window::TargetOp* Window::target_op() {
  TargetOp* op = target_ops_.take([this](TargetOp& t) {
    t.window = this;
    t.req.owner = &t;
    t.req.on_complete = &Window::target_op_done;
  });
  ++target_busy_;
  return op;
}

void Window::target_op_done(p2p::Request& r) {
  auto* op = static_cast<TargetOp*>(r.owner);
  Window& w = *op->window;
  if (op == w.stalled_) {  // the queue waits for it: the hook finishes it
    w.engine_.arm();
    return;
  }
  --w.target_busy_;
  w.target_ops_.give(op);
}

void Window::release(TargetOp* op) {
  --target_busy_;
  target_ops_.give(op);
}

int Window::progress() {
  int n = 0;
  for (bool more = true; more;) {
    more = false;
    if (request_recv_.complete) {
      const std::span<const std::byte> message(request_room_.data(), request_recv_.status_bytes);
      const int origin = request_recv_.status_source;
      if (!stalled_ && queue_.empty()) {
        handle(origin, message);
      } else {
        Incoming in;
        in.origin = origin;
        if (!spare_messages_.empty()) {
          in.message = std::move(spare_messages_.back());
          spare_messages_.pop_back();
        }
        in.message.assign(message.begin(), message.end());
        queue_.push_back(std::move(in));
      }
      post_request_recv();
      more = true;
    }
    if (stalled_ && stalled_->req.complete) {
      finish_stalled();
      more = true;
    }
    while (!stalled_ && !queue_.empty()) {
      Incoming in = std::move(queue_.front());
      queue_.pop_front();
      handle(in.origin, in.message);
      spare_messages_.push_back(std::move(in.message));
      more = true;
    }
    n += more ? 1 : 0;
  }
  return n;
}

void Window::region_layout(TargetOp& op, const Request& h, std::span<const std::byte> blocks) {
  op.blocks.resize(h.nblocks);
  if (h.nblocks) std::memcpy(op.blocks.data(), blocks.data(), h.nblocks * sizeof(base::Strided));
  op.layout = base::Layout{};
  op.layout.base = address(targets_[std::size_t(rank_)].base + h.offset);
  op.layout.blocks = op.blocks;
  op.layout.repeat = h.repeat;
  op.layout.extent = h.extent;
  op.layout.bytes_per_copy = h.bytes_per_copy;
}

void Window::handle(int origin, std::span<const std::byte> message) {
  Request h;
  std::memcpy(&h, message.data(), sizeof h);
  switch (h.kind) {
    case RequestKind::long_request: {
      TargetOp& op = *target_op();
      op.origin = origin;
      op.request = h;
      op.bytes.resize(h.bytes);
      stalled_ = &op;
      engine_.p2p().irecv(op.req, op.bytes.data(), h.bytes, context_, origin, h.tag + kBodyTag, kMarker);
      return;
    }
    case RequestKind::lock: {
      const bool exclusive = h.flags & kFlagExclusive;
      if (lock_waiters_.empty() && lockable(exclusive)) {
        (exclusive ? exclusive_held_ = true : (++shared_holders_, true));
        const Reply r{ReplyKind::lock_granted};
        reply(origin, kReplyTag, std::as_bytes(std::span(&r, 1)));
      } else {
        lock_waiters_.push_back({origin, exclusive});
      }
      return;
    }
    case RequestKind::unlock: {
      if (exclusive_held_) exclusive_held_ = false;
      else if (shared_holders_ > 0) --shared_holders_;
      const Reply r{ReplyKind::unlocked};
      reply(origin, kReplyTag, std::as_bytes(std::span(&r, 1)));
      grant_waiting_locks();
      return;
    }
    case RequestKind::flush: {
      const Reply r{ReplyKind::flushed};
      reply(origin, kReplyTag, std::as_bytes(std::span(&r, 1)));
      return;
    }
    case RequestKind::complete:
      ++completes_seen_;
      return;
    default: break;
  }
  const std::size_t blocks_bytes = h.nblocks * sizeof(base::Strided);
  const std::span<const std::byte> blocks = message.subspan(sizeof h, blocks_bytes);
  const std::span<const std::byte> data = message.subspan(sizeof h + blocks_bytes);
  TargetOp& op = *target_op();
  op.origin = origin;
  op.request = h;
  region_layout(op, h, blocks);
  const bool in_line = h.flags & kFlagInlineData;
  p2p::Engine& p2p = engine_.p2p();
  switch (h.kind) {
    case RequestKind::put:
      if (in_line) {
        scatter(op.layout, data);
        release(&op);
      } else {
        stalled_ = &op;
        if (is_single_run(op.layout))
          p2p.irecv(op.req, op.layout.base + op.layout.blocks[0].offset, h.bytes, context_, origin, h.tag + kDataTag, kMarker);
        else
          p2p.irecv(op.req, nullptr, h.bytes, context_, origin, h.tag + kDataTag, kMarker, &op.layout);
      }
      return;
    case RequestKind::get: {
      const int peer = job_ranks_[std::size_t(origin)];
      if (is_single_run(op.layout))
        p2p.isend(op.req, op.layout.base + op.layout.blocks[0].offset, h.bytes, peer, context_, rank_, h.tag + kFetchedTag,
                  p2p::SendMode::standard, kMarker);
      else
        p2p.isend(op.req, nullptr, h.bytes, peer, context_, rank_, h.tag + kFetchedTag, p2p::SendMode::standard, kMarker,
                  &op.layout);
      return;
    }
    case RequestKind::accumulate:
    case RequestKind::get_accumulate:
    case RequestKind::compare_and_swap:
      if (in_line) {
        if (h.kind == RequestKind::accumulate) apply(op, data);
        else fetch_and_apply(op, data);
        release(&op);
      } else {
        op.bytes.resize(h.bytes);
        stalled_ = &op;
        p2p.irecv(op.req, op.bytes.data(), h.bytes, context_, origin, h.tag + kDataTag, kMarker);
      }
      return;
    default:
      release(&op);
      return;
  }
}

void Window::finish_stalled() {
  TargetOp& op = *stalled_;
  stalled_ = nullptr;
  switch (op.request.kind) {
    case RequestKind::long_request: {
      // Held while the request is handled (handle() takes ops of its own).
      std::vector<std::byte> message = std::move(op.bytes);
      handle(op.origin, message);
      op.bytes = std::move(message);  // its room serves the next use
      release(&op);
      break;
    }
    case RequestKind::accumulate:
      apply(op, op.bytes);
      release(&op);
      break;
    case RequestKind::get_accumulate:
      fetch_and_apply(op, op.bytes);
      release(&op);
      break;
    default:  // put: the data is in place
      release(&op);
      break;
  }
}

void Window::apply(TargetOp& op, std::span<const std::byte> data) {
  const Request& h = op.request;
  bool valid;
  const std::size_t elem = core::builtin_size(h.elem_type, valid);
  const core::ReduceFn fn = core::find_reduce(h.op, h.elem_type);
  if (!fn || !valid || elem == 0) return;  // the origin checked both
  base::LayoutCursor c(op.layout, 0);
  std::size_t at = 0;
  for (std::span<std::byte> run = c.next(data.size()); !run.empty(); run = c.next(data.size() - at)) {
    fn(data.data() + at, run.data(), run.size() / elem);
    at += run.size();
  }
}

void Window::fetch_and_apply(TargetOp& op, std::span<const std::byte> data) {
  const Request& h = op.request;
  TargetOp& fetched = *target_op();
  fetched.bytes.resize(h.bytes);
  rma::gather(op.layout, fetched.bytes.data(), h.bytes);
  if (h.kind == RequestKind::compare_and_swap) {
    // data: the origin's value, then the compare value.
    std::byte* where = op.layout.base + op.layout.blocks[0].offset;
    if (std::memcmp(where, data.data() + h.bytes, h.bytes) == 0) std::memcpy(where, data.data(), h.bytes);
  } else if (!core::is_no_op(h.op)) {
    apply(op, data);
  }
  engine_.p2p().isend(fetched.req, fetched.bytes.data(), h.bytes, job_ranks_[std::size_t(op.origin)], context_, rank_,
                      h.tag + kFetchedTag, p2p::SendMode::standard, kMarker);
}

void Window::reply(int origin, int tag, std::span<const std::byte> bytes) {
  TargetOp& op = *target_op();
  op.bytes.assign(bytes.begin(), bytes.end());
  engine_.p2p().isend(op.req, op.bytes.data(), op.bytes.size(), job_ranks_[std::size_t(origin)], context_, rank_, tag,
                      p2p::SendMode::standard, kMarker);
}

void Window::grant_waiting_locks() {
  while (!lock_waiters_.empty() && lockable(lock_waiters_.front().exclusive)) {
    const LockWaiter w = lock_waiters_.front();
    lock_waiters_.pop_front();
    if (w.exclusive) exclusive_held_ = true;
    else ++shared_holders_;
    const Reply r{ReplyKind::lock_granted};
    reply(w.origin, kReplyTag, std::as_bytes(std::span(&r, 1)));
  }
}

// ---- engine ----

Engine::Engine(p2p::Engine& p2p, progress::Engine& progress) : p2p_(p2p), progress_(progress) {
  progress_.set_hook(progress::Engine::HookSlot::rma, &Engine::hook, this, &armed_);
}

Engine::~Engine() { progress_.set_hook(progress::Engine::HookSlot::rma, nullptr, nullptr, nullptr); }

void Engine::remove(Window* w) { windows_.erase(std::find(windows_.begin(), windows_.end(), w)); }

int Engine::hook(void* ctx) {
  auto* e = static_cast<Engine*>(ctx);
  e->armed_ = false;
  int n = 0;
  for (Window* w : e->windows_)
    if (w->ready()) n += w->progress();
  return n;
}

}  // namespace railmpi::rma
