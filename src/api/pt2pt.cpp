// Point-to-point sends and receives (blocking and non-blocking, all send modes).
#include "api/checks.hpp"
#include "api/completion.hpp"
#include "api/typed_buffer.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// The short path: contiguous data, not synchronous, and the route takes the eager frame now.
[[gnu::always_inline]] inline bool send_now(Instance& in, const core::Communicator& c, const void* buf, int count,
                                            const core::TypeInfo& t, int dest, int tag, p2p::SendMode mode) {
  return t.contiguous && mode != p2p::SendMode::synchronous &&
         in.p2p->try_send_now(contiguous_start(buf, t), t.size * std::size_t(count), c.job_rank(dest), c.context,
                              c.rank, tag);
}

// A blocking send that needs a request: anything the route did not take at once.
[[gnu::noinline]] int send_with_request(Instance& in, const core::Communicator& c, const void* buf, int count,
                                        MPI_Datatype type, const core::TypeInfo& t, int dest, int tag,
                                        p2p::SendMode mode) {
  const SendView v = send_view(buf, count, type, t);
  p2p::Request r;
  in.p2p->isend(r, v.ptr, v.bytes, c.job_rank(dest), c.context, c.rank, tag, mode, p2p::Marker::blocking,
                v.source());
  in.progress->wait_until([&] { return r.complete; }, c.job_rank(dest));
  return MPI_SUCCESS;
}

[[gnu::always_inline]] inline int blocking_send(const char* call, const void* buf, int count, MPI_Datatype type,
                                                int dest, int tag, MPI_Comm comm, p2p::SendMode mode) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send(call, buf, count, type, dest, tag, comm, c, t)) return e;
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  Instance& in = instance();
  if (send_now(in, *c, buf, count, t, dest, tag, mode)) [[likely]] return MPI_SUCCESS;
  return send_with_request(in, *c, buf, count, type, t, dest, tag, mode);
}

int nonblocking_send(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, p2p::SendMode mode, MPI_Request* request) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send(call, buf, count, type, dest, tag, comm, c, t)) return e;
  if (!request) return raise_error(comm, MPI_ERR_ARG, call, "request is NULL");
  Instance& in = instance();
  core::RequestSlot* s = in.requests.allocate();
  s->comm = comm;
  s->datatype = type;
  s->type_size = t.size;
  *request = s->handle;
  if (dest == MPI_PROC_NULL) {
    s->op = core::RequestOp::proc_null;
    s->p2p.complete = true;
    return MPI_SUCCESS;
  }
  s->op = core::RequestOp::send;
  if (send_now(in, *c, buf, count, t, dest, tag, mode)) [[likely]] {
    in.p2p->complete_sent(s->p2p, p2p::Marker::nonblocking);
    return MPI_SUCCESS;
  }
  std::size_t bytes;
  const void* data = slot_typed_buffer(*s, buf, count, type, t, bytes);
  in.p2p->isend(s->p2p, data, bytes, c->job_rank(dest), c->context, c->rank, tag, mode, p2p::Marker::nonblocking,
                slot_layout(*s));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Send", buf, count, type, dest, tag, comm, p2p::SendMode::standard);
}
#pragma weak MPI_Send = PMPI_Send

int PMPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, type, dest, tag, comm, p2p::SendMode::synchronous);
}
#pragma weak MPI_Ssend = PMPI_Ssend

int PMPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, type, dest, tag, comm, p2p::SendMode::ready);
}
#pragma weak MPI_Rsend = PMPI_Rsend

int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking_send("MPI_Isend", buf, count, type, dest, tag, comm, p2p::SendMode::standard, req);
}
#pragma weak MPI_Isend = PMPI_Isend

int PMPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking_send("MPI_Issend", buf, count, type, dest, tag, comm, p2p::SendMode::synchronous, req);
}
#pragma weak MPI_Issend = PMPI_Issend

int PMPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking_send("MPI_Irsend", buf, count, type, dest, tag, comm, p2p::SendMode::ready, req);
}
#pragma weak MPI_Irsend = PMPI_Irsend

