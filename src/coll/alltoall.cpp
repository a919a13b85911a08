// Alltoall: Bruck for small blocks on 4+ ranks (log2(n) rounds, blocks packed per round);
// pairwise exchange otherwise and for the v/w forms (round k: send to rank+k, receive from
// rank-k). Intercommunicators: one exchange with every remote rank.
#include <cstring>
#include <vector>

#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace {

void bruck(Schedule& s, const std::byte* in, std::byte* out, std::size_t bytes) {
  const int n = s.size(), me = s.rank();
  // tmp[i] = block for rank (me + i) % n; after the rounds tmp[i] = block from rank (me - i) % n.
  std::byte* tmp = s.scratch(std::size_t(n) * bytes);
  s.copy(in + std::size_t(me) * bytes, tmp, std::size_t(n - me) * bytes);
  s.copy(in, tmp + std::size_t(n - me) * bytes, std::size_t(me) * bytes);
  std::byte* pack = s.scratch(std::size_t((n + 1) / 2) * bytes);
  std::byte* unpack = s.scratch(std::size_t((n + 1) / 2) * bytes);
  for (int dist = 1; dist < n; dist *= 2) {
    std::vector<int> idx;
    for (int i = 1; i < n; ++i)
      if (i & dist) idx.push_back(i);
    const std::size_t len = idx.size() * bytes;
    s.local([=] {
      for (std::size_t k = 0; k < idx.size(); ++k)
        std::memcpy(pack + k * bytes, tmp + std::size_t(idx[k]) * bytes, bytes);
    });
    s.send(pack, len, (me + dist) % n);
    s.recv(unpack, len, (me - dist + n) % n);
    s.local([=] {
      for (std::size_t k = 0; k < idx.size(); ++k)
        std::memcpy(tmp + std::size_t(idx[k]) * bytes, unpack + k * bytes, bytes);
    });
  }
  s.local([=] {
    for (int i = 0; i < n; ++i)
      std::memcpy(out + std::size_t((me - i + n) % n) * bytes, tmp + std::size_t(i) * bytes, bytes);
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
  std::vector<std::size_t> sizes(static_cast<std::size_t>(n), bytes), offsets(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) offsets[std::size_t(i)] = std::size_t(i) * bytes;
  alltoallv(s, sendbuf, sizes.data(), offsets.data(), recvbuf, sizes.data(), offsets.data());
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
