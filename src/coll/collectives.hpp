// Collective algorithms, each building the rounds of a Schedule (schedule.hpp). Buffers are
// contiguous bytes (the API layer packs non-contiguous datatypes); reductions count elements of
// Reducer::elem bytes. Non-commutative operations are always combined in rank order.
//
// Intracommunicators: the algorithm is chosen from thresholds.hpp by sizes every rank agrees on.
// Intercommunicators: `root` is MPI_ROOT (kRoot) in the root's own process, p2p::kProcNull in
// the other processes of the root's group, and the root's rank in the remote group elsewhere;
// results come from the remote group as the standard defines.
//
// Files: barrier.cpp, bcast.cpp, reduce.cpp (reduce, allreduce, reduce_scatter, scan),
// gather.cpp (gather, scatter and their v forms), allgather.cpp, alltoall.cpp.
#pragma once

#include <cstddef>

#include "coll/schedule.hpp"

namespace railmpi::coll {

inline constexpr int kRoot = -3;  // MPI_ROOT of the ABI

void barrier(Schedule& s);
void bcast(Schedule& s, void* buf, std::size_t bytes, int root);

// recvbuf matters at root only. sendbuf may equal recvbuf (in place).
void reduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op, int root);
void allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op);
// counts[i] elements of the result go to rank i; sendbuf holds sum(counts) elements.
void reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const std::size_t* counts, const Reducer& op);
// Inclusive (scan) or exclusive (exscan: recvbuf of rank 0 untouched).
void scan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op, bool exclusive);

// Uniform block of `bytes` per rank.
void gather(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes, int root);
void scatter(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes, int root);
// Per-rank sizes and byte offsets into the root's buffer (of the remote group when inter).
void gatherv(Schedule& s, const void* sendbuf, std::size_t sendbytes, void* recvbuf, const std::size_t* recvbytes,
             const std::size_t* offsets, int root);
void scatterv(Schedule& s, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* offsets,
              void* recvbuf, std::size_t recvbytes, int root);

void allgather(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes);
void allgatherv(Schedule& s, const void* sendbuf, std::size_t sendbytes, void* recvbuf, const std::size_t* recvbytes,
                const std::size_t* offsets);

// sendbuf != recvbuf (the API copies for MPI_IN_PLACE).
void alltoall(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t bytes);
void alltoallv(Schedule& s, const void* sendbuf, const std::size_t* sendbytes, const std::size_t* sendoffsets,
               void* recvbuf, const std::size_t* recvbytes, const std::size_t* recvoffsets);

}  // namespace railmpi::coll
