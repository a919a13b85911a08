// Collective entry points: blocking and non-blocking forms of every collective, on intra- and
// intercommunicators, and the reduction operation calls (MPI_Op_create/free/commutative,
// MPI_Reduce_local). Each call checks its arguments, builds a schedule (src/coll/) and either runs
// it to completion (blocking) or attaches it to a request (RequestOp::coll).
//
// Datatypes: contiguous ones are used in place (buf + true_lb); data movement collectives stage
// non-contiguous ones through contiguous scratch memory (pack at the call, unpack when the
// schedule ends). Reductions stage them the same way; a user operation on such a type is called on
// operands laid out with the type (coll::Reducer).
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "api/coll_call.hpp"

using namespace railmpi;
using namespace railmpi::api;

using namespace railmpi::api::collective;

namespace {

// --- implementations shared by the blocking and non-blocking entry points --------------------

// Blocking bcast through the node's shared region when the communicator and size qualify;
// non-contiguous datatypes travel packed.
coll::NodeCollectives::Result node_bcast(const Call& k, void* buf, int count, MPI_Datatype type,
                                         const core::TypeInfo& ti, int root) {
  using Result = coll::NodeCollectives::Result;
  coll::NodeCollectives& node = *instance().node_coll;
  const std::size_t bytes = ti.size * std::size_t(count);
  if (ti.contiguous || !buf) return node.bcast(*k.c, buf ? at(buf, ti) : nullptr, bytes, root);
  if (bytes > node.limit()) return Result::not_taken;
  std::byte* packed = instance().coll_room.node_packed.at_least(bytes);
  if (k.c->rank == root) core::pack(instance().types, buf, std::size_t(count), type, packed);
  const Result r = node.bcast(*k.c, packed, bytes, root);
  if (r != Result::not_taken && k.c->rank != root)
    core::unpack(instance().types, packed, bytes, std::size_t(count), type, buf);
  return r;
}

// The error a node-level collective reports (MPI_ERR_TRUNCATE as launch() does).
int node_outcome(const Call& k, coll::NodeCollectives::Result r) {
  if (r == coll::NodeCollectives::Result::truncated)
    return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name,
                       "another rank passed more data than this rank expects "
                       "(counts or datatypes differ across ranks)");
  return MPI_SUCCESS;
}

int barrier(Call k, MPI_Request* req) {
  if (int e = begin(k)) return e;
  if (int e = check_request(k, req, req != nullptr)) return e;
  if (!req)
    if (auto r = instance().node_coll->barrier(*k.c); r != coll::NodeCollectives::Result::not_taken)
      return node_outcome(k, r);
  auto s = schedule(k);
  coll::barrier(*s);
  return launch(k, std::move(s), req);
}

int bcast(Call k, void* buf, int count, MPI_Datatype type, int root, MPI_Request* req) {
  if (int e = begin(k)) return e;
  core::TypeInfo ti;
  if (int e = check_cnt(k, count, "count")) return e;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = check_root(k, root)) return e;
  const std::size_t bytes = ti.size * std::size_t(count);
  if (int e = check_buf(k, buf, bytes, "buffer")) return e;
  if (int e = no_in_place(k, buf, "buffer")) return e;
  if (!req)
    if (auto r = node_bcast(k, buf, count, type, ti, root); r != coll::NodeCollectives::Result::not_taken)
      return node_outcome(k, r);
  auto s = schedule(k);
  Staging st(*s);
  // Receivers unpack; the root and (intercommunicator) the rest of its group only read.
  const bool receives = k.c->is_inter() ? root != MPI_ROOT && root != MPI_PROC_NULL : k.c->rank != root;
  std::byte* b = st.region(buf, std::size_t(count), type, ti, receives ? Dir::out : Dir::in);
  coll::bcast(*s, b, bytes, root);
  st.finish();
  return launch(k, std::move(s), req);
}

// Role in a rooted collective: does this process hold the root's buffers / the non-root ones?
struct Roles {
  bool root_side;     // uses the root arguments (recvbuf of gather, sendbuf of scatter)
  bool nonroot_side;  // uses the non-root arguments
};
Roles roles(const core::Communicator& c, int root) {
  if (c.is_inter()) return {root == MPI_ROOT, root != MPI_ROOT && root != MPI_PROC_NULL};
  return {c.rank == root, true};
}

