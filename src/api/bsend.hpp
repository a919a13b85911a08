// Buffered sends: the message is copied into the attached buffer and sent from there.
#pragma once

#include "api/checks.hpp"

namespace railmpi::api {

// Copies and starts the send. MPI_ERR_BUFFER (raised) when the attached buffer cannot hold it.
int buffered_send(const char* call, const void* buf, std::size_t bytes, int dest, int tag, MPI_Comm comm,
                  const core::Communicator& c);

}  // namespace railmpi::api
