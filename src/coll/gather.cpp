// Gather and scatter: binomial trees for small blocks (log2(n) steps; inner nodes forward their
// subtree's blocks), the root talking to every rank directly for large blocks and for the v forms.
// Intercommunicators: the root exchanges with every rank of the remote group directly.
#include <algorithm>

#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace detail {
namespace {

int lowbit_or(int rel, int n) {  // size of rel's subtree in a binomial tree of n (relative) ranks
  int mask = 1;
  while (mask < n && !(rel & mask)) mask <<= 1;
  return std::min(mask, n - rel);
}

void gather_binomial(const Group& g, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  const int n = g.n, rel = (g.me - root + n) % n;
  const int sub = lowbit_or(rel, n);
  if (sub == 1 && rel != 0) {  // leaf
    g.send(sendbuf, bytes, (rel - (rel & -rel) + root) % n);
    g.s.round();
    return;
  }
  // Blocks of relative ranks [rel, rel+sub) in order.
  std::byte* tmp = (rel == 0 && root == 0) ? static_cast<std::byte*>(recvbuf) : g.s.scratch(std::size_t(sub) * bytes);
  g.s.copy(sendbuf, tmp, bytes);
  for (int mask = 1; mask < n && !(rel & mask); mask <<= 1)
    if (rel + mask < n) g.recv(tmp + std::size_t(mask) * bytes, std::size_t(std::min(mask, n - rel - mask)) * bytes,
                               (rel + mask + root) % n);
  g.s.round();
  if (rel != 0) {
    int mask = 1;
    while (!(rel & mask)) mask <<= 1;
    g.send(tmp, std::size_t(sub) * bytes, (rel - mask + root) % n);
    g.s.round();
    return;
  }
  if (root != 0) {  // relative order -> rank order
    auto* out = static_cast<std::byte*>(recvbuf);
    g.s.copy(tmp, out + std::size_t(root) * bytes, std::size_t(n - root) * bytes);
    g.s.copy(tmp + std::size_t(n - root) * bytes, out, std::size_t(root) * bytes);
  }
}

void scatter_binomial(const Group& g, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  const int n = g.n, rel = (g.me - root + n) % n;
  const int sub = lowbit_or(rel, n);
  if (sub == 1 && rel != 0) {
    g.recv(recvbuf, bytes, (rel - (rel & -rel) + root) % n);
    g.s.round();
    return;
  }
  const std::byte* tmp;
  if (rel == 0) {
    auto* in = static_cast<const std::byte*>(sendbuf);
    if (root == 0) {
      tmp = in;
    } else {  // rank order -> relative order
      std::byte* t = g.s.scratch(std::size_t(n) * bytes);
      g.s.copy(in + std::size_t(root) * bytes, t, std::size_t(n - root) * bytes);
      g.s.copy(in, t + std::size_t(n - root) * bytes, std::size_t(root) * bytes);
      tmp = t;
    }
  } else {
    std::byte* t = g.s.scratch(std::size_t(sub) * bytes);
    int mask = 1;
    while (!(rel & mask)) mask <<= 1;
    g.recv(t, std::size_t(sub) * bytes, (rel - mask + root) % n);
    g.s.round();
    tmp = t;
  }
  int top = 1;
  while (top < n && !(rel & top)) top <<= 1;
  for (int mask = top >> 1; mask > 0; mask >>= 1)
    if (rel + mask < n)
      g.send(tmp + std::size_t(mask) * bytes, std::size_t(std::min(mask, n - rel - mask)) * bytes,
             (rel + mask + root) % n);
  if (recvbuf) g.s.copy(tmp, recvbuf, bytes);
  g.s.round();
}

void gatherv_linear(const Group& g, const void* sendbuf, std::size_t sendbytes, void* recvbuf,
                    const std::size_t* recvbytes, const std::size_t* offsets, int root) {
  if (g.me != root) {
    g.send(sendbuf, sendbytes, root);
    g.s.round();
    return;
  }
  auto* out = static_cast<std::byte*>(recvbuf);
  for (int r = 0; r < g.n; ++r)
    if (r != root) g.recv(out + offsets[r], recvbytes[r], r);
  if (sendbuf) g.s.copy(sendbuf, out + offsets[root], recvbytes[root]);
  g.s.round();
}

}  // namespace

void scatterv_linear(const Group& g, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* offsets,
                     void* recvbuf, std::size_t recvbytes, int root) {
  if (g.me != root) {
    g.recv(recvbuf, recvbytes, root);
    g.s.round();
    return;
  }
  auto* in = static_cast<const std::byte*>(sendbuf);
  for (int r = 0; r < g.n; ++r)
    if (r != root) g.send(in + offsets[r], sendbytes[r], r);
  if (recvbuf) g.s.copy(in + offsets[root], recvbuf, sendbytes[root]);
  g.s.round();
}

void gather_group(const Group& g, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  if (bytes <= thresholds::kGatherBinomialBlockMax) {
    gather_binomial(g, sendbuf, recvbuf, bytes, root);
    return;
  }
  const Blocks b = equal_blocks(g.s, g.n, bytes);
  gatherv_linear(g, sendbuf, bytes, recvbuf, b.sizes, b.offsets, root);
}

}  // namespace detail

namespace {

// Intercommunicator root side: one transfer per remote rank.
void inter_root(Schedule& s, bool is_send, void* buf, const std::size_t* bytes, const std::size_t* offsets) {
  auto* b = static_cast<std::byte*>(buf);
  for (int r = 0; r < s.comm().remote_size(); ++r) {
    if (is_send) s.send(b + offsets[r], bytes[r], r);
    else s.recv(b + offsets[r], bytes[r], r);
  }
}

}  // namespace

void gather(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  if (!s.comm().is_inter()) {
    detail::gather_group(detail::whole(s), sendbuf, recvbuf, bytes, root);
    return;
  }
  const detail::Blocks b = detail::equal_blocks(s, s.comm().remote_size(), bytes);
  gatherv(s, sendbuf, bytes, recvbuf, b.sizes, b.offsets, root);
}

void scatter(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes, int root) {
  if (!s.comm().is_inter() && bytes <= thresholds::kGatherBinomialBlockMax) {
    detail::scatter_binomial(detail::whole(s), sendbuf, recvbuf, bytes, root);
    return;
  }
  const detail::Blocks b = detail::equal_blocks(s, s.comm().remote_size(), bytes);
  scatterv(s, sendbuf, b.sizes, b.offsets, recvbuf, bytes, root);
}

void gatherv(Schedule& s, const void* sendbuf, std::size_t sendbytes, void* recvbuf, const std::size_t* recvbytes,
             const std::size_t* offsets, int root) {
  if (!s.comm().is_inter()) {
    detail::gatherv_linear(detail::whole(s), sendbuf, sendbytes, recvbuf, recvbytes, offsets, root);
    return;
  }
  if (root == kRoot) inter_root(s, false, recvbuf, recvbytes, offsets);
  else if (root != p2p::kProcNull) s.send(sendbuf, sendbytes, root);
}

void scatterv(Schedule& s, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* offsets,
              void* recvbuf, std::size_t recvbytes, int root) {
  if (!s.comm().is_inter()) {
    detail::scatterv_linear(detail::whole(s), sendbuf, sendbytes, offsets, recvbuf, recvbytes, root);
    return;
  }
  if (root == kRoot) inter_root(s, true, const_cast<void*>(sendbuf), sendbytes, offsets);
  else if (root != p2p::kProcNull) s.recv(recvbuf, recvbytes, root);
}

}  // namespace railmpi::coll