int gather(Call k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
           const int* displs, int recvcount, MPI_Datatype recvtype, int root, MPI_Request* req) {
  const bool v = recvcounts != nullptr || displs != nullptr;
  if (int e = begin(k)) return e;
  if (int e = check_root(k, root)) return e;
  const core::Communicator& c = *k.c;
  const Roles ro = roles(c, root);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (ro.root_side)
    if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && (c.is_inter() || !ro.root_side))
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
  core::TypeInfo st{}, rt{};
  std::size_t sbytes = 0;
  if (ro.nonroot_side && !in_place) {
    if (int e = check_cnt(k, sendcount, "sendcount")) return e;
    if (int e = check_dtype(k, sendtype, st, "sendtype")) return e;
    sbytes = st.size * std::size_t(sendcount);
    if (int e = check_buf(k, sendbuf, sbytes, "sendbuf")) return e;
  }
  const int n = c.remote_size();
  Bytes &rbytes = layout(0), &roffs = layout(1);
  if (ro.root_side) {
    if (int e = check_dtype(k, recvtype, rt, "recvtype")) return e;
    if (int e = block_layout(k, recvbuf, recvcounts, displs, recvcount, n, rt, "recv", rbytes, roffs)) return e;
    if (!c.is_inter()) {
      if (in_place) sbytes = rbytes[std::size_t(c.rank)];
      else if (sbytes != rbytes[std::size_t(c.rank)])
        return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name, "root sends %zu bytes but expects %zu from itself", sbytes,
                           rbytes[std::size_t(c.rank)]);
    }
  }
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging stage(*s);
  std::byte* rbase = ro.root_side ? stage.blocks(recvbuf, rbytes, roffs, &recvtype, &rt, false, in_place ? Dir::inout : Dir::out)
                                  : nullptr;
  const void* src = in_place            ? static_cast<const void*>(rbase + roffs[std::size_t(c.rank)])
                    : ro.nonroot_side ? stage.region(sendbuf, std::size_t(sendcount), sendtype, st, Dir::in)
                                      : nullptr;
  if (!v) {
    const std::size_t block = c.is_inter() ? (ro.root_side ? rbytes.empty() ? 0 : rbytes[0] : sbytes)
                                           : (ro.root_side ? rbytes[std::size_t(c.rank)] : sbytes);
    coll::gather(*s, src, rbase, block, root);
  } else {
    coll::gatherv(*s, src, sbytes, rbase, rbytes.data(), roffs.data(), root);
  }
  stage.finish();
  return launch(k, std::move(s), req);
}

int scatter(Call k, const void* sendbuf, const int* sendcounts, const int* displs, int sendcount,
            MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Request* req) {
  const bool v = sendcounts != nullptr || displs != nullptr;
  if (int e = begin(k)) return e;
  if (int e = check_root(k, root)) return e;
  const core::Communicator& c = *k.c;
  const Roles ro = roles(c, root);
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (ro.root_side)
    if (int e = no_in_place(k, sendbuf, "sendbuf")) return e;
  if (in_place && (c.is_inter() || !ro.root_side))
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
  core::TypeInfo st{}, rt{};
  std::size_t rbytes = 0;
  if (ro.nonroot_side && !in_place) {
    if (int e = check_cnt(k, recvcount, "recvcount")) return e;
    if (int e = check_dtype(k, recvtype, rt, "recvtype")) return e;
    rbytes = rt.size * std::size_t(recvcount);
    if (int e = check_buf(k, recvbuf, rbytes, "recvbuf")) return e;
  }
  const int n = c.remote_size();
  Bytes &sbytes = layout(0), &soffs = layout(1);
  if (ro.root_side) {
    if (int e = check_dtype(k, sendtype, st, "sendtype")) return e;
    if (int e = block_layout(k, sendbuf, sendcounts, displs, sendcount, n, st, "send", sbytes, soffs)) return e;
    if (!c.is_inter()) {
      if (in_place) rbytes = sbytes[std::size_t(c.rank)];
      else if (rbytes < sbytes[std::size_t(c.rank)])
        return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name, "root sends %zu bytes to itself but receives only %zu",
                           sbytes[std::size_t(c.rank)], rbytes);
    }
  }
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging stage(*s);
  void* dst = in_place || !ro.nonroot_side ? nullptr
                                           : stage.region(recvbuf, std::size_t(recvcount), recvtype, rt, Dir::out);
  std::byte* sbase = ro.root_side ? stage.blocks(sendbuf, sbytes, soffs, &sendtype, &st, false, Dir::in) : nullptr;
  if (!v) {
    const std::size_t block = ro.root_side ? (sbytes.empty() ? 0 : sbytes[0]) : rbytes;
    coll::scatter(*s, sbase, dst, block, root);
  } else {
    coll::scatterv(*s, sbase, sbytes.data(), soffs.data(), dst, rbytes, root);
  }
  stage.finish();
  return launch(k, std::move(s), req);
}

