// MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach and MPI_Buffer_detach.
#include <cstring>

#include "api/bsend.hpp"
#include "api/completion.hpp"
#include "api/typed_buffer.hpp"

namespace railmpi::api {
namespace {

// The internal send of a buffered message finished: give its region back.
void release_region(p2p::Request& r) {
  auto* s = static_cast<core::RequestSlot*>(r.owner);
  Instance& in = instance();
  in.bsend.release(s->bsend_offset);
  in.requests.release(s);
}

}  // namespace

int buffered_send(const char* call, const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                  const core::Communicator& c) {
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  Instance& in = instance();
  if (!in.bsend.attached())
    return raise_error(comm, MPI_ERR_BUFFER, call, "no buffer is attached (MPI_Buffer_attach) for a %zu-byte message",
                       bytes);
  std::size_t offset = 0;
  bool ok = in.bsend.allocate(bytes + MPI_BSEND_OVERHEAD, offset);
  if (!ok) {  // earlier buffered messages may be finished by now
    in.progress->poll();
    ok = in.bsend.allocate(bytes + MPI_BSEND_OVERHEAD, offset);
  }
  if (!ok)
    return raise_error(comm, MPI_ERR_BUFFER, call,
                       "the attached buffer (%zu bytes) has no room for a %zu-byte message (+%d overhead)",
                       in.bsend.size(), bytes, MPI_BSEND_OVERHEAD);
  std::byte* copy = in.bsend.at(offset);
  if (bytes) std::memcpy(copy, buf, bytes);
  core::RequestSlot* s = in.requests.allocate();
  s->op = core::RequestOp::bsend;
  s->bsend_offset = offset;
  s->p2p.on_complete = &release_region;
  in.p2p->isend(s->p2p, copy, bytes, c.job_rank(dest), c.context, c.rank, tag, p2p::SendMode::standard,
                p2p::Marker::nonblocking);
  return MPI_SUCCESS;
}

}  // namespace railmpi::api

using namespace railmpi;
using namespace railmpi::api;

extern "C" {

int PMPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send("MPI_Bsend", buf, count, type, dest, tag, comm, c, t)) return e;
  const PackedView v = packed_view(buf, count, type, t);
  return buffered_send("MPI_Bsend", v.ptr, v.bytes, dest, tag, comm, *c);
}
#pragma weak MPI_Bsend = PMPI_Bsend

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
  core::Communicator* c;
  core::TypeInfo t;
  if (int e = check_send("MPI_Ibsend", buf, count, type, dest, tag, comm, c, t)) return e;
  const PackedView v = packed_view(buf, count, type, t);
  if (!request) return raise_error(comm, MPI_ERR_ARG, "MPI_Ibsend", "request is NULL");
  if (int e = buffered_send("MPI_Ibsend", v.ptr, v.bytes, dest, tag, comm, *c)) return e;
  // The user's buffer is free as soon as the copy is made: the request is complete at once.
  core::RequestSlot* s = instance().requests.allocate();
  s->op = core::RequestOp::bsend;
  s->comm = comm;
  s->p2p.complete = true;
  *request = s->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Ibsend = PMPI_Ibsend

int PMPI_Buffer_attach(void* buffer, int size) {
  require_running("MPI_Buffer_attach");
  Instance& in = instance();
  if (size < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_attach", "size=%d is negative", size);
  if (!buffer && size > 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "buffer is NULL");
  if (in.bsend.attached())
    return raise_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach", "a buffer is already attached");
  in.bsend.attach(buffer, static_cast<std::size_t>(size));
  return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  require_running("MPI_Buffer_detach");
  Instance& in = instance();
  if (!buffer_addr || !size)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_detach", "buffer_addr or size is NULL");
  // Blocks until every buffered message has left.
  in.progress->wait_until([&] { return in.bsend.empty(); });
  *static_cast<void**>(buffer_addr) = in.bsend.base();
  *size = static_cast<int>(in.bsend.size());
  in.bsend.detach();
  return MPI_SUCCESS;
}
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach

}  // extern "C"
