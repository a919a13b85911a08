// Probing: MPI_Probe, MPI_Iprobe, and matched probes MPI_Mprobe/Improbe with MPI_Mrecv/Imrecv.
#include "api/completion.hpp"
#include "api/typed_buffer.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_probe(const char* call, int source, int tag, MPI_Comm comm, core::Communicator*& c) {
  require_running(call);
  if (int e = check_comm(call, comm, c)) return e;
  if (int e = check_source(call, *c, source)) return e;
  return check_recv_tag(call, comm, tag);
}

void probe_status(MPI_Status* status, const p2p::ProbeResult& found) {
  set_status(status, found.source, found.tag, found.bytes, false, MPI_SUCCESS);
}

// Turns a message taken by mprobe into an MPI_Message handle.
MPI_Message message_handle(p2p::Unexpected* u, MPI_Comm comm) {
  core::RequestSlot* s = instance().requests.allocate();
  s->op = core::RequestOp::message;
  s->comm = comm;
  s->p2p.message = u;
  return s->handle;
}

int take_message(const char* call, MPI_Message* message, core::RequestSlot*& slot) {
  if (!message) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "message is NULL");
  slot = instance().requests.find(*message);
  if (*message != MPI_MESSAGE_NO_PROC && (!slot || slot->op != core::RequestOp::message))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "message=0x%x is not a valid message",
                       static_cast<unsigned>(*message));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  core::Communicator* c;
  if (int e = check_probe("MPI_Iprobe", source, tag, comm, c)) return e;
  if (!flag) return raise_error(comm, MPI_ERR_ARG, "MPI_Iprobe", "flag is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Instance& in = instance();
  p2p::ProbeResult found;
  *flag = in.p2p->probe(c->context, source, tag, found);
  if (!*flag) {
    in.progress->test_poll();
    *flag = in.p2p->probe(c->context, source, tag, found);
  }
  if (*flag) probe_status(status, found);
  return MPI_SUCCESS;
}
#pragma weak MPI_Iprobe = PMPI_Iprobe

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  core::Communicator* c;
  if (int e = check_probe("MPI_Probe", source, tag, comm, c)) return e;
  if (source == MPI_PROC_NULL) {
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Instance& in = instance();
  p2p::ProbeResult found;
  in.progress->wait_until([&] { return in.p2p->probe(c->context, source, tag, found); });
  probe_status(status, found);
  return MPI_SUCCESS;
}
#pragma weak MPI_Probe = PMPI_Probe

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  core::Communicator* c;
  if (int e = check_probe("MPI_Improbe", source, tag, comm, c)) return e;
  if (!flag || !message) return raise_error(comm, MPI_ERR_ARG, "MPI_Improbe", "flag or message is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Instance& in = instance();
  p2p::ProbeResult found;
  p2p::Unexpected* u = in.p2p->mprobe(c->context, source, tag, found);
  if (!u) {
    in.progress->test_poll();
    u = in.p2p->mprobe(c->context, source, tag, found);
  }
  *flag = u != nullptr;
  if (u) {
    *message = message_handle(u, comm);
    probe_status(status, found);
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Improbe = PMPI_Improbe

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  core::Communicator* c;
  if (int e = check_probe("MPI_Mprobe", source, tag, comm, c)) return e;
  if (!message) return raise_error(comm, MPI_ERR_ARG, "MPI_Mprobe", "message is NULL");
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  Instance& in = instance();
  p2p::ProbeResult found;
  p2p::Unexpected* u = nullptr;
  in.progress->wait_until([&] { return (u = in.p2p->mprobe(c->context, source, tag, found)) != nullptr; });
  *message = message_handle(u, comm);
  probe_status(status, found);
  return MPI_SUCCESS;
}
#pragma weak MPI_Mprobe = PMPI_Mprobe

int PMPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  require_running("MPI_Mrecv");
  core::RequestSlot* slot;
  if (int e = take_message("MPI_Mrecv", message, slot)) return e;
  if (*message == MPI_MESSAGE_NO_PROC) {
    *message = MPI_MESSAGE_NULL;
    set_proc_null_status(status);
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = slot->comm;
  core::TypeInfo t;
  if (int e = check_count("MPI_Mrecv", comm, count)) return e;
  if (int e = check_type("MPI_Mrecv", comm, type, t)) return e;
  if (int e = check_buffer("MPI_Mrecv", comm, buf, count, t)) return e;
  Instance& in = instance();
  p2p::Unexpected* u = slot->p2p.message;
  in.requests.release(slot);
  *message = MPI_MESSAGE_NULL;
  const RecvView v = recv_view(buf, count, type, t);
  p2p::Request r;
  in.p2p->mrecv(r, u, v.ptr, v.capacity, v.target());
  in.progress->wait_until([&] { return r.complete; });
  return finish_receive("MPI_Mrecv", comm, r, status);
}
#pragma weak MPI_Mrecv = PMPI_Mrecv

int PMPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  require_running("MPI_Imrecv");
  core::RequestSlot* slot;
  if (int e = take_message("MPI_Imrecv", message, slot)) return e;
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Imrecv", "request is NULL");
  Instance& in = instance();
  if (*message == MPI_MESSAGE_NO_PROC) {
    core::RequestSlot* s = in.requests.allocate();
    s->op = core::RequestOp::proc_null;
    s->p2p.complete = true;
    *request = s->handle;
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
  }
  const MPI_Comm comm = slot->comm;
  core::TypeInfo t;
  if (int e = check_count("MPI_Imrecv", comm, count)) return e;
  if (int e = check_type("MPI_Imrecv", comm, type, t)) return e;
  if (int e = check_buffer("MPI_Imrecv", comm, buf, count, t)) return e;
  // The message slot becomes the receive request.
  p2p::Unexpected* u = slot->p2p.message;
  slot->op = core::RequestOp::recv;
  slot->datatype = type;
  slot->type_size = t.size;
  *request = slot->handle;
  *message = MPI_MESSAGE_NULL;
  std::size_t capacity;
  void* data = slot_recv_buffer(*slot, buf, count, type, t, capacity);
  in.p2p->mrecv(slot->p2p, u, data, capacity, slot_layout(*slot));
  return MPI_SUCCESS;
}
#pragma weak MPI_Imrecv = PMPI_Imrecv

}  // extern "C"
