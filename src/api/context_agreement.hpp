// Context id agreement (scheme: core/context_ids.hpp). Blocking: over any exchange that ANDs words
// across all members (an intracommunicator's members, both groups of an intercommunicator, the two
// groups of MPI_Intercomm_create). Non-blocking: MPI_Comm_idup, as a collective schedule on the
// parent (src/coll) that completes a request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "api/comm_ops.hpp"

namespace railmpi::api {

// An agreement exchanges the free mask plus one "quiet" word (all ones: this process has no
// non-blocking agreement in flight).
inline constexpr int kAgreeWords = core::ContextIds::kWords + 1;

// Bitwise AND of `n` words across every member, the result in place at every member.
using AndAll = std::function<void(std::uint64_t* words, std::size_t n)>;

// Agrees on `want` (1 or 2) slots, written to `slots`; `take`: this process joins the new
// communicator and holds them from now on. `key` tells concurrent agreements apart (their retries
// pick different candidates). False when fewer than `want` slots are free on every member.
bool agree_slots(const AndAll& and_all, int want, bool take, unsigned key, int* slots);

// AND across both groups of intercommunicator `c` (local reduction, leaders' exchange, local
// broadcast).
void and_over_inter(const core::Communicator& c, std::uint64_t* words, std::size_t n);

// MPI_Comm_idup: `n` is the new communicator, registered with its groups, error handler and
// attributes but no context yet. The agreement runs as schedules on the collective context of
// `parent` (retries keep the call's tag); when it ends, n gets its context(s) and `request`
// completes (with MPI_ERR_OTHER when no id is free on every member).
void start_idup(const core::Communicator& parent, core::Communicator& n, core::RequestSlot* request);

}  // namespace railmpi::api
