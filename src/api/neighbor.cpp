// Neighborhood collectives: MPI_Neighbor_allgather(v) and MPI_Neighbor_alltoall(v/w), blocking
// and non-blocking, on communicators with a Cartesian, graph or distributed-graph topology.
// One round: a receive from every source and a send to every destination, in the neighbor order
// MPI defines (core::neighbors); MPI_PROC_NULL neighbors of a non-periodic Cartesian grid are
// skipped and their blocks left untouched.
#include "api/coll_call.hpp"

using namespace railmpi;
using namespace railmpi::api;
using namespace railmpi::api::collective;

namespace {

// The call's neighbors and sides live in the runtime object's CollCallRoom, kept from call to
// call: a repeated neighborhood collective allocates nothing.
using Side = NeighborSide;

// Sets up `n` for the call: its neighbors, and sides with nothing in them.
int topology(Call& k, CollCallRoom& n) {
  if (int e = begin(k)) return e;
  if (k.c->is_inter())
    return raise_error(k.comm, MPI_ERR_COMM, k.name, "comm=0x%x is an intercommunicator", unsigned(k.comm));
  for (Side* side : {&n.send, &n.recv}) {
    side->buf = nullptr;
    side->per_block = false;
  }
  if (!core::neighbors(*k.c, n.sources, n.destinations))
    return raise_error(k.comm, MPI_ERR_TOPOLOGY, k.name, "comm=0x%x has no process topology", unsigned(k.comm));
  return MPI_SUCCESS;
}

int check_counts(const Call& k, const int* counts, std::size_t n, const char* what) {
  if (n && !counts) return raise_error(k.comm, MPI_ERR_ARG, k.name, "%s is NULL", what);
  for (std::size_t i = 0; i < n; ++i)
    if (int e = check_cnt(k, counts[i], what)) return e;
  return MPI_SUCCESS;
}

// Uniform blocks: `count` elements of `type` per neighbor; block i at i*stride elements (stride 0:
// every block is the same buffer, as the send side of allgather).
int uniform(const Call& k, Side& side, const void* buf, int count, MPI_Datatype type, std::size_t n,
            std::size_t stride, const char* what) {
  if (int e = check_cnt(k, count, what)) return e;
  side.types.assign(1, type);
  side.infos.resize(1);
  if (int e = check_dtype(k, type, side.infos[0])) return e;
  const std::size_t bytes = std::size_t(count) * side.infos[0].size;
  if (int e = check_buf(k, buf, n ? bytes : 0, what)) return e;
  side.buf = buf;
  side.bytes.assign(n, bytes);
  side.offsets.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    side.offsets[i] = i * stride * std::size_t(count) * std::size_t(side.infos[0].extent);
  return MPI_SUCCESS;
}

// Vector blocks: counts[i] elements of `type` at displs[i] elements.
int varying(const Call& k, Side& side, const void* buf, const int* counts, const int* displs, MPI_Datatype type,
            std::size_t n, const char* what) {
  if (n && !counts) return raise_error(k.comm, MPI_ERR_ARG, k.name, "%s is NULL", what);
  if (n && !displs) return raise_error(k.comm, MPI_ERR_ARG, k.name, "displacements of %s are NULL", what);
  side.types.assign(1, type);
  side.infos.resize(1);
  if (int e = check_dtype(k, type, side.infos[0])) return e;
  side.buf = buf;
  return block_layout(k, buf, n ? counts : nullptr, n ? displs : nullptr, 0, static_cast<int>(n), side.infos[0], what,
                      side.bytes, side.offsets);
}

// alltoallw blocks: counts[i] elements of types[i] at byte displacement displs[i].
int typed(const Call& k, Side& side, const void* buf, const int* counts, const MPI_Aint* displs,
          const MPI_Datatype* types, std::size_t n, const char* what) {
  if (int e = check_counts(k, counts, n, what)) return e;
  if (n && (!displs || !types))
    return raise_error(k.comm, MPI_ERR_ARG, k.name, "displacements or datatypes of %s are NULL", what);
  side.buf = buf;
  side.per_block = true;
  side.types.assign(types, types + n);
  side.infos.resize(n);
  side.bytes.resize(n);
  side.offsets.resize(n);
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (int e = check_dtype(k, types[i], side.infos[i])) return e;
    side.bytes[i] = std::size_t(counts[i]) * side.infos[i].size;
    side.offsets[i] = std::size_t(displs[i]);
    total += side.bytes[i];
  }
  return check_buf(k, buf, total, what);
}

