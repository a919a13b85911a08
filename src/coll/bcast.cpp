// Broadcast: binomial tree; large messages on 4+ ranks: binomial scatter of n chunks followed by
// a ring allgather (each link then carries about 2x the message instead of log2(n) x).
// Intercommunicators: the root sends to rank 0 of the other group, which broadcasts locally.
#include <algorithm>

#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace detail {

void bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root) {
  const int n = g.n;
  const int rel = (g.me - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      g.recv(buf, bytes, (rel - mask + root) % n);
      g.s.round();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) g.send(buf, bytes, (rel + mask + root) % n);
  g.s.round();
}

namespace {

void bcast_scatter_ring(const Group& g, void* buf, std::size_t bytes, int root) {
  const int n = g.n;
  const int rel = (g.me - root + n) % n;
  auto* b = static_cast<std::byte*>(buf);
  const std::size_t chunk = (bytes + std::size_t(n) - 1) / std::size_t(n);
  // Byte range of chunks [first, last) (chunk i belongs to relative rank i).
  auto lo = [&](int i) { return std::min(bytes, std::size_t(i) * chunk); };
  auto abs_rank = [&](int r) { return (r + root) % n; };
  // Binomial scatter of the chunks.
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      const int last = std::min(n, rel + mask);
      g.recv(b + lo(rel), lo(last) - lo(rel), abs_rank(rel - mask));
      g.s.round();
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (rel + mask < n) {
      const int first = rel + mask, last = std::min(n, rel + 2 * mask);
      g.send(b + lo(first), lo(last) - lo(first), abs_rank(first));
    }
  g.s.round();
  // Ring allgather of the chunks.
  const int right = abs_rank((rel + 1) % n), left = abs_rank((rel - 1 + n) % n);
  for (int k = 0; k < n - 1; ++k) {
    const int sc = (rel - k + n) % n, rc = (rel - k - 1 + n) % n;
    g.send(b + lo(sc), lo(sc + 1) - lo(sc), right);
    g.recv(b + lo(rc), lo(rc + 1) - lo(rc), left);
    g.s.round();
  }
}

}  // namespace

void bcast_group(const Group& g, void* buf, std::size_t bytes, int root) {
  if (bytes >= thresholds::kBcastScatterAllgatherMin && g.n >= thresholds::kBcastScatterMinRanks)
    bcast_scatter_ring(g, buf, bytes, root);
  else
    bcast_binomial(g, buf, bytes, root);
}

}  // namespace detail

void bcast(Schedule& s, void* buf, std::size_t bytes, int root) {
  if (!s.comm().is_inter()) {
    detail::bcast_group(detail::whole(s), buf, bytes, root);
    return;
  }
  if (root == kRoot) {
    s.send(buf, bytes, 0);
    return;
  }
  if (root == p2p::kProcNull) return;
  if (s.rank() == 0) {
    s.recv(buf, bytes, root);
    s.round();
  }
  detail::bcast_group(detail::local_group(s), buf, bytes, 0);
}

}  // namespace railmpi::coll
