// Request life cycle: persistent requests, MPI_Start, MPI_Cancel, MPI_Request_free, and the
// status queries and setters (MPI_Get_count / MPI_Get_elements / MPI_Test_cancelled,
// MPI_Status_set_elements / MPI_Status_set_cancelled, MPI_Status_c2f / MPI_Status_f2c).
#include <cstring>

#include "api/bsend.hpp"
#include "api/completion.hpp"
#include "api/typed_buffer.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

void release_when_complete(p2p::Request& r) {
  auto* s = static_cast<core::RequestSlot*>(r.owner);
  drop_slot_resources(*s);
  instance().requests.release(s);
}

// A persistent request as MPI_Send_init / MPI_Recv_init leave it: inactive (complete), holding the
// arguments MPI_Start uses.
core::RequestSlot* inactive_persistent(core::RequestOp op, const void* buf, int count, MPI_Datatype type,
                                       const core::TypeInfo& t, int rank, int tag, MPI_Comm comm) {
  core::RequestSlot* s = instance().requests.allocate();
  s->persistent = true;
  s->op = op;
  s->comm = comm;
  hold_type(*s, type, t);
  s->type_size = t.size;
  s->buf = buf;
  s->count = count;
  s->rank = rank;
  s->tag = tag;
  s->p2p.complete = true;
  return s;
}

int persistent_send(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm, p2p::SendMode mode, bool buffered, MPI_Request* request) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send(call, buf, count, type, dest, tag, comm, c, t)) return e;
  if (!request) return raise_error(comm, MPI_ERR_ARG, call, "request is NULL");
  core::RequestSlot* s = inactive_persistent(dest == MPI_PROC_NULL ? core::RequestOp::proc_null : core::RequestOp::send,
                                              buf, count, type, t, dest, tag, comm);
  s->mode = mode;
  s->buffered = buffered;
  *request = s->handle;
  return MPI_SUCCESS;
}

int start(const char* call, MPI_Request handle) {
  Instance& in = instance();
  core::RequestSlot* s = in.requests.find(handle);
  if (!s || !s->persistent)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request=0x%x is not a persistent request",
                       static_cast<unsigned>(handle));
  if (s->active) return raise_error(s->comm, MPI_ERR_REQUEST, call, "request=0x%x is already active", handle);
  core::Communicator* c = find_comm(s->comm);
  if (!c) return raise_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "the request's communicator was freed");
  s->active = true;
  s->error = MPI_SUCCESS;
  core::TypeInfo t = type_info(s->datatype);
  if (!t.valid && s->holds_type) {  // the user freed the type: the request's reference keeps it usable
    core::dtype::Datatype scratch;
    const core::dtype::Datatype* d = core::dtype::lookup(instance().types, s->datatype, scratch, true);
    t.valid = t.derived = true;
    t.size = d->size;
    t.contiguous = d->contiguous;
    t.true_lb = d->true_lb;
  }
  if (s->op == core::RequestOp::proc_null) {
    s->p2p.complete = true;
  } else if (s->op == core::RequestOp::recv) {
    std::size_t capacity;
    void* data = slot_recv_buffer(*s, const_cast<void*>(s->buf), s->count, s->datatype, t, capacity);
    in.p2p->irecv(s->p2p, data, capacity, c->context, s->rank, s->tag, p2p::Marker::nonblocking, slot_layout(*s));
  } else if (s->buffered) {
    const PackedView v = packed_view(s->buf, s->count, s->datatype, t);
    s->error = buffered_send(call, v.ptr, v.bytes, s->rank, s->tag, s->comm, *c);
    s->p2p.complete = true;
  } else {
    std::size_t bytes;
    const void* data = slot_typed_buffer(*s, s->buf, s->count, s->datatype, t, bytes);
    in.p2p->isend(s->p2p, data, bytes, c->job_rank(s->rank), c->context, c->rank, s->tag, s->mode,
                  p2p::Marker::nonblocking, slot_layout(*s));
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) {
  return persistent_send("MPI_Send_init", buf, count, type, dest, tag, comm, p2p::SendMode::standard, false, r);
}
#pragma weak MPI_Send_init = PMPI_Send_init

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) {
  return persistent_send("MPI_Ssend_init", buf, count, type, dest, tag, comm, p2p::SendMode::synchronous, false, r);
}
#pragma weak MPI_Ssend_init = PMPI_Ssend_init

