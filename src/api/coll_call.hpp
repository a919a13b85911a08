// What every collective entry point shares: the call record, argument checks for collectives,
// staging of non-contiguous datatypes through scratch memory, and running a schedule blocking or
// attached to a request. Used by collectives.cpp and neighbor.cpp.
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "api/checks.hpp"
#include "coll/collectives.hpp"

namespace railmpi::api::collective {


using Bytes = std::vector<std::size_t>;

// Vector `i` (0-3) for block sizes or offsets of the call being set up, empty: its memory kept
// for the next call (CollCallRoom::layouts). Two of one call must differ.
inline Bytes& layout(std::size_t i) {
  Bytes& v = instance().coll_room.layouts[i];
  v.clear();
  return v;
}

struct Call {
  const char* name;
  MPI_Comm comm;
  core::Communicator* c = nullptr;
};

inline int begin(Call& k) {
  require_running(k.name);
  return check_comm(k.name, k.comm, k.c);
}

inline int check_root(const Call& k, int root) {
  const core::Communicator& c = *k.c;
  if (c.is_inter()) {
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c.remote_size())) return MPI_SUCCESS;
    return raise_error(c.handle, MPI_ERR_ROOT, k.name,
                       "root=%d is neither MPI_ROOT, MPI_PROC_NULL nor a rank of the remote group of size %d", root,
                       c.remote_size());
  }
  if (root < 0 || root >= c.size())
    return raise_error(c.handle, MPI_ERR_ROOT, k.name, "root=%d is not a rank of a communicator of size %d", root,
                       c.size());
  return MPI_SUCCESS;
}

// A datatype usable by the collectives: valid and committed. Sets `ti`.
// As check_type(): the info is written in place (see core::fill_predefined_type_info).
[[gnu::always_inline]] inline int check_dtype(const Call& k, MPI_Datatype type, core::TypeInfo& ti,
                                              const char* what = "datatype") {
  if (core::fill_predefined_type_info(type, ti)) [[likely]] return MPI_SUCCESS;  // decoded from the handle
  ti = core::derived_type_info(instance().types, type);
  if (!ti.valid || type == MPI_DATATYPE_NULL)
    return raise_error(k.comm, MPI_ERR_TYPE, k.name, "%s=0x%x is not a valid datatype", what,
                       static_cast<unsigned>(type));
  return MPI_SUCCESS;
}

inline int check_cnt(const Call& k, int count, const char* what) { return check_count(k.name, k.comm, count, what); }

inline int check_buf(const Call& k, const void* buf, std::size_t bytes, const char* what) {
  if (!buf && bytes > 0) return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "%s is NULL with data to transfer", what);
  return MPI_SUCCESS;
}

// Per-rank blocks of a collective buffer: the v-forms' counts[i] elements at displs[i] extents, or
// (counts == nullptr) `count` elements at i*count extents. Fills byte sizes and typed byte offsets
// of n blocks; checks the arrays, every count and the buffer.
inline int block_layout(const Call& k, const void* buf, const int* counts, const int* displs, int count, int n,
                        const core::TypeInfo& ti, const char* what, Bytes& bytes, Bytes& offs) {
  const bool v = counts != nullptr || displs != nullptr;
  if (v && (!counts || !displs)) return raise_error(k.comm, MPI_ERR_ARG, k.name, "%s counts or displs is NULL", what);
  if (!v)
    if (int e = check_count(k.name, k.comm, count, what)) return e;
  bytes.resize(static_cast<std::size_t>(n));
  offs.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int cnt = v ? counts[i] : count;
    if (int e = check_count(k.name, k.comm, cnt, what)) return e;
    bytes[std::size_t(i)] = ti.size * std::size_t(cnt);
    offs[std::size_t(i)] = std::size_t((v ? std::ptrdiff_t(displs[i]) : std::ptrdiff_t(i) * count) * ti.extent);
    if (!buf && bytes[std::size_t(i)] > 0)
      return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "%s buffer is NULL with data to transfer", what);
  }
  return MPI_SUCCESS;
}

inline int no_in_place(const Call& k, const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE)
    return raise_error(k.comm, MPI_ERR_BUFFER, k.name, "MPI_IN_PLACE is not allowed as %s here", what);
  return MPI_SUCCESS;
}

inline std::byte* at(const void* buf, const core::TypeInfo& ti) {
  return static_cast<std::byte*>(const_cast<void*>(buf)) + ti.true_lb;
}

enum class Dir { in, out, inout };

// Contiguous views of the user buffers of one schedule: the buffer itself for contiguous
// datatypes, else scratch memory packed now (in) and/or unpacked by the schedule's last steps
// (out). Allocates nothing beyond the schedule's scratch and steps (kept by its pool).
class Staging {
 public:
  explicit Staging(coll::Schedule& s) : s_(s) { outs_.clear(); }

  // `count` elements of `type` at buf.
  std::byte* region(const void* buf, std::size_t count, MPI_Datatype type, const core::TypeInfo& ti, Dir dir) {
    if (ti.contiguous || !buf) return buf ? at(buf, ti) : nullptr;
    const std::size_t bytes = count * ti.size;
    std::byte* flat = s_.scratch(bytes);
    stage(static_cast<std::byte*>(const_cast<void*>(buf)), flat, bytes, type, ti, dir);
    return flat;
  }

