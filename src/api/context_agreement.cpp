#include "api/context_agreement.hpp"

#include <memory>
#include <vector>

#include "coll/collectives.hpp"

namespace railmpi::api {
namespace {

using core::ContextIds;

void contribute(std::uint64_t* words) {
  const ContextIds& ids = instance().context_ids;
  ids.contribution(words);
  words[ContextIds::kWords] = ids.in_flight ? 0 : ~std::uint64_t{0};
}

// Candidates of attempt `attempt`: the lowest `want` common slots; retries first skip a number of
// them that depends on the agreement (`key`), so that two agreements that keep reserving the same
// slots at different members move apart.
bool pick(const std::uint64_t* mask, int want, int attempt, unsigned key, int* slots) {
  const int skip = attempt == 0 ? 0 : static_cast<int>(((key + 1) * 2654435761u + unsigned(attempt) * 40503u) >> 16) % 8;
  for (int i = 0; i < want; ++i) {
    slots[i] = ContextIds::lowest(mask, skip + i);
    if (slots[i] < 0) return skip != 0 && pick(mask, want, 0, key, slots);
  }
  return true;
}

void take_reserved(ContextIds& ids, const int* slots, int want) {
  ids.unreserve(slots, want);
  for (int i = 0; i < want; ++i) ids.take(slots[i]);
}

}  // namespace

bool agree_slots(const AndAll& and_all, int want, bool take, unsigned key, int* slots) {
  ContextIds& ids = instance().context_ids;
  for (int attempt = 0;; ++attempt) {
    std::uint64_t words[kAgreeWords];
    contribute(words);
    and_all(words, kAgreeWords);
    if (!pick(words, want, attempt, key, slots)) return false;
    if (words[ContextIds::kWords] != 0) {
      // No member has a non-blocking agreement in flight: nothing can reserve or take a slot at a
      // member until this call returns there, so the outcome holds as it is.
      if (take)
        for (int i = 0; i < want; ++i) ids.take(slots[i]);
      return true;
    }
    const bool reserved = take && ids.reserve(slots, want);
    std::uint64_t ok = !take || reserved ? ~std::uint64_t{0} : 0;
    and_all(&ok, 1);
    if (ok) {
      if (take) take_reserved(ids, slots, want);
      return true;
    }
    if (reserved) ids.unreserve(slots, want);
  }
}

void and_over_inter(const core::Communicator& c, std::uint64_t* words, std::size_t n) {
  const Wire lw = local_wire(c, kTagInterLocal);
  wire_allreduce_and(lw, words, n);
  if (c.rank == 0) {
    std::vector<std::uint64_t> theirs(n);
    exchange_with(c, c.coll_context(), kTagInterLeaders, 0, words, n * sizeof(std::uint64_t), theirs.data(),
                  n * sizeof(std::uint64_t));
    for (std::size_t i = 0; i < n; ++i) words[i] &= theirs[i];
  }
  wire_bcast(lw, words, n * sizeof(std::uint64_t), 0);
}

// ---- MPI_Comm_idup ------------------------------------------------------------------------------

namespace {

struct Idup {
  core::Communicator routing;  // the parent's groups and contexts (the parent may be freed meanwhile)
  int tag = 0;                 // the call's tag on the parent's collective context
  int comm = 0;                // the new communicator's handle
  core::RequestSlot* request = nullptr;
  int want = 1;                // slots: 2 for an intercommunicator
  unsigned key = 0;
  int attempt = 0;
  bool picked = false, reserved = false;
  int slots[2] = {-1, -1};
  std::uint64_t words[kAgreeWords] = {}, result[kAgreeWords] = {};
  std::uint64_t ok = 0, all_ok = 0;
};

coll::Reducer band() {
  coll::Reducer r;
  r.fn = core::find_reduce(MPI_BAND, MPI_UINT64_T);
  r.datatype = MPI_UINT64_T;
  r.elem = sizeof(std::uint64_t);
  return r;
}

// AND of `n` words across all members on schedule `s`. An intercommunicator allreduce gives each
// group the remote group's AND; a second one, fed with that, gives the local group's.
void and_all(coll::Schedule& s, const std::uint64_t* in, std::uint64_t* out, std::size_t n) {
  if (!s.comm().is_inter()) {
    coll::allreduce(s, in, out, n, band());
    return;
  }
  auto* remote = reinterpret_cast<std::uint64_t*>(s.scratch(n * sizeof(std::uint64_t)));
  auto* local = reinterpret_cast<std::uint64_t*>(s.scratch(n * sizeof(std::uint64_t)));
  coll::allreduce(s, in, remote, n, band());
  s.round();
  coll::allreduce(s, remote, local, n, band());
  s.local([=] {
    for (std::size_t i = 0; i < n; ++i) out[i] = remote[i] & local[i];
  });
  s.round();
}

void finish(const std::shared_ptr<Idup>& st, int error) {
  Instance& in = instance();
  --in.context_ids.in_flight;
  core::RequestSlot* slot = st->request;
  slot->error = error;
  slot->p2p.complete = true;
  if (slot->p2p.on_complete) slot->p2p.on_complete(slot->p2p);
}

void run_attempt(const std::shared_ptr<Idup>& st);

void attempt_done(const std::shared_ptr<Idup>& st) {
  Instance& in = instance();
  ContextIds& ids = in.context_ids;
  if (st->all_ok) {
    core::Communicator* n = in.comms.find(st->comm);
    if (!n) {  // freed before the request completed (erroneous): hold nothing
      ids.unreserve(st->slots, st->want);
      finish(st, MPI_ERR_COMM);
      return;
    }
    take_reserved(ids, st->slots, st->want);
    n->context = ContextIds::context_of(st->slots[0]);
    if (st->want == 2) n->local_context = ContextIds::context_of(st->slots[1]);
    finish(st, MPI_SUCCESS);
    return;
  }
  if (st->reserved) ids.unreserve(st->slots, st->want);
  if (!st->picked) {  // every member saw the same mask: all fail alike
    finish(st, MPI_ERR_OTHER);
    return;
  }
  ++st->attempt;
  run_attempt(st);
}

void run_attempt(const std::shared_ptr<Idup>& st) {
  Instance& in = instance();
  contribute(st->words);
  auto s = in.coll->create(st->routing, st->tag);
  and_all(*s, st->words, st->result, kAgreeWords);
  s->local([st] {
    st->picked = pick(st->result, st->want, st->attempt, st->key, st->slots);
    st->reserved = st->picked && instance().context_ids.reserve(st->slots, st->want);
    st->ok = st->reserved ? ~std::uint64_t{0} : 0;
  });
  s->round();
  and_all(*s, &st->ok, &st->all_ok, 1);
  s->on_done = [st] { attempt_done(st); };
  in.coll->start(std::move(s));
}

}  // namespace

void start_idup(const core::Communicator& parent, core::Communicator& n, core::RequestSlot* request) {
  auto st = std::make_shared<Idup>();
  st->routing = parent;
  st->tag = coll::Schedule::next_tag(parent);
  st->comm = n.handle;
  st->request = request;
  st->want = parent.is_inter() ? 2 : 1;
  st->key = static_cast<unsigned>(parent.coll_context()) * 31u + static_cast<unsigned>(st->tag);
  ++instance().context_ids.in_flight;
  run_attempt(st);
}

}  // namespace railmpi::api
