// Internal to src/coll: the set of ranks an algorithm runs over. For an intracommunicator the
// communicator itself; for an intercommunicator the local group (transfers marked `local`).
#pragma once

#include "coll/schedule.hpp"

namespace railmpi::coll::detail {

struct Group {
  Schedule& s;
  bool local;  // intercommunicator: local-group traffic
  int n;
  int me;
  void send(const void* b, std::size_t bytes, int peer) const { s.send(b, bytes, peer, local); }
  void recv(void* b, std::size_t bytes, int peer) const { s.recv(b, bytes, peer, local); }
};

inline Group whole(Schedule& s) { return {s, false, s.size(), s.rank()}; }
inline Group local_group(Schedule& s) { return {s, s.comm().is_inter(), s.size(), s.rank()}; }

inline int pof2_below(int n) {  // largest power of two <= n
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Sizes and offsets of n blocks, in the schedule's scratch (a pooled schedule keeps it: nothing
// allocated when the collective repeats), valid until the schedule finishes.
struct Blocks {
  std::size_t* sizes;
  std::size_t* offsets;
};
inline Blocks blocks(Schedule& s, int n) {
  const std::size_t len = std::size_t(n) * sizeof(std::size_t);
  return {reinterpret_cast<std::size_t*>(s.scratch(len)), reinterpret_cast<std::size_t*>(s.scratch(len))};
}
// n blocks of `bytes` bytes one after the other.
inline Blocks equal_blocks(Schedule& s, int n, std::size_t bytes) {
  const Blocks b = blocks(s, n);
  for (int i = 0; i < n; ++i) {
    b.sizes[i] = bytes;
    b.offsets[i] = std::size_t(i) * bytes;
  }
  return b;
}

// Group-level building blocks shared by the families (defined in their files).
void barrier_group(const Group& g);
void bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root);
void bcast_group(const Group& g, void* buf, std::size_t bytes, int root);
void reduce_group(const Group& g, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op, int root);
void scatterv_linear(const Group& g, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* offsets,
                     void* recvbuf, std::size_t recvbytes, int root);
void gather_group(const Group& g, const void* sendbuf, void* recvbuf, std::size_t bytes, int root);

}  // namespace railmpi::coll::detail
