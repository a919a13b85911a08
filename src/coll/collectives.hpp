// Collectives built on the point-to-point engine, on the communicator's collective context,
// carrying the "collective" marker. Algorithms: dissemination barrier, binomial-tree broadcast
// and reduce, recursive-doubling allreduce for commutative operations (reduce + broadcast
// otherwise), linear gather.
#pragma once

#include <cstddef>

#include "core/communicator.hpp"
#include "core/reduce_op.hpp"
#include "p2p/engine.hpp"
#include "progress/engine.hpp"

namespace railmpi::coll {

struct Context {
  p2p::Engine& p2p;
  progress::Engine& progress;
  const core::Communicator& comm;
};

void barrier(Context cx);
void bcast(Context cx, void* buf, std::size_t bytes, int root);
// recvbuf matters at root only. `count` elements of `elem` bytes each.
void reduce(Context cx, const void* sendbuf, void* recvbuf, std::size_t count, std::size_t elem, core::ReduceFn fn,
            int root);
void allreduce(Context cx, const void* sendbuf, void* recvbuf, std::size_t count, std::size_t elem,
               core::ReduceFn fn);
// Each rank contributes `bytes`; root receives size*bytes in rank order.
void gather(Context cx, const void* sendbuf, void* recvbuf, std::size_t bytes, int root);
void allgather(Context cx, const void* sendbuf, void* recvbuf, std::size_t bytes);

}  // namespace railmpi::coll
