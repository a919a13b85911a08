// Allgather: recursive doubling (power-of-two sizes) or Bruck (other sizes) while the gathered
// total is small; the ring for large totals and for allgatherv. Intercommunicators: every rank
// exchanges its block with every rank of the remote group.
#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace {

void recursive_doubling(Schedule& s, std::byte* out, std::size_t bytes) {
  const int n = s.size(), me = s.rank();
  for (int dist = 1; dist < n; dist *= 2) {
    const int peer = me ^ dist;
    const int mine = me & ~(dist - 1), theirs = peer & ~(dist - 1);
    s.send(out + std::size_t(mine) * bytes, std::size_t(dist) * bytes, peer);
    s.recv(out + std::size_t(theirs) * bytes, std::size_t(dist) * bytes, peer);
    s.round();
  }
}

void bruck(Schedule& s, const void* sendbuf, std::byte* out, std::size_t bytes) {
  const int n = s.size(), me = s.rank();
  // tmp[i] = block of rank (me + i) % n.
  std::byte* tmp = s.scratch(std::size_t(n) * bytes);
  s.copy(sendbuf, tmp, bytes);
  for (int dist = 1; dist < n; dist *= 2) {
    const int cnt = std::min(dist, n - dist);
    s.send(tmp, std::size_t(cnt) * bytes, (me - dist + n) % n);
    s.recv(tmp + std::size_t(dist) * bytes, std::size_t(cnt) * bytes, (me + dist) % n);
    s.round();
  }
  s.copy(tmp, out + std::size_t(me) * bytes, std::size_t(n - me) * bytes);
  s.copy(tmp + std::size_t(n - me) * bytes, out, std::size_t(me) * bytes);
}

void ring(Schedule& s, std::byte* out, const std::size_t* bytes, const std::size_t* offsets) {
  const int n = s.size(), me = s.rank();
  const int right = (me + 1) % n, left = (me - 1 + n) % n;
  for (int k = 0; k < n - 1; ++k) {
    const int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
    s.send(out + offsets[sb], bytes[sb], right);
    s.recv(out + offsets[rb], bytes[rb], left);
    s.round();
  }
}

void inter(Schedule& s, const void* sendbuf, std::size_t sendbytes, std::byte* out, const std::size_t* bytes,
           const std::size_t* offsets) {
  for (int r = 0; r < s.comm().remote_size(); ++r) {
    s.send(sendbuf, sendbytes, r);
    s.recv(out + offsets[r], bytes[r], r);
  }
}

}  // namespace

void allgather(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes) {
  auto* out = static_cast<std::byte*>(recvbuf);
  const int n = s.comm().remote_size();
  if (!s.comm().is_inter() && std::size_t(n) * bytes <= thresholds::kAllgatherSmallTotalMax) {
    if ((n & (n - 1)) == 0) {
      s.copy(sendbuf, out + std::size_t(s.rank()) * bytes, bytes);
      recursive_doubling(s, out, bytes);
    } else {
      bruck(s, sendbuf, out, bytes);
    }
    return;
  }
  const detail::Blocks b = detail::equal_blocks(s, n, bytes);
  if (s.comm().is_inter()) {
    inter(s, sendbuf, bytes, out, b.sizes, b.offsets);
    return;
  }
  s.copy(sendbuf, out + std::size_t(s.rank()) * bytes, bytes);
  ring(s, out, b.sizes, b.offsets);
}

void allgatherv(Schedule& s, const void* sendbuf, std::size_t sendbytes, void* recvbuf, const std::size_t* recvbytes,
                const std::size_t* offsets) {
  auto* out = static_cast<std::byte*>(recvbuf);
  if (s.comm().is_inter()) {
    inter(s, sendbuf, sendbytes, out, recvbytes, offsets);
    return;
  }
  s.copy(sendbuf, out + offsets[s.rank()], recvbytes[s.rank()]);
  ring(s, out, recvbytes, offsets);
}

}  // namespace railmpi::coll
