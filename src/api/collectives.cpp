// Collective entry points (this slice: barrier, broadcast, reduce, allreduce, gather, allgather
// on intracommunicators with predefined types and operations).
#include <cstring>
#include <vector>

#include "api/checks.hpp"
#include "coll/collectives.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

coll::Context context(const core::Communicator& c) {
  Instance& in = instance();
  return {*in.p2p, *in.progress, c};
}

int check_root(const char* call, const core::Communicator& c, int root) {
  if (root < 0 || root >= c.size())
    return raise_error(c.handle, MPI_ERR_ROOT, call, "root=%d is not a rank of a communicator of size %d", root,
                       c.size());
  return MPI_SUCCESS;
}

int check_reduce(const char* call, const void* sendbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                 core::Communicator*& c, std::size_t& tsize, core::ReduceFn& fn) {
  require_running(call);
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_count(call, comm, count)) return e;
  if (int e = check_type(call, comm, type, tsize)) return e;
  if (int e = check_buffer(call, comm, sendbuf, count, tsize)) return e;
  fn = core::find_reduce(op, type);
  if (!fn)
    return raise_error(comm, MPI_ERR_OP, call, "op=0x%x is not defined for datatype=0x%x", static_cast<unsigned>(op),
                       static_cast<unsigned>(type));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) {
  require_running("MPI_Barrier");
  core::Communicator* c;
  if (int e = check_comm("MPI_Barrier", comm, c)) return e;
  coll::barrier(context(*c));
  return MPI_SUCCESS;
}
#pragma weak MPI_Barrier = PMPI_Barrier

int PMPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const char* call = "MPI_Bcast";
  require_running(call);
  core::Communicator* c;
  std::size_t tsize;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_count(call, comm, count)) return e;
  if (int e = check_type(call, comm, type, tsize)) return e;
  if (int e = check_buffer(call, comm, buffer, count, tsize)) return e;
  if (int e = check_root(call, *c, root)) return e;
  coll::bcast(context(*c), buffer, tsize * std::size_t(count), root);
  return MPI_SUCCESS;
}
#pragma weak MPI_Bcast = PMPI_Bcast

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm) {
  const char* call = "MPI_Reduce";
  core::Communicator* c;
  std::size_t tsize;
  core::ReduceFn fn;
  if (int e = check_reduce(call, sendbuf, count, type, op, comm, c, tsize, fn)) return e;
  if (int e = check_root(call, *c, root)) return e;
  const bool at_root = c->rank == root;
  if (at_root && int(count) > 0 && !recvbuf) return raise_error(comm, MPI_ERR_BUFFER, call, "recvbuf is NULL at root");
  const void* src = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    if (!at_root) return raise_error(comm, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is only valid at root");
    src = recvbuf;
  }
  coll::reduce(context(*c), src, recvbuf, std::size_t(count), tsize, fn, root);
  return MPI_SUCCESS;
}
#pragma weak MPI_Reduce = PMPI_Reduce

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Allreduce";
  core::Communicator* c;
  std::size_t tsize;
  core::ReduceFn fn;
  if (int e = check_reduce(call, sendbuf, count, type, op, comm, c, tsize, fn)) return e;
  if (count > 0 && !recvbuf) return raise_error(comm, MPI_ERR_BUFFER, call, "recvbuf is NULL");
  coll::allreduce(context(*c), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, std::size_t(count), tsize, fn);
  return MPI_SUCCESS;
}
#pragma weak MPI_Allreduce = PMPI_Allreduce

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gather";
  require_running(call);
  core::Communicator* c;
  std::size_t stsize = 0, rtsize = 0;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_root(call, *c, root)) return e;
  const bool at_root = c->rank == root;
  if (sendbuf != MPI_IN_PLACE) {
    if (int e = check_count(call, comm, sendcount, "sendcount")) return e;
    if (int e = check_type(call, comm, sendtype, stsize)) return e;
  }
  if (at_root) {
    if (int e = check_count(call, comm, recvcount, "recvcount")) return e;
    if (int e = check_type(call, comm, recvtype, rtsize)) return e;
  }
  const std::size_t bytes = at_root ? rtsize * std::size_t(recvcount) : stsize * std::size_t(sendcount);
  if (sendbuf != MPI_IN_PLACE && stsize * std::size_t(sendcount) != bytes)
    return raise_error(comm, MPI_ERR_TRUNCATE, call, "root expects %zu bytes per rank, this rank sends %zu", bytes,
                       stsize * std::size_t(sendcount));
  const void* src = sendbuf == MPI_IN_PLACE ? static_cast<std::byte*>(recvbuf) + std::size_t(root) * bytes : sendbuf;
  coll::gather(context(*c), src, recvbuf, bytes, root);
  return MPI_SUCCESS;
}
#pragma weak MPI_Gather = PMPI_Gather

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgather";
  require_running(call);
  core::Communicator* c;
  std::size_t stsize = 0, rtsize = 0;
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_count(call, comm, recvcount, "recvcount")) return e;
  if (int e = check_type(call, comm, recvtype, rtsize)) return e;
  const std::size_t bytes = rtsize * std::size_t(recvcount);
  const void* src = sendbuf;
  if (sendbuf == MPI_IN_PLACE) {
    src = static_cast<std::byte*>(recvbuf) + std::size_t(c->rank) * bytes;
  } else {
    if (int e = check_count(call, comm, sendcount, "sendcount")) return e;
    if (int e = check_type(call, comm, sendtype, stsize)) return e;
    if (stsize * std::size_t(sendcount) != bytes)
      return raise_error(comm, MPI_ERR_TRUNCATE, call, "send and receive sizes differ (%zu vs %zu bytes)",
                         stsize * std::size_t(sendcount), bytes);
  }
  coll::allgather(context(*c), src, recvbuf, bytes);
  return MPI_SUCCESS;
}
#pragma weak MPI_Allgather = PMPI_Allgather

}  // extern "C"
