#include "api/comm_ops.hpp"

#include "api/context_agreement.hpp"

#include <cstring>

namespace railmpi::api {

void wire_send(const Wire& w, const void* buf, std::size_t bytes, int to) {
  Instance& in = instance();
  p2p::Request r;
  in.p2p->isend(r, buf, bytes, w.members[static_cast<std::size_t>(to)], w.context, w.me, w.tag,
                p2p::SendMode::standard, p2p::Marker::collective);
  in.progress->wait_until([&] { return r.complete; });
}

void wire_recv(const Wire& w, void* buf, std::size_t bytes, int from) {
  Instance& in = instance();
  p2p::Request r;
  in.p2p->irecv(r, buf, bytes, w.context, from, w.tag, p2p::Marker::collective);
  in.progress->wait_until([&] { return r.complete; });
}

void wire_bcast(const Wire& w, void* buf, std::size_t bytes, int root) {
  const int n = static_cast<int>(w.members.size());
  const int rel = (w.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      wire_recv(w, buf, bytes, (rel - mask + root) % n);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) wire_send(w, buf, bytes, (rel + mask + root) % n);
}

void wire_allreduce_and(const Wire& w, std::uint64_t* words, std::size_t n) {
  const int size = static_cast<int>(w.members.size());
  std::vector<std::uint64_t> incoming(n);
  for (int mask = 1; mask < size; mask <<= 1) {
    if (w.me & mask) {
      wire_send(w, words, n * sizeof(std::uint64_t), w.me - mask);
      break;
    }
    if (w.me + mask < size) {
      wire_recv(w, incoming.data(), n * sizeof(std::uint64_t), w.me + mask);
      for (std::size_t i = 0; i < n; ++i) words[i] &= incoming[i];
    }
  }
  wire_bcast(w, words, n * sizeof(std::uint64_t), 0);
}

void wire_allgather(const Wire& w, const void* mine, void* all, std::size_t bytes) {
  const int n = static_cast<int>(w.members.size());
  auto* out = static_cast<std::byte*>(all);
  if (w.me == 0) {
    if (bytes) std::memcpy(out, mine, bytes);
    for (int r = 1; r < n; ++r) wire_recv(w, out + std::size_t(r) * bytes, bytes, r);
  } else {
    wire_send(w, mine, bytes, 0);
  }
  wire_bcast(w, all, bytes * std::size_t(n), 0);
}

std::vector<std::byte> wire_allgatherv(const Wire& w, const void* mine, std::size_t bytes,
                                       std::vector<std::size_t>& sizes) {
  const std::size_t n = w.members.size();
  sizes.assign(n, 0);
  wire_allgather(w, &bytes, sizes.data(), sizeof(std::size_t));
  std::size_t total = 0;
  for (auto s : sizes) total += s;
  std::vector<std::byte> all(total);
  if (w.me == 0) {
    std::size_t off = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == 0) {
        if (bytes) std::memcpy(all.data(), mine, bytes);
      } else if (sizes[r]) {
        wire_recv(w, all.data() + off, sizes[r], static_cast<int>(r));
      }
      off += sizes[r];
    }
  } else if (bytes) {
    wire_send(w, mine, bytes, 0);
  }
  if (total) wire_bcast(w, all.data(), total, 0);
  return all;
}

void exchange_with(const core::Communicator& via, int context, int tag, int peer, const void* sbuf,
                   std::size_t sbytes, void* rbuf, std::size_t rbytes) {
  Instance& in = instance();
  p2p::Request rr, sr;
  in.p2p->irecv(rr, rbuf, rbytes, context, peer, tag, p2p::Marker::collective);
  in.p2p->isend(sr, sbuf, sbytes, via.job_rank(peer), context, via.rank, tag, p2p::SendMode::standard,
                p2p::Marker::collective);
  in.progress->wait_until([&] { return rr.complete && sr.complete; });
}

int agree_context(const Wire& w, bool take) {
  int slot = -1;
  const unsigned key = static_cast<unsigned>(w.context) * 31u + static_cast<unsigned>(w.tag);
  const AndAll over_wire = [&w](std::uint64_t* words, std::size_t n) { wire_allreduce_and(w, words, n); };
  if (!agree_slots(over_wire, 1, take, key, &slot)) return -1;
  return core::ContextIds::context_of(slot);
}

void swap_with_remote_group(const core::Communicator& c, const void* mine, std::size_t mine_bytes, void* theirs,
                            std::size_t theirs_bytes) {
  if (c.rank == 0)
    exchange_with(c, c.coll_context(), kTagInterLeaders, 0, mine, mine_bytes, theirs, theirs_bytes);
  wire_bcast(local_wire(c, kTagInterLocal), theirs, theirs_bytes, 0);
}

core::Communicator* new_comm(int context, std::vector<int> job_ranks, int errhandler) {
  Instance& in = instance();
  core::Communicator* c = in.comms.add();
  c->context = context;
  c->job_ranks = std::move(job_ranks);
  c->rank = core::group_rank_of(c->job_ranks, in.rank());
  c->errhandler = errhandler;
  return c;
}

int destroy_comm(core::Communicator* c) {
  Instance& in = instance();
  const int e = in.attributes.remove_all(c->handle);
  in.node_coll->release(*c);
  in.context_ids.release(c->context);
  if (c->local_context >= 0) in.context_ids.release(c->local_context);
  in.comms.release(c->handle);
  return e;
}

}  // namespace railmpi::api