int run(const Call& k, CollCallRoom& n, MPI_Request* req) {
  Side &send = n.send, &recv = n.recv;
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging staging(*s);
  std::byte* in = n.destinations.empty() ? nullptr
                                         : staging.blocks(send.buf, send.bytes, send.offsets, send.types.data(),
                                                          send.infos.data(), send.per_block, Dir::in);
  std::byte* out = n.sources.empty() ? nullptr
                                     : staging.blocks(recv.buf, recv.bytes, recv.offsets, recv.types.data(),
                                                      recv.infos.data(), recv.per_block, Dir::out);
  for (std::size_t i = 0; i < n.sources.size(); ++i) s->recv(out + recv.offsets[i], recv.bytes[i], n.sources[i]);
  // Messages of one call to one peer match its receives in the order sent. On a Cartesian grid a
  // periodic dimension of 1 or 2 ranks makes one rank both neighbors of that dimension (and this
  // rank every neighbor of its dimensions of 1), and the block sent to the +1 neighbor belongs in
  // that rank's block of its -1 neighbor: sent dimension by dimension, +1 before -1, each lands in
  // the receive of the opposite direction, posted in the order -1, +1 (as MPICH and Open MPI
  // match them). Graph neighbors repeat in list order (MPI's rule).
  const bool cart = k.c->topo && k.c->topo->kind == core::TopoKind::cart;
  for (std::size_t j = 0; j < n.destinations.size(); ++j) {
    const std::size_t d = cart ? j ^ 1 : j;  // a Cartesian list has 2 entries a dimension
    s->send(in + send.offsets[d], send.bytes[d], n.destinations[d]);
  }
  s->round();
  staging.finish();
  return launch(k, std::move(s), req);
}

int allgather(Call k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, MPI_Request* req) {
  CollCallRoom& n = instance().coll_room;
  if (int e = topology(k, n)) return e;
  if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (int e = uniform(k, n.send, sendbuf, sendcount, sendtype, n.destinations.size(), 0, "sendcount")) return e;
  if (int e = uniform(k, n.recv, recvbuf, recvcount, recvtype, n.sources.size(), 1, "recvcount")) return e;
  return run(k, n, req);
}

int allgatherv(Call k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Request* req) {
  CollCallRoom& n = instance().coll_room;
  if (int e = topology(k, n)) return e;
  if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (int e = uniform(k, n.send, sendbuf, sendcount, sendtype, n.destinations.size(), 0, "sendcount")) return e;
  if (int e = varying(k, n.recv, recvbuf, recvcounts, displs, recvtype, n.sources.size(), "recvcounts")) return e;
  return run(k, n, req);
}

int alltoall(Call k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, MPI_Request* req) {
  CollCallRoom& n = instance().coll_room;
  if (int e = topology(k, n)) return e;
  if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (int e = uniform(k, n.send, sendbuf, sendcount, sendtype, n.destinations.size(), 1, "sendcount")) return e;
  if (int e = uniform(k, n.recv, recvbuf, recvcount, recvtype, n.sources.size(), 1, "recvcount")) return e;
  return run(k, n, req);
}

int alltoallv(Call k, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
              void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Request* req) {
  CollCallRoom& n = instance().coll_room;
  if (int e = topology(k, n)) return e;
  if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (int e = varying(k, n.send, sendbuf, sendcounts, sdispls, sendtype, n.destinations.size(), "sendcounts")) return e;
  if (int e = varying(k, n.recv, recvbuf, recvcounts, rdispls, recvtype, n.sources.size(), "recvcounts")) return e;
  return run(k, n, req);
}

int alltoallw(Call k, const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
              const MPI_Datatype recvtypes[], MPI_Request* req) {
  CollCallRoom& n = instance().coll_room;
  if (int e = topology(k, n)) return e;
  if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (int e = typed(k, n.send, sendbuf, sendcounts, sdispls, sendtypes, n.destinations.size(), "sendcounts")) return e;
  if (int e = typed(k, n.recv, recvbuf, recvcounts, rdispls, recvtypes, n.sources.size(), "recvcounts")) return e;
  return run(k, n, req);
}

}  // namespace

extern "C" {

int PMPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather({"MPI_Neighbor_allgather", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   nullptr);
}
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather

int PMPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_allgather", "request is NULL");
  return allgather({"MPI_Ineighbor_allgather", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                   request);
}
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather

int PMPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv({"MPI_Neighbor_allgatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, nullptr);
}
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv

int PMPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_allgatherv", "request is NULL");
  return allgatherv({"MPI_Ineighbor_allgatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                    recvtype, request);
}
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv

int PMPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall({"MPI_Neighbor_alltoall", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  nullptr);
}
#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall

int PMPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_alltoall", "request is NULL");
  return alltoall({"MPI_Ineighbor_alltoall", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                  request);
}
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall

int PMPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm) {
  return alltoallv({"MPI_Neighbor_alltoallv", comm}, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, nullptr);
}
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv

int PMPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_alltoallv", "request is NULL");
  return alltoallv({"MPI_Ineighbor_alltoallv", comm}, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                   rdispls, recvtype, request);
}
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv

int PMPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw({"MPI_Neighbor_alltoallw", comm}, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, nullptr);
}
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw

int PMPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_alltoallw", "request is NULL");
  return alltoallw({"MPI_Ineighbor_alltoallw", comm}, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                   rdispls, recvtypes, request);
}
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw

}  // extern "C"
