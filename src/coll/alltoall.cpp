// Alltoall: Bruck for small blocks on 4+ ranks (log2(n) rounds, blocks packed per round);
// pairwise exchange otherwise and for the v/w forms (round k: send to rank+k, receive from
// rank-k). Intercommunicators: one exchange with every remote rank.
#include <cstring>

#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace {

// What Bruck's local steps need, kept in the schedule's scratch: a step captures only a pointer
// to it, which std::function holds without allocating.
struct BruckBlocks {
  std::byte* tmp;
  std::byte* pack;
  std::byte* unpack;
  std::byte* out;
  std::size_t bytes;
  int n, me;
};

// Copies the blocks tmp[i] with bit `dist` of i set into consecutive blocks at `packed` (or back).
void pack_blocks(const BruckBlocks& b, int dist, bool back) {
  std::size_t k = 0;
  for (int i = 1; i < b.n; ++i) {
    if (!(i & dist)) continue;
    std::byte* block = b.tmp + std::size_t(i) * b.bytes;
    if (back) std::memcpy(block, b.unpack + k * b.bytes, b.bytes);
    else std::memcpy(b.pack + k * b.bytes, block, b.bytes);
    ++k;
  }
}

void bruck(Schedule& s, const std::byte* in, std::byte* out, std::size_t bytes) {
  const int n = s.size(), me = s.rank();
  // tmp[i] = block for rank (me + i) % n; after the rounds tmp[i] = block from rank (me - i) % n.
  std::byte* tmp = s.scratch(std::size_t(n) * bytes);
  s.copy(in + std::size_t(me) * bytes, tmp, std::size_t(n - me) * bytes);
  s.copy(in, tmp + std::size_t(n - me) * bytes, std::size_t(me) * bytes);
  auto* b = reinterpret_cast<BruckBlocks*>(s.scratch(sizeof(BruckBlocks)));
  *b = BruckBlocks{tmp, s.scratch(std::size_t((n + 1) / 2) * bytes), s.scratch(std::size_t((n + 1) / 2) * bytes),
                   out, bytes, n, me};
  for (int dist = 1; dist < n; dist *= 2) {
    std::size_t blocks = 0;
    for (int i = 1; i < n; ++i) blocks += (i & dist) ? 1 : 0;
    s.local([b, dist] { pack_blocks(*b, dist, false); });
    s.send(b->pack, blocks * bytes, (me + dist) % n);
    s.recv(b->unpack, blocks * bytes, (me - dist + n) % n);
    s.local([b, dist] { pack_blocks(*b, dist, true); });
  }
  s.local([b] {
    for (int i = 0; i < b->n; ++i)
      std::memcpy(b->out + std::size_t((b->me - i + b->n) % b->n) * b->bytes, b->tmp + std::size_t(i) * b->bytes,
                  b->bytes);
  });
}

}  // namespace

void alltoall(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes) {
  const int n = s.comm().remote_size();
  if (!s.comm().is_inter() && bytes <= thresholds::kAlltoallBruckBlockMax && n >= thresholds::kAlltoallBruckMinRanks &&
      bytes > 0) {
    bruck(s, static_cast<const std::byte*>(sendbuf), static_cast<std::byte*>(recvbuf), bytes);
    return;
  }
  const detail::Blocks b = detail::equal_blocks(s, n, bytes);
  alltoallv(s, sendbuf, b.sizes, b.offsets, recvbuf, b.sizes, b.offsets);
}

void alltoallv(Schedule& s, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* sendoffsets,
               void* recvbuf, const std::size_t* recvbytes, const std::size_t* recvoffsets) {
  const auto* in = static_cast<const std::byte*>(sendbuf);
  auto* out = static_cast<std::byte*>(recvbuf);
  if (s.comm().is_inter()) {
    for (int r = 0; r < s.comm().remote_size(); ++r) {
      s.send(in + sendoffsets[r], sendbytes[r], r);
      s.recv(out + recvoffsets[r], recvbytes[r], r);
    }
    return;
  }
  const int n = s.size(), me = s.rank();
  s.copy(in + sendoffsets[me], out + recvoffsets[me], recvbytes[me]);
  for (int k = 1; k < n; ++k) {
    const int to = (me + k) % n, from = (me - k + n) % n;
    s.send(in + sendoffsets[to], sendbytes[to], to);
    s.recv(out + recvoffsets[from], recvbytes[from], from);
    s.round();
  }
}

}  // namespace railmpi::coll
