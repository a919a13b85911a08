// Completing requests: statuses, errors carried by a completed request, retiring slots.
#pragma once

#include "api/checks.hpp"

namespace railmpi::api {

// Error class a completed engine request carries (MPI_SUCCESS or MPI_ERR_TRUNCATE).
inline int request_error(const p2p::Request& r) { return r.truncated ? MPI_ERR_TRUNCATE : MPI_SUCCESS; }

// Status of a completed engine request.
inline void fill_status(const p2p::Request& r, MPI_Status* status, int error) {
  if (r.kind == p2p::RequestKind::recv)
    set_status(status, r.status_source, r.status_tag, r.status_bytes, r.cancelled, error);
  else
    set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r.cancelled, error);
}

// A blocking receive finished: status, and the truncation error through the handler.
inline int finish_receive(const char* call, MPI_Comm comm, const p2p::Request& r, MPI_Status* status) {
  const int error = request_error(r);
  fill_status(r, status, error);
  if (error != MPI_SUCCESS) [[unlikely]]
    return raise_error(comm, error, call,
                       "message of %zu bytes from rank %d tag %d does not fit the receive buffer of %zu bytes",
                       r.total, r.status_source, r.status_tag, r.bytes);
  return MPI_SUCCESS;
}

// A completed generalized request's status, from the program's query function; returns the
// error code it returned (generalized_requests.cpp).
int generalized_status(const core::RequestSlot& s, MPI_Status* status);
// Calls a generalized request's free function and forgets its functions; returns its error code.
int generalized_free(const core::RequestSlot& s);

// Status of a completed slot; returns its error class (not raised).
inline int slot_status(const core::RequestSlot& s, MPI_Status* status) {
  switch (s.op) {
    case core::RequestOp::generalized:
      return generalized_status(s, status);
    case core::RequestOp::proc_null:
      set_proc_null_status(status);
      return MPI_SUCCESS;
    case core::RequestOp::file:  // done when started: the bytes moved and the error class
      set_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, s.p2p.status_bytes, false, s.error);
      return s.error;
    case core::RequestOp::bsend:
    case core::RequestOp::rma:
    case core::RequestOp::none:
      set_empty_status(status);
      return MPI_SUCCESS;
    default: {
      const int error = s.error != MPI_SUCCESS ? s.error : request_error(s.p2p);
      fill_status(s.p2p, status, error);
      return error;
    }
  }
}

// A wait/test has consumed the completion: free the slot, or make a persistent one inactive.
inline void retire(core::RequestSlot* s, MPI_Request* handle) {
  if (s->persistent) {
    s->active = false;
    return;
  }
  instance().requests.release(s);
  *handle = MPI_REQUEST_NULL;
}

}  // namespace railmpi::api