int allgather(Call k, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
              const int* displs, int recvcount, MPI_Datatype recvtype, MPI_Request* req) {
  const bool v = recvcounts != nullptr || displs != nullptr;
  if (int e = begin(k)) return e;
  const core::Communicator& c = *k.c;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && c.is_inter())
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is not allowed on an intercommunicator");
  core::TypeInfo st{}, rt{};
  if (int e = check_dtype(k, recvtype, rt, "recvtype")) return e;
  const int n = c.remote_size();
  Bytes &rbytes = layout(0), &roffs = layout(1);
  if (int e = block_layout(k, recvbuf, recvcounts, displs, recvcount, n, rt, "recv", rbytes, roffs)) return e;
  std::size_t sbytes = in_place ? rbytes[std::size_t(c.rank)] : 0;
  if (!in_place) {
    if (int e = check_cnt(k, sendcount, "sendcount")) return e;
    if (int e = check_dtype(k, sendtype, st, "sendtype")) return e;
    sbytes = st.size * std::size_t(sendcount);
    if (int e = check_buf(k, sendbuf, sbytes, "sendbuf")) return e;
    if (!c.is_inter() && sbytes != rbytes[std::size_t(c.rank)])
      return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name, "this rank sends %zu bytes but expects %zu from itself",
                         sbytes, rbytes[std::size_t(c.rank)]);
  }
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging stage(*s);
  std::byte* rbase = stage.blocks(recvbuf, rbytes, roffs, &recvtype, &rt, false, in_place ? Dir::inout : Dir::out);
  const void* src = in_place ? static_cast<const void*>(rbase + roffs[std::size_t(c.rank)])
                             : stage.region(sendbuf, std::size_t(sendcount), sendtype, st, Dir::in);
  if (!v) coll::allgather(*s, src, rbase, rbytes[0]);
  else coll::allgatherv(*s, src, sbytes, rbase, rbytes.data(), roffs.data());
  stage.finish();
  return launch(k, std::move(s), req);
}

