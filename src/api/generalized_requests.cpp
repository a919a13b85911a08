// Generalized requests: MPI_Grequest_start and MPI_Grequest_complete, and the calls of the
// program's query and free functions when such a request completes (api/completion.hpp).
// MPI_Cancel and MPI_Request_free call its cancel and free functions (requests.cpp).
#include "api/completion.hpp"

namespace railmpi::api {

int generalized_status(const core::RequestSlot& s, MPI_Status* status) {
  const GeneralizedRequests::Functions* f = instance().grequests.find(s.handle);
  MPI_Status ignored;
  MPI_Status* out = status == MPI_STATUS_IGNORE ? &ignored : status;
  set_empty_status(out);  // what the query function does not set
  return f && f->query ? f->query(f->state, out) : MPI_SUCCESS;
}

int generalized_free(const core::RequestSlot& s) {
  GeneralizedRequests& table = instance().grequests;
  const GeneralizedRequests::Functions* f = table.find(s.handle);
  if (!f) return MPI_SUCCESS;
  const GeneralizedRequests::Functions copy = *f;
  table.erase(s.handle);  // before the call: the free function may start other requests
  return copy.free ? copy.free(copy.state) : MPI_SUCCESS;
}

}  // namespace railmpi::api

using namespace railmpi;
using namespace railmpi::api;

extern "C" {

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  require_running("MPI_Grequest_start");
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Grequest_start", "request is NULL");
  Instance& in = instance();
  core::RequestSlot* s = in.requests.allocate();
  s->op = core::RequestOp::generalized;
  s->comm = MPI_COMM_WORLD;  // errors of its completion go to MPI_COMM_WORLD's handler (as MPICH)
  s->p2p.complete = false;
  in.grequests.add(s->handle, {query_fn, free_fn, cancel_fn, extra_state});
  *request = s->handle;
  return MPI_SUCCESS;
}
#pragma weak MPI_Grequest_start = PMPI_Grequest_start

int PMPI_Grequest_complete(MPI_Request request) {
  require_running("MPI_Grequest_complete");
  Instance& in = instance();
  core::RequestSlot* s = in.requests.find(request);
  if (!s || s->op != core::RequestOp::generalized)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                       "request=0x%x is not a generalized request (MPI_Grequest_start)",
                       static_cast<unsigned>(request));
  if (s->p2p.complete)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                       "request=0x%x was completed already", static_cast<unsigned>(request));
  s->p2p.complete = true;
  if (!s->user_freed) return MPI_SUCCESS;  // a wait or test consumes it
  // Freed by MPI_Request_free before it completed: its free function runs now (no query).
  const int freed = generalized_free(*s);
  in.requests.release(s);
  return freed;
}
#pragma weak MPI_Grequest_complete = PMPI_Grequest_complete

}  // extern "C"
