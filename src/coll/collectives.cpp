#include "coll/collectives.hpp"

#include <cstring>
#include <vector>

namespace railmpi::coll {
namespace {

enum Tag : int { kBarrier = 1, kBcast, kReduce, kAllreduce, kGather };

void send(Context cx, const void* buf, std::size_t bytes, int to, int tag) {
  p2p::Request r;
  cx.p2p.isend(r, buf, bytes, cx.comm.job_rank(to), cx.comm.coll_context(), cx.comm.rank, tag,
               p2p::SendMode::standard, p2p::Marker::collective);
  cx.progress.wait_until([&] { return r.complete; });
}

void recv(Context cx, void* buf, std::size_t bytes, int from, int tag) {
  p2p::Request r;
  cx.p2p.irecv(r, buf, bytes, cx.comm.coll_context(), from, tag, p2p::Marker::collective);
  cx.progress.wait_until([&] { return r.complete; });
}

void sendrecv(Context cx, const void* sbuf, std::size_t sbytes, int to, void* rbuf, std::size_t rbytes, int from,
              int tag) {
  p2p::Request rr, sr;
  cx.p2p.irecv(rr, rbuf, rbytes, cx.comm.coll_context(), from, tag, p2p::Marker::collective);
  cx.p2p.isend(sr, sbuf, sbytes, cx.comm.job_rank(to), cx.comm.coll_context(), cx.comm.rank, tag,
               p2p::SendMode::standard, p2p::Marker::collective);
  cx.progress.wait_until([&] { return rr.complete && sr.complete; });
}

}  // namespace

void barrier(Context cx) {
  const int n = cx.comm.size(), me = cx.comm.rank;
  char token = 0, sink = 0;
  for (int step = 1; step < n; step <<= 1)
    sendrecv(cx, &token, 1, (me + step) % n, &sink, 1, (me - step + n) % n, kBarrier);
}

void bcast(Context cx, void* buf, std::size_t bytes, int root) {
  const int n = cx.comm.size();
  const int rel = (cx.comm.rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      recv(cx, buf, bytes, (rel - mask + root) % n, kBcast);
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) send(cx, buf, bytes, (rel + mask + root) % n, kBcast);
}

void reduce(Context cx, const void* sendbuf, void* recvbuf, std::size_t count, std::size_t elem, core::ReduceFn fn,
            int root) {
  // Binomial tree towards root; operands combined in rank order (lower ranks on the left), which
  // keeps non-commutative user operations correct when used later.
  const int n = cx.comm.size();
  const std::size_t bytes = count * elem;
  const int rel = (cx.comm.rank - root + n) % n;
  std::vector<std::byte> acc(static_cast<const std::byte*>(sendbuf), static_cast<const std::byte*>(sendbuf) + bytes);
  std::vector<std::byte> incoming(bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      send(cx, acc.data(), bytes, (rel - mask + root) % n, kReduce);
      break;
    }
    if (rel + mask < n) {
      recv(cx, incoming.data(), bytes, (rel + mask + root) % n, kReduce);
      // acc = acc (op) incoming, with acc the left operand: fn(in, inout) computes in op inout.
      fn(acc.data(), incoming.data(), count);
      acc.swap(incoming);
    }
  }
  if (rel == 0 && bytes) std::memcpy(recvbuf, acc.data(), bytes);
}

void allreduce(Context cx, const void* sendbuf, void* recvbuf, std::size_t count, std::size_t elem,
               core::ReduceFn fn) {
  reduce(cx, sendbuf, recvbuf, count, elem, fn, 0);
  bcast(cx, recvbuf, count * elem, 0);
}

void gather(Context cx, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  const int n = cx.comm.size();
  if (cx.comm.rank != root) {
    send(cx, sendbuf, bytes, root, kGather);
    return;
  }
  auto* out = static_cast<std::byte*>(recvbuf);
  if (bytes && sendbuf != out + std::size_t(root) * bytes) std::memcpy(out + std::size_t(root) * bytes, sendbuf, bytes);
  for (int r = 0; r < n; ++r)
    if (r != root) recv(cx, out + std::size_t(r) * bytes, bytes, r, kGather);
}

void allgather(Context cx, const void* sendbuf, void* recvbuf, std::size_t bytes) {
  gather(cx, sendbuf, recvbuf, bytes, 0);
  bcast(cx, recvbuf, bytes * std::size_t(cx.comm.size()), 0);
}

}  // namespace railmpi::coll