// Alltoall family. `w`: per-peer datatypes and byte displacements.
int alltoall(Call k, const void* sendbuf, const int* sendcounts, const int* sdispls, const MPI_Datatype* sendtypes,
             int sendcount, MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
             const MPI_Datatype* recvtypes, int recvcount, MPI_Datatype recvtype, int kind, MPI_Request* req) {
  // kind 0: alltoall, 1: alltoallv, 2: alltoallw
  if (int e = begin(k)) return e;
  const core::Communicator& c = *k.c;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && c.is_inter())
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is not allowed on an intercommunicator");
  const int n = c.remote_size();
  if (kind > 0 && (!recvcounts || !rdispls || (!in_place && (!sendcounts || !sdispls))))
    return raise_error(k.comm, MPI_ERR_ARG, k.name, "a counts or displacements array is NULL");
  if (kind == 2 && (!recvtypes || (!in_place && !sendtypes)))
    return raise_error(k.comm, MPI_ERR_ARG, k.name, "a datatypes array is NULL");
  const auto un = static_cast<std::size_t>(n);
  Bytes &sb = layout(0), &so = layout(1), &rb = layout(2), &ro = layout(3);
  sb.assign(un, 0), so.assign(un, 0), rb.assign(un, 0), ro.assign(un, 0);
  // A datatype per peer for alltoallw (kept from call to call in CollCallRoom); one for every
  // peer otherwise.
  MPI_Datatype one_type[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  core::TypeInfo one_info[2] = {};
  CollCallRoom& room = instance().coll_room;
  if (kind == 2) {
    for (auto& v : room.peer_types) v.resize(un);
    for (auto& v : room.peer_type_infos) v.resize(un);
  }
  MPI_Datatype* rtypes = kind == 2 ? room.peer_types[0].data() : &one_type[0];
  MPI_Datatype* stypes = kind == 2 ? room.peer_types[1].data() : &one_type[1];
  core::TypeInfo* rinfo = kind == 2 ? room.peer_type_infos[0].data() : &one_info[0];
  core::TypeInfo* sinfo = kind == 2 ? room.peer_type_infos[1].data() : &one_info[1];
  auto side = [&](bool send, Bytes& bytes, Bytes& offs, MPI_Datatype* types, core::TypeInfo* infos,
                  const void* buf) -> int {
    core::TypeInfo t{};
    if (kind < 2) {
      if (int e = check_dtype(k, send ? sendtype : recvtype, t, send ? "sendtype" : "recvtype")) return e;
    }
    for (int i = 0; i < n; ++i) {
      if (kind == 2)
        if (int e = check_dtype(k, (send ? sendtypes : recvtypes)[i], t, send ? "sendtypes[i]" : "recvtypes[i]")) return e;
      const std::size_t at = kind == 2 ? std::size_t(i) : 0;  // one entry for all peers but alltoallw
      types[at] = kind == 2 ? (send ? sendtypes : recvtypes)[i] : (send ? sendtype : recvtype);
      infos[at] = t;
      const int cnt = kind == 0 ? (send ? sendcount : recvcount) : (send ? sendcounts : recvcounts)[i];
      if (int e = check_cnt(k, cnt, send ? "sendcount" : "recvcount")) return e;
      bytes[std::size_t(i)] = t.size * std::size_t(cnt);
      const std::ptrdiff_t d = kind == 0 ? std::ptrdiff_t(i) * cnt * t.extent
                               : kind == 1 ? std::ptrdiff_t((send ? sdispls : rdispls)[i]) * t.extent
                                           : std::ptrdiff_t((send ? sdispls : rdispls)[i]);
      offs[std::size_t(i)] = std::size_t(d);
      if (int e = check_buf(k, buf, bytes[std::size_t(i)], send ? "sendbuf" : "recvbuf")) return e;
    }
    return MPI_SUCCESS;
  };
  if (int e = side(false, rb, ro, rtypes, rinfo, recvbuf)) return e;
  if (in_place) {
    sb = rb;
  } else if (int e = side(true, sb, so, stypes, sinfo, sendbuf)) {
    return e;
  }
  if (!c.is_inter() && sb[std::size_t(c.rank)] != rb[std::size_t(c.rank)])
    return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name, "this rank sends %zu bytes to itself but expects %zu",
                       sb[std::size_t(c.rank)], rb[std::size_t(c.rank)]);
  if (kind == 0 && !c.is_inter()) {
    for (int i = 0; i < n; ++i)
      if (sb[std::size_t(i)] != rb[std::size_t(i)])
        return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name, "send block %zu bytes, receive block %zu bytes",
                           sb[std::size_t(i)], rb[std::size_t(i)]);
  }
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging stage(*s);
  const bool per_block = kind == 2;
  std::byte* out = stage.blocks(recvbuf, rb, ro, rtypes, rinfo, per_block, in_place ? Dir::inout : Dir::out);
  const std::byte* in;
  if (in_place) {
    // Send from a copy of the receive blocks.
    std::size_t end = 0;
    for (int i = 0; i < n; ++i) end = std::max(end, ro[std::size_t(i)] + rb[std::size_t(i)]);
    std::byte* copy = s->scratch(end);
    if (end) std::memcpy(copy, out, end);
    in = copy;
    so = ro;
  } else {
    in = stage.blocks(sendbuf, sb, so, stypes, sinfo, per_block, Dir::in);
  }
  if (kind == 0) {
    // Uniform blocks from the first block's offset (true_lb, or 0 when staged).
    coll::alltoall(*s, in + so[0], out + ro[0], rb[0]);
  } else {
    coll::alltoallv(*s, in, sb.data(), so.data(), out, rb.data(), ro.data());
  }
  stage.finish();
  return launch(k, std::move(s), req);
}