int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_recv("MPI_Recv", buf, count, type, source, tag, comm, c, t)) return e;
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Instance& in = instance();
  const RecvView v = recv_view(buf, count, type, t);
  p2p::Request r;
  in.p2p->irecv(r, v.ptr, v.capacity, c->context, source, tag, p2p::Marker::blocking, v.target());
  in.progress->wait_until([&] { return r.complete; }, source == MPI_ANY_SOURCE ? -1 : c->job_rank(source));
  return finish_receive("MPI_Recv", comm, r, status);
}
#pragma weak MPI_Recv = PMPI_Recv

int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_recv("MPI_Irecv", buf, count, type, source, tag, comm, c, t)) return e;
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Irecv", "request is NULL");
  Instance& in = instance();
  core::RequestSlot* s = in.requests.allocate();
  s->comm = comm;
  s->datatype = type;
  s->type_size = t.size;
  *request = s->handle;
  if (source == MPI_PROC_NULL) {
    s->op = core::RequestOp::proc_null;
    s->p2p.complete = true;
    return MPI_SUCCESS;
  }
  s->op = core::RequestOp::recv;
  std::size_t capacity;
  void* data = slot_recv_buffer(*s, buf, count, type, t, capacity);
  in.p2p->irecv(s->p2p, data, capacity, c->context, source, tag, p2p::Marker::nonblocking, slot_layout(*s));
  return MPI_SUCCESS;
}
#pragma weak MPI_Irecv = PMPI_Irecv

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  const char* call = "MPI_Sendrecv";
  core::Communicator* c;
  core::TypeInfo st, rt;
  if (int e = check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, c, st)) return e;
  if (int e = check_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, c, rt)) return e;
  Instance& in = instance();
  p2p::Request rr, sr;
  rr.complete = source == MPI_PROC_NULL;
  sr.complete = dest == MPI_PROC_NULL;
  RecvView rv;
  SendView sv;
  if (source != MPI_PROC_NULL) {
    rv = recv_view(recvbuf, recvcount, recvtype, rt);
    in.p2p->irecv(rr, rv.ptr, rv.capacity, c->context, source, recvtag, p2p::Marker::blocking, rv.target());
  }
  if (dest != MPI_PROC_NULL) {
    sv = send_view(sendbuf, sendcount, sendtype, st);
    in.p2p->isend(sr, sv.ptr, sv.bytes, c->job_rank(dest), c->context, c->rank, sendtag, p2p::SendMode::standard,
                  p2p::Marker::blocking, sv.source());
  }
  in.progress->wait_until([&] { return rr.complete && sr.complete; });
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  return finish_receive(call, comm, rr, status);
}
#pragma weak MPI_Sendrecv = PMPI_Sendrecv

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status* status) {
  const char* call = "MPI_Sendrecv_replace";
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send(call, buf, count, type, dest, sendtag, comm, c, t)) return e;
  if (int e = check_recv(call, buf, count, type, source, recvtag, comm, c, t)) return e;
  const std::size_t bytes = t.size * std::size_t(count);
  Instance& in = instance();
  // The outgoing copy: in the runtime object's room when small (kept for the next call, which
  // then allocates nothing), else in a room of its own, given back at the end.
  base::ByteRoom own;
  std::byte* const copy = (bytes <= Instance::kReplaceRoomMax ? in.replace_room : own).at_least(bytes);
  if (bytes) core::pack(instance().types, buf, std::size_t(count), type, copy);
  p2p::Request rr, sr;
  rr.complete = source == MPI_PROC_NULL;
  sr.complete = dest == MPI_PROC_NULL;
  RecvView rv;
  if (source != MPI_PROC_NULL) {
    rv = recv_view(buf, count, type, t);
    in.p2p->irecv(rr, rv.ptr, rv.capacity, c->context, source, recvtag, p2p::Marker::blocking, rv.target());
  }
  if (dest != MPI_PROC_NULL)
    in.p2p->isend(sr, copy, bytes, c->job_rank(dest), c->context, c->rank, sendtag, p2p::SendMode::standard,
                  p2p::Marker::blocking);
  in.progress->wait_until([&] { return rr.complete && sr.complete; });
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  return finish_receive(call, comm, rr, status);
}
#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace

}  // extern "C"