int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) {
  return persistent_send("MPI_Rsend_init", buf, count, type, dest, tag, comm, p2p::SendMode::ready, false, r);
}
#pragma weak MPI_Rsend_init = PMPI_Rsend_init

int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) {
  return persistent_send("MPI_Bsend_init", buf, count, type, dest, tag, comm, p2p::SendMode::standard, true, r);
}
#pragma weak MPI_Bsend_init = PMPI_Bsend_init

int PMPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_recv("MPI_Recv_init", buf, count, type, source, tag, comm, c, t)) return e;
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Recv_init", "request is NULL");
  core::RequestSlot* s = inactive_persistent(
      source == MPI_PROC_NULL ? core::RequestOp::proc_null : core::RequestOp::recv, buf, count, type, t, source, tag, comm);
  *request = s->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Recv_init = PMPI_Recv_init

int PMPI_Start(MPI_Request* request) {
  require_running("MPI_Start");
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Start", "request is NULL");
  return start("MPI_Start", *request);
}
#pragma weak MPI_Start = PMPI_Start

int PMPI_Startall(int count, MPI_Request requests[]) {
  require_running("MPI_Startall");
  if (count < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Startall", "count=%d is negative", count);
  if (count > 0 && !requests)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Startall", "array_of_requests is NULL");
  for (int i = 0; i < count; ++i)
    if (int e = start("MPI_Startall", requests[i])) return e;
  return MPI_SUCCESS;
}
#pragma weak MPI_Startall = PMPI_Startall

int PMPI_Request_free(MPI_Request* request) {
  require_running("MPI_Request_free");
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "request is NULL");
  Instance& in = instance();
  core::RequestSlot* s = in.requests.find(*request);
  if (!s)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "request=0x%x is not a valid request",
                       static_cast<unsigned>(*request));
  *request = MPI_REQUEST_NULL;
  const bool pending = (!s->persistent || s->active) && !s->p2p.complete;
  if (s->op == core::RequestOp::generalized) {
    // Its free function runs now if the program completed it, else at MPI_Grequest_complete.
    if (pending) {
      s->user_freed = true;
      return MPI_SUCCESS;
    }
    const int freed = generalized_free(*s);
    in.requests.release(s);
    return freed;
  }
  if (pending) {
    s->user_freed = true;
    s->p2p.on_complete = &release_when_complete;  // freed by the engine when it finishes
  } else {
    drop_slot_resources(*s);
    in.requests.release(s);
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Request_free = PMPI_Request_free

int PMPI_Cancel(MPI_Request* request) {
  require_running("MPI_Cancel");
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "request is NULL");
  core::RequestSlot* s = instance().requests.find(*request);
  if (!s)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "request=0x%x is not a valid request",
                       static_cast<unsigned>(*request));
  // A generalized request: the program's cancel function, told whether it completed already.
  if (s->op == core::RequestOp::generalized) {
    const GeneralizedRequests::Functions* f = instance().grequests.find(s->handle);
    return f && f->cancel ? f->cancel(f->state, s->p2p.complete ? 1 : 0) : MPI_SUCCESS;
  }
  // Receives that have not matched are cancelled; a send is never cancelled here (MPI allows a
  // cancel to fail: MPI_Test_cancelled then reports false).
  if (s->op == core::RequestOp::recv && (!s->persistent || s->active)) instance().p2p->cancel_recv(s->p2p);
  return MPI_SUCCESS;
}
#pragma weak MPI_Cancel = PMPI_Cancel

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (!status || !flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled", "status or flag is NULL");
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}
#pragma weak MPI_Test_cancelled = PMPI_Test_cancelled

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype type, int* count) {
  require_running("MPI_Get_count");
  if (!status) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "status is NULL");
  if (!count) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "count is NULL");
  std::size_t tsize;
  if (int e = check_type("MPI_Get_count", MPI_COMM_WORLD, type, tsize)) return e;
  const std::uint64_t bytes = status_bytes(status);
  if (tsize == 0) {
    *count = 0;
  } else if (bytes % tsize != 0 || bytes / tsize > 0x7fffffffu) {
    *count = MPI_UNDEFINED;
  } else {
    *count = static_cast<int>(bytes / tsize);
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_count = PMPI_Get_count

namespace {

// Basic elements in the received bytes (MPI_UNDEFINED when they end inside a basic element).
int elements(const char* call, const MPI_Status* status, MPI_Datatype type, MPI_Count& out) {
  require_running(call);
  if (!status) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL");
  std::size_t tsize;
  if (int e = check_type(call, MPI_COMM_WORLD, type, tsize)) return e;
  const std::size_t n = core::count_elements(instance().types, type, status_bytes(status));
  out = n == core::kNotWholeElements ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype type, int* count) {
  if (!count) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_elements", "count is NULL");
  MPI_Count n;
  if (int e = elements("MPI_Get_elements", status, type, n)) return e;
  *count = n > 0x7fffffff ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_elements = PMPI_Get_elements

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype type, MPI_Count* count) {
  if (!count) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_elements_x", "count is NULL");
  return elements("MPI_Get_elements_x", status, type, *count);
}
#pragma weak MPI_Get_elements_x = PMPI_Get_elements_x

namespace {

// The status then holds the bytes of `count` basic elements of the type, so that MPI_Get_elements
// returns count, as the standard says (and Open MPI does; MPICH 4.0.2 stores count copies of the
// type instead, the same for a predefined type).
int set_elements(const char* call, MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  require_running(call);
  if (!status || status == MPI_STATUS_IGNORE) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "status is NULL");
  std::size_t tsize;
  if (int e = check_type(call, MPI_COMM_WORLD, type, tsize)) return e;
  if (count < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "count=%lld is negative", (long long)count);
  const bool cancelled = status->count_hi_and_cancelled & 1;
  const std::size_t bytes = core::bytes_of_elements(instance().types, type, static_cast<std::size_t>(count));
  set_status(status, status->MPI_SOURCE, status->MPI_TAG, bytes, cancelled, MPI_SUCCESS);
  return MPI_SUCCESS;
}

}  // namespace

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype type, int count) {
  return set_elements("MPI_Status_set_elements", status, type, count);
}
#pragma weak MPI_Status_set_elements = PMPI_Status_set_elements

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype type, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, type, count);
}
#pragma weak MPI_Status_set_elements_x = PMPI_Status_set_elements_x

// A status in Fortran's INTEGER array form: the same five ints (MPI_F_STATUS_SIZE) in the same
// order (the MPICH ABI).
static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));

int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  const char* call = "MPI_Status_c2f";
  if (!c_status || c_status == MPI_STATUS_IGNORE || c_status == MPI_STATUSES_IGNORE)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "c_status is NULL or MPI_STATUS_IGNORE");
  if (!f_status || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "f_status is NULL or MPI_F_STATUS_IGNORE");
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
#pragma weak MPI_Status_c2f = PMPI_Status_c2f

int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  const char* call = "MPI_Status_f2c";
  if (!f_status || f_status == MPI_F_STATUS_IGNORE || f_status == MPI_F_STATUSES_IGNORE)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "f_status is NULL or MPI_F_STATUS_IGNORE");
  if (!c_status || c_status == MPI_STATUS_IGNORE || c_status == MPI_STATUSES_IGNORE)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "c_status is NULL or MPI_STATUS_IGNORE");
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
#pragma weak MPI_Status_f2c = PMPI_Status_f2c

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (!status) return MPI_ERR_ARG;
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
  return MPI_SUCCESS;
}
#pragma weak MPI_Status_set_cancelled = PMPI_Status_set_cancelled

}  // extern "C"