int reduce(Call k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           MPI_Request* req) {
  if (int e = begin(k)) return e;
  const core::Communicator& c = *k.c;
  core::TypeInfo ti;
  coll::Reducer r;
  if (int e = check_cnt(k, count, "count")) return e;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = get_reducer(k.name, k.comm, op, type, ti, r)) return e;
  if (int e = check_root(k, root)) return e;
  const Roles ro = roles(c, root);
  const std::size_t bytes = ti.size * std::size_t(count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (ro.root_side)
    if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && (c.is_inter() || !ro.root_side))
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
  if (ro.root_side)
    if (int e = check_buf(k, recvbuf, bytes, "recvbuf")) return e;
  if (ro.nonroot_side && !in_place)
    if (int e = check_buf(k, sendbuf, bytes, "sendbuf")) return e;
  if (int e = check_request(k, req, req != nullptr)) return e;
  if (!req)
    if (auto nr = instance().node_coll->reduce(c, in_place ? at(recvbuf, ti) : at(sendbuf, ti),
                                               ro.root_side ? at(recvbuf, ti) : nullptr, std::size_t(count), r, root);
        nr != coll::NodeCollectives::Result::not_taken)
      return node_outcome(k, nr);
  auto s = schedule(k);
  Staging st(*s);
  st.keep(type);  // the reduction's steps use it
  std::byte* rb = ro.root_side ? st.region(recvbuf, std::size_t(count), type, ti, in_place ? Dir::inout : Dir::out)
                               : nullptr;
  // sendbuf is not significant at an intercommunicator's MPI_ROOT / MPI_PROC_NULL processes.
  const std::byte* sb = in_place            ? rb
                        : ro.nonroot_side ? st.region(sendbuf, std::size_t(count), type, ti, Dir::in)
                                          : at(sendbuf, ti);
  coll::reduce(*s, sb, rb, std::size_t(count), r, root);
  st.finish();
  return launch(k, std::move(s), req);
}

int allreduce(Call k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Request* req) {
  if (int e = begin(k)) return e;
  const core::Communicator& c = *k.c;
  core::TypeInfo ti;
  coll::Reducer r;
  if (int e = check_cnt(k, count, "count")) return e;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = get_reducer(k.name, k.comm, op, type, ti, r)) return e;
  const std::size_t bytes = ti.size * std::size_t(count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && c.is_inter())
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is not allowed on an intercommunicator");
  if (int e = check_buf(k, recvbuf, bytes, "recvbuf")) return e;
  if (!in_place)
    if (int e = check_buf(k, sendbuf, bytes, "sendbuf")) return e;
  if (int e = check_request(k, req, req != nullptr)) return e;
  if (!req)
    if (auto nr = instance().node_coll->allreduce(c, in_place ? at(recvbuf, ti) : at(sendbuf, ti), at(recvbuf, ti),
                                                  std::size_t(count), r);
        nr != coll::NodeCollectives::Result::not_taken)
      return node_outcome(k, nr);
  auto s = schedule(k);
  Staging st(*s);
  st.keep(type);  // the reduction's steps use it
  std::byte* rb = st.region(recvbuf, std::size_t(count), type, ti, in_place ? Dir::inout : Dir::out);
  const std::byte* sb = in_place ? rb : st.region(sendbuf, std::size_t(count), type, ti, Dir::in);
  coll::allreduce(*s, sb, rb, std::size_t(count), r);
  st.finish();
  return launch(k, std::move(s), req);
}