  // Blocks of bytes[i] bytes at byte offsets offs[i] (typed layout, without true_lb) from buf,
  // of types[i] (or types[0] for all when !per_block). Returns the base pointer and rewrites offs
  // so that block i is at base + offs[i].
  std::byte* blocks(const void* buf, const Bytes& bytes, Bytes& offs, const MPI_Datatype* types,
                    const core::TypeInfo* infos, bool per_block, Dir dir) {
    auto* b = static_cast<std::byte*>(const_cast<void*>(buf));
    const std::size_t n = bytes.size();
    bool contiguous = true;
    for (std::size_t i = 0; i < (per_block ? n : std::min<std::size_t>(n, 1)); ++i)
      contiguous = contiguous && infos[i].contiguous;
    if (contiguous || !buf) {
      for (std::size_t i = 0; i < n; ++i) offs[i] += std::size_t(infos[per_block ? i : 0].true_lb);
      return b;
    }
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) total += bytes[i];
    std::byte* t = s_.scratch(total);
    std::size_t packed = 0;  // block i's offset in the scratch
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = per_block ? i : 0;
      stage(b + offs[i], t + packed, bytes[i], types[j], infos[j], dir);
      offs[i] = packed;
      packed += bytes[i];
    }
    return t;
  }

  // Puts the unpacks of the outputs after the collective's last round (their datatypes kept
  // alive until then).
  void finish() {
    for (const CollCallRoom::StagedOutput& o : outs_) {
      s_.hold_type(instance().types, o.type);
      s_.unpack(instance().types, o.type, o.flat, o.bytes, o.count, o.typed);
    }
    outs_.clear();
  }
  // Keeps `type` alive while the schedule runs (a reduction's datatype, which its steps use).
  void keep(MPI_Datatype type) { s_.hold_type(instance().types, type); }

 private:
  // `bytes` of `type` at typed, staged at flat: packed now (in), unpacked at finish() (out).
  void stage(std::byte* typed, std::byte* flat, std::size_t bytes, MPI_Datatype type, const core::TypeInfo& ti,
             Dir dir) {
    const std::size_t count = ti.size ? bytes / ti.size : 0;
    if (count == 0) return;
    if (dir != Dir::out) core::pack(instance().types, typed, count, type, flat);
    if (dir != Dir::in) outs_.push_back(CollCallRoom::StagedOutput{typed, flat, bytes, count, type});
  }
  coll::Schedule& s_;
  // The outputs staged so far (kept between calls in CollCallRoom; one Staging at a time).
  std::vector<CollCallRoom::StagedOutput>& outs_ = instance().coll_room.staged_outputs;
};

// Reducer for (op, type); MPI_ERR_OP when the op is invalid or not defined on the type (the
// predefined operations are defined on predefined types only, as in MPICH and Open MPI).
inline int get_reducer(const char* name, MPI_Comm comm, MPI_Op op, MPI_Datatype type, const core::TypeInfo& ti,
                coll::Reducer& r) {
  r = coll::Reducer{};
  r.datatype = type;
  r.elem = ti.size;
  if (const core::OpTable::Entry* u = instance().ops.find(op)) {
    r.user = u->fn;
    r.commutative = u->commutative;
    if (!ti.contiguous) {  // the user function sees the operands laid out with the datatype
      r.types = &instance().types;
      r.extent = ti.extent;
      r.true_lb = ti.true_lb;
      r.true_extent = ti.true_extent;
    }
    return MPI_SUCCESS;
  }
  if (!core::is_predefined_op(op) || core::is_accumulate_only_op(op))
    return raise_error(comm, MPI_ERR_OP, name, "op=0x%x is not a valid reduction operation",
                       static_cast<unsigned>(op));
  r.fn = core::find_reduce(op, type);
  if (!r.fn)
    return raise_error(comm, MPI_ERR_OP, name, "op=0x%x is not defined for datatype=0x%x", static_cast<unsigned>(op),
                       static_cast<unsigned>(type));
  return MPI_SUCCESS;
}

inline int check_request(const Call& k, MPI_Request* req, bool nonblocking) {
  if (nonblocking && !req) return raise_error(k.comm, MPI_ERR_ARG, k.name, "request is NULL");
  return MPI_SUCCESS;
}

// Runs the schedule (blocking: req == nullptr) or attaches it to a new request.
inline int launch(const Call& k, coll::SchedulePtr s, MPI_Request* req) {
  Instance& in = instance();
  if (!req) {
    if (in.coll->run(std::move(s)))
      return raise_error(k.comm, MPI_ERR_TRUNCATE, k.name,
                         "a message of this collective was longer than the receiving rank expected "
                         "(counts or datatypes differ across ranks)");
    return MPI_SUCCESS;
  }
  core::RequestSlot* slot = in.requests.allocate();
  slot->op = core::RequestOp::coll;
  slot->comm = k.c->handle;
  slot->p2p.kind = p2p::RequestKind::other;
  *req = slot->handle;
  coll::Schedule* raw = s.get();
  s->on_done = [slot, raw] {
    if (raw->truncated()) slot->error = MPI_ERR_TRUNCATE;
    slot->p2p.complete = true;
    if (slot->p2p.on_complete) slot->p2p.on_complete(slot->p2p);
  };
  in.coll->start(std::move(s));
  return MPI_SUCCESS;
}

inline coll::SchedulePtr schedule(const Call& k) { return instance().coll->create(*k.c); }

}  // namespace railmpi::api::collective