// recvcounts == nullptr: the _block form with `recvcount` per rank.
int reduce_scatter(Call k, const void* sendbuf, void* recvbuf, const int* recvcounts, int recvcount,
                   MPI_Datatype type, MPI_Op op, MPI_Request* req) {
  if (int e = begin(k)) return e;
  const core::Communicator& c = *k.c;
  core::TypeInfo ti;
  coll::Reducer r;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = get_reducer(k.name, k.comm, op, type, ti, r)) return e;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (in_place && c.is_inter())
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is not allowed on an intercommunicator");
  const int n = c.size();
  Bytes& counts = layout(0);
  counts.assign(static_cast<std::size_t>(n), 0);
  std::size_t total = 0;
  for (int i = 0; i < n; ++i) {
    const int cnt = recvcounts ? recvcounts[i] : recvcount;
    if (int e = check_cnt(k, cnt, recvcounts ? "recvcounts[i]" : "recvcount")) return e;
    counts[std::size_t(i)] = std::size_t(cnt);
    total += std::size_t(cnt);
  }
  if (int e = check_buf(k, recvbuf, counts[std::size_t(c.rank)] * ti.size, "recvbuf")) return e;
  if (!in_place)
    if (int e = check_buf(k, sendbuf, total * ti.size, "sendbuf")) return e;
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging st(*s);
  st.keep(type);  // the reduction's steps use it
  // In place, the whole input is in recvbuf; the result is its first counts[rank] elements.
  std::byte* rb = st.region(recvbuf, in_place ? total : counts[std::size_t(c.rank)], type, ti,
                            in_place ? Dir::inout : Dir::out);
  const std::byte* sb = in_place ? rb : st.region(sendbuf, total, type, ti, Dir::in);
  coll::reduce_scatter(*s, sb, rb, counts.data(), r);
  st.finish();
  return launch(k, std::move(s), req);
}

int scan(Call k, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, bool exclusive,
         MPI_Request* req) {
  if (int e = begin(k)) return e;
  if (k.c->is_inter())
    return raise_error(k.comm, MPI_ERR_COMM, k.name, "not defined on an intercommunicator");
  core::TypeInfo ti;
  coll::Reducer r;
  if (int e = check_cnt(k, count, "count")) return e;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = get_reducer(k.name, k.comm, op, type, ti, r)) return e;
  const std::size_t bytes = ti.size * std::size_t(count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (int e = no_in_place(k, recvbuf, "recvbuf")) return e;
  if (int e = check_buf(k, recvbuf, bytes, "recvbuf")) return e;
  if (!in_place)
    if (int e = check_buf(k, sendbuf, bytes, "sendbuf")) return e;
  if (int e = check_request(k, req, req != nullptr)) return e;
  auto s = schedule(k);
  Staging st(*s);
  st.keep(type);  // the reduction's steps use it
  // Exscan leaves rank 0's recvbuf as it is: packed first, it is unpacked unchanged.
  std::byte* rb = st.region(recvbuf, std::size_t(count), type, ti, in_place || exclusive ? Dir::inout : Dir::out);
  const std::byte* sb = in_place ? rb : st.region(sendbuf, std::size_t(count), type, ti, Dir::in);
  coll::scan(*s, sb, rb, std::size_t(count), r, exclusive);
  st.finish();
  return launch(k, std::move(s), req);
}

}  // namespace

extern "C" {

int PMPI_Barrier(MPI_Comm comm) { return barrier({"MPI_Barrier", comm}, nullptr); }
#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ibarrier", "request is NULL");
  return barrier({"MPI_Ibarrier", comm}, request);
}
#pragma weak MPI_Ibarrier = PMPI_Ibarrier

int PMPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  return bcast({"MPI_Bcast", comm}, buffer, count, type, root, nullptr);
}
#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ibcast", "request is NULL");
  return bcast({"MPI_Ibcast", comm}, buffer, count, type, root, request);
}
#pragma weak MPI_Ibcast = PMPI_Ibcast

int PMPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return gather({"MPI_Gather", comm}, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount, recvtype,
                root, nullptr);
}
#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Igather", "request is NULL");
  return gather({"MPI_Igather", comm}, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount, recvtype,
                root, request);
}
#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                 const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static const int none = 0;
  return gather({"MPI_Gatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts ? recvcounts : &none,
                displs ? displs : &none, 0, recvtype, root, nullptr);
}
#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Igatherv", "request is NULL");
  static const int none = 0;
  return gather({"MPI_Igatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts ? recvcounts : &none,
                displs ? displs : &none, 0, recvtype, root, request);
}
#pragma weak MPI_Igatherv = PMPI_Igatherv

int PMPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return scatter({"MPI_Scatter", comm}, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, recvcount, recvtype,
                 root, nullptr);
}
#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iscatter", "request is NULL");
  return scatter({"MPI_Iscatter", comm}, sendbuf, nullptr, nullptr, sendcount, sendtype, recvbuf, recvcount, recvtype,
                 root, request);
}
#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  static const int none = 0;
  return scatter({"MPI_Scatterv", comm}, sendbuf, sendcounts ? sendcounts : &none, displs ? displs : &none, 0,
                 sendtype, recvbuf, recvcount, recvtype, root, nullptr);
}
#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iscatterv", "request is NULL");
  static const int none = 0;
  return scatter({"MPI_Iscatterv", comm}, sendbuf, sendcounts ? sendcounts : &none, displs ? displs : &none, 0,
                 sendtype, recvbuf, recvcount, recvtype, root, request);
}
#pragma weak MPI_Iscatterv = PMPI_Iscatterv

int PMPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather({"MPI_Allgather", comm}, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount,
                   recvtype, nullptr);
}
#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iallgather", "request is NULL");
  return allgather({"MPI_Iallgather", comm}, sendbuf, sendcount, sendtype, recvbuf, nullptr, nullptr, recvcount,
                   recvtype, request);
}
#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  static const int none = 0;
  return allgather({"MPI_Allgatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts ? recvcounts : &none,
                   displs ? displs : &none, 0, recvtype, nullptr);
}
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iallgatherv", "request is NULL");
  static const int none = 0;
  return allgather({"MPI_Iallgatherv", comm}, sendbuf, sendcount, sendtype, recvbuf, recvcounts ? recvcounts : &none,
                   displs ? displs : &none, 0, recvtype, request);
}
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv

int PMPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall({"MPI_Alltoall", comm}, sendbuf, nullptr, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr,
                  nullptr, nullptr, recvcount, recvtype, 0, nullptr);
}
#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ialltoall", "request is NULL");
  return alltoall({"MPI_Ialltoall", comm}, sendbuf, nullptr, nullptr, nullptr, sendcount, sendtype, recvbuf, nullptr,
                  nullptr, nullptr, recvcount, recvtype, 0, request);
}
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall({"MPI_Alltoallv", comm}, sendbuf, sendcounts, sdispls, nullptr, 0, sendtype, recvbuf, recvcounts,
                  rdispls, nullptr, 0, recvtype, 1, nullptr);
}
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ialltoallv", "request is NULL");
  return alltoall({"MPI_Ialltoallv", comm}, sendbuf, sendcounts, sdispls, nullptr, 0, sendtype, recvbuf, recvcounts,
                  rdispls, nullptr, 0, recvtype, 1, request);
}
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                   void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                   MPI_Comm comm) {
  return alltoall({"MPI_Alltoallw", comm}, sendbuf, sendcounts, sdispls, sendtypes, 0, 0, recvbuf, recvcounts,
                  rdispls, recvtypes, 0, 0, 2, nullptr);
}
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                    void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                    MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ialltoallw", "request is NULL");
  return alltoall({"MPI_Ialltoallw", comm}, sendbuf, sendcounts, sdispls, sendtypes, 0, 0, recvbuf, recvcounts,
                  rdispls, recvtypes, 0, 0, 2, request);
}
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw

int PMPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm) {
  return reduce({"MPI_Reduce", comm}, sendbuf, recvbuf, count, type, op, root, nullptr);
}
#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ireduce", "request is NULL");
  return reduce({"MPI_Ireduce", comm}, sendbuf, recvbuf, count, type, op, root, request);
}
#pragma weak MPI_Ireduce = PMPI_Ireduce

int PMPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return allreduce({"MPI_Allreduce", comm}, sendbuf, recvbuf, count, type, op, nullptr);
}
#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iallreduce", "request is NULL");
  return allreduce({"MPI_Iallreduce", comm}, sendbuf, recvbuf, count, type, op, request);
}
#pragma weak MPI_Iallreduce = PMPI_Iallreduce

int PMPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm) {
  if (!recvcounts) return raise_error(comm, MPI_ERR_ARG, "MPI_Reduce_scatter", "recvcounts is NULL");
  return reduce_scatter({"MPI_Reduce_scatter", comm}, sendbuf, recvbuf, recvcounts, 0, type, op, nullptr);
}
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm, MPI_Request* request) {
  if (!recvcounts) return raise_error(comm, MPI_ERR_ARG, "MPI_Ireduce_scatter", "recvcounts is NULL");
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ireduce_scatter", "request is NULL");
  return reduce_scatter({"MPI_Ireduce_scatter", comm}, sendbuf, recvbuf, recvcounts, 0, type, op, request);
}
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm) {
  return reduce_scatter({"MPI_Reduce_scatter_block", comm}, sendbuf, recvbuf, nullptr, recvcount, type, op, nullptr);
}
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm, MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ireduce_scatter_block", "request is NULL");
  return reduce_scatter({"MPI_Ireduce_scatter_block", comm}, sendbuf, recvbuf, nullptr, recvcount, type, op, request);
}
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block

int PMPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return scan({"MPI_Scan", comm}, sendbuf, recvbuf, count, type, op, false, nullptr);
}
#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
               MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iscan", "request is NULL");
  return scan({"MPI_Iscan", comm}, sendbuf, recvbuf, count, type, op, false, request);
}
#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return scan({"MPI_Exscan", comm}, sendbuf, recvbuf, count, type, op, true, nullptr);
}
#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                 MPI_Request* request) {
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Iexscan", "request is NULL");
  return scan({"MPI_Iexscan", comm}, sendbuf, recvbuf, count, type, op, true, request);
}
#pragma weak MPI_Iexscan = PMPI_Iexscan

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype type, MPI_Op op) {
  const char* call = "MPI_Reduce_local";
  require_running(call);
  Call k{call, MPI_COMM_WORLD};
  core::TypeInfo ti;
  coll::Reducer r;
  if (int e = check_cnt(k, count, "count")) return e;
  if (int e = check_dtype(k, type, ti)) return e;
  if (int e = get_reducer(call, MPI_COMM_WORLD, op, type, ti, r)) return e;
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "MPI_IN_PLACE is not allowed");
  if (int e = check_buf(k, inbuf, ti.size * std::size_t(count), "inbuf")) return e;
  if (int e = check_buf(k, inoutbuf, ti.size * std::size_t(count), "inoutbuf")) return e;
  if (ti.contiguous) {
    r(at(inbuf, ti), at(inoutbuf, ti), std::size_t(count));
    return MPI_SUCCESS;
  }
  // A user operation on a non-contiguous type: it is called on the buffers as they are.
  int len = count, dt = type;
  if (count) r.user(const_cast<void*>(inbuf), inoutbuf, &len, &dt);
  return MPI_SUCCESS;
}
#pragma weak MPI_Reduce_local = PMPI_Reduce_local

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  const char* call = "MPI_Op_create";
  require_running(call);
  if (!user_fn || !op) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "user_fn or op is NULL");
  *op = instance().ops.create(reinterpret_cast<core::UserFn>(user_fn), commute != 0);
  return MPI_SUCCESS;
}
#pragma weak MPI_Op_create = PMPI_Op_create

int PMPI_Op_free(MPI_Op* op) {
  const char* call = "MPI_Op_free";
  require_running(call);
  if (!op) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "op is NULL");
  if (!instance().ops.free(*op))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_OP, call, "op=0x%x is not a user-defined operation",
                       static_cast<unsigned>(*op));
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Op_free = PMPI_Op_free

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  const char* call = "MPI_Op_commutative";
  require_running(call);
  if (!commute) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "commute is NULL");
  if (const core::OpTable::Entry* u = instance().ops.find(op)) {
    *commute = u->commutative;
    return MPI_SUCCESS;
  }
  if (!core::is_predefined_op(op))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_OP, call, "op=0x%x is not a valid operation", static_cast<unsigned>(op));
  *commute = 1;
  return MPI_SUCCESS;
}
#pragma weak MPI_Op_commutative = PMPI_Op_commutative

}  // extern "C"
