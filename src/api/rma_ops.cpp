// One-sided operations: MPI_Put, MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op,
// MPI_Compare_and_swap and the request-based MPI_Rput, MPI_Rget, MPI_Raccumulate,
// MPI_Rget_accumulate. The checks here, the transfers in rma::Window.
#include "api/rma_checks.hpp"
#include "api/typed_buffer.hpp"
#include "core/datatype/datatype.hpp"
#include "core/datatype/type_table.hpp"
#include "core/reduce_op.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// The call being checked.
struct Call {
  const char* name;
  MPI_Win win;
  WinObject* w = nullptr;
};

int check_dtype(const Call& k, MPI_Datatype type, core::TypeInfo& t, const char* what) {
  if (core::fill_predefined_type_info(type, t)) return MPI_SUCCESS;
  t = core::derived_type_info(instance().types, type);
  if (!t.valid || type == MPI_DATATYPE_NULL)
    return win_error(k.win, *k.w, MPI_ERR_TYPE, k.name, "%s=0x%x is not a valid committed datatype", what,
                     static_cast<unsigned>(type));
  return MPI_SUCCESS;
}

// An origin (or result) buffer of `count` elements of `type`; `room` holds its layout.
int origin_buffer(const Call& k, const void* buf, int count, MPI_Datatype type, const char* what, rma::Buffer& out,
                  base::Layout& room) {
  if (count < 0) return win_error(k.win, *k.w, MPI_ERR_COUNT, k.name, "%s count=%d is negative", what, count);
  core::TypeInfo t;
  if (int e = check_dtype(k, type, t, what)) return e;
  out = rma::Buffer{};
  out.bytes = t.size * std::size_t(count);
  if (!buf && out.bytes > 0 && !t.derived)
    return win_error(k.win, *k.w, MPI_ERR_BUFFER, k.name, "%s buffer is NULL with count=%d", what, count);
  if (t.contiguous || out.bytes == 0) {
    out.ptr = static_cast<std::byte*>(const_cast<void*>(contiguous_start(buf, t)));
    return MPI_SUCCESS;
  }
  if (core::layout_of(instance().types, buf, std::size_t(count), type, room)) out.layout = &room;
  else out.ptr = static_cast<std::byte*>(const_cast<void*>(contiguous_start(buf, t)));
  return MPI_SUCCESS;
}

// The region of `count` elements of `type` at displacement `disp` in `target`'s window, which
// must hold it; its bytes must be `bytes`.
int target_region(const Call& k, int target, MPI_Aint disp, int count, MPI_Datatype type, std::size_t bytes,
                  rma::Region& out, base::Strided& block) {
  if (disp < 0) return win_error(k.win, *k.w, MPI_ERR_DISP, k.name, "target_disp=%ld is negative", long(disp));
  if (count < 0) return win_error(k.win, *k.w, MPI_ERR_COUNT, k.name, "target_count=%d is negative", count);
  core::TypeInfo t;
  if (int e = check_dtype(k, type, t, "target_datatype")) return e;
  const std::size_t region_bytes = t.size * std::size_t(count);
  if (region_bytes != bytes)
    return win_error(k.win, *k.w, MPI_ERR_ARG, k.name,
                     "the origin's data (%zu bytes) and the target region (%zu bytes) differ in size", bytes,
                     region_bytes);
  const rma::TargetInfo& info = k.w->window->target(target);
  const auto offset = static_cast<std::int64_t>(disp) * info.disp_unit;
  if (region_bytes > 0 && info.size != rma::TargetInfo::kAddresses) {
    const std::int64_t lo = offset + t.true_lb;
    const std::int64_t hi = lo + static_cast<std::int64_t>(count - 1) * t.extent + t.true_extent;
    if (lo < 0 || hi > static_cast<std::int64_t>(info.size))
      return win_error(k.win, *k.w, MPI_ERR_RMA_RANGE, k.name,
                       "bytes [%ld, %ld) of the window of rank %d, which has %lu bytes", long(lo), long(hi), target,
                       static_cast<unsigned long>(info.size));
  }
  out.offset = static_cast<std::uint64_t>(offset);
  if (t.contiguous || region_bytes == 0 || !core::layout_of(instance().types, nullptr, std::size_t(count), type, out.layout))
    out.layout = base::strided_layout(nullptr, block = base::Strided{t.true_lb, region_bytes, 1, 0});
  return MPI_SUCCESS;
}

int begin(Call& k, int target) {
  if (int e = check_win(k.name, k.win, k.w)) return e;
  if (int e = check_target(k.name, k.win, *k.w, target)) return e;
  if (target != MPI_PROC_NULL && !k.w->may_access(target))
    return win_error(k.win, *k.w, MPI_ERR_RMA_SYNC, k.name,
                     "no access epoch is open for target %d (MPI_Win_fence, MPI_Win_lock, MPI_Win_lock_all or "
                     "MPI_Win_start first)",
                     target);
  return MPI_SUCCESS;
}

// The predefined type every element of `type` is (0 if it mixes several).
int basic_type(MPI_Datatype type) {
  bool valid;
  core::builtin_size(type, valid);
  if (valid) return type;
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* d = core::dtype::lookup(instance().types, type, scratch);
  if (!d || d->segments.empty()) return 0;
  const int basic = d->segments.front().basic;
  for (const core::dtype::Segment& s : d->segments)
    if (s.basic != basic) return 0;
  return basic;
}

// An accumulate's operation on the target's elements.
int reduction(const Call& k, MPI_Op op, MPI_Datatype target_type, MPI_Datatype origin_type, bool origin_used,
              rma::Reduction& out) {
  if (!core::is_predefined_op(op))
    return win_error(k.win, *k.w, MPI_ERR_OP, k.name, "op=0x%x is not a predefined operation (accumulates take no "
                     "others)", static_cast<unsigned>(op));
  const int basic = basic_type(target_type);
  if (basic == 0)
    return win_error(k.win, *k.w, MPI_ERR_TYPE, k.name,
                     "target_datatype=0x%x is not made of one predefined type", static_cast<unsigned>(target_type));
  if (origin_used && basic_type(origin_type) != basic)
    return win_error(k.win, *k.w, MPI_ERR_TYPE, k.name,
                     "origin_datatype=0x%x is not made of the target's predefined type 0x%x",
                     static_cast<unsigned>(origin_type), static_cast<unsigned>(basic));
  if (!core::find_reduce(op, basic))
    return win_error(k.win, *k.w, MPI_ERR_OP, k.name, "op=0x%x is not defined on datatype 0x%x",
                     static_cast<unsigned>(op), static_cast<unsigned>(basic));
  bool valid;
  out = rma::Reduction{op, basic, core::builtin_size(basic, valid)};
  return MPI_SUCCESS;
}

// The request of a request-based operation, complete at once for MPI_PROC_NULL.
p2p::Request* new_request(MPI_Request* request, MPI_Win win, bool proc_null) {
  core::RequestSlot* s = instance().requests.allocate();
  s->op = core::RequestOp::rma;
  s->comm = instance().windows.find(win)->comm;
  s->p2p.complete = proc_null;
  *request = s->handle;
  return &s->p2p;
}

enum class Kind { put, get, accumulate };

// The window and the region of `bytes` bytes at `target_disp` of `target_rank` for the quick
// paths below, when the window is valid, the target in an epoch and the region inside its window;
// nullptr otherwise (the general checks follow, and raise the error if there is one).
WinObject* quick_target(MPI_Win win, int target_rank, MPI_Aint target_disp, std::size_t bytes, rma::Region& where,
                        base::Strided& block) {
  WinObject* w = library_state().phase == Phase::running ? instance().windows.find(win) : nullptr;
  if (!w || target_disp < 0 || target_rank < 0 || target_rank >= w->window->size() || !w->may_access(target_rank))
    [[unlikely]]
    return nullptr;
  const rma::TargetInfo& info = w->window->target(target_rank);
  std::uint64_t offset;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(target_disp), static_cast<std::uint64_t>(info.disp_unit),
                             &offset) ||
      (info.size != rma::TargetInfo::kAddresses && (offset > info.size || bytes > info.size - offset))) [[unlikely]]
    return nullptr;
  block = base::Strided{0, bytes, 1, 0};
  where = rma::Region{offset, base::strided_layout(nullptr, block)};
  return w;
}

// The common case checked in one pass: one predefined type on both sides and an operation defined
// on it. False: nothing was done. osu_rma put_bw 8 B: 0.044 -> 0.011 us a put on a shared-memory
// window (perf: the general checks held 80% of the time).
bool quick_transfer(Kind kind, const void* origin_addr, int origin_count, MPI_Datatype origin_type, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  bool valid;
  const std::size_t elem = core::builtin_size(origin_type, valid);
  if (!valid || origin_type != target_type || origin_count != target_count || origin_count < 0 ||
      (!origin_addr && origin_count > 0)) [[unlikely]]
    return false;
  const std::size_t bytes = elem * std::size_t(origin_count);
  rma::Region where;
  base::Strided block;
  WinObject* w = quick_target(win, target_rank, target_disp, bytes, where, block);
  if (!w) [[unlikely]] return false;
  const rma::Buffer origin{static_cast<std::byte*>(const_cast<void*>(origin_addr)), bytes, nullptr};
  rma::Window& window = *w->window;
  switch (kind) {
    case Kind::put: window.put(target_rank, origin, where, nullptr); break;
    case Kind::get: window.get(target_rank, origin, where, nullptr); break;
    case Kind::accumulate:
      if (!core::find_reduce(op, origin_type)) return false;
      window.accumulate(target_rank, origin, where, rma::Reduction{op, origin_type, elem}, nullptr);
      break;
  }
  return true;
}

// MPI_Fetch_and_op's common case, as quick_transfer().
bool quick_fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype type, int target_rank,
                        MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  bool valid;
  const std::size_t elem = core::builtin_size(type, valid);
  if (!valid || !result_addr || (!origin_addr && !core::is_no_op(op)) || !core::find_reduce(op, type)) [[unlikely]]
    return false;
  rma::Region where;
  base::Strided block;
  WinObject* w = quick_target(win, target_rank, target_disp, elem, where, block);
  if (!w) [[unlikely]] return false;
  const rma::Buffer origin{static_cast<std::byte*>(const_cast<void*>(origin_addr)), origin_addr ? elem : 0, nullptr};
  const rma::Buffer result{static_cast<std::byte*>(result_addr), elem, nullptr};
  w->window->get_accumulate(target_rank, origin, result, where, rma::Reduction{op, type, elem}, nullptr);
  return true;
}

// MPI_Put, MPI_Get, MPI_Accumulate and their request-based forms (`request` not null).
int transfer(Kind kind, const char* name, const void* origin_addr, int origin_count, MPI_Datatype origin_type,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op,
             MPI_Win win, MPI_Request* request) {
  if (!request)
    if (quick_transfer(kind, origin_addr, origin_count, origin_type, target_rank, target_disp, target_count,
                       target_type, op, win))
      return MPI_SUCCESS;
  Call k{name, win};
  if (int e = begin(k, target_rank)) return e;
  rma::Buffer origin;
  base::Layout origin_layout;
  if (int e = origin_buffer(k, origin_addr, origin_count, origin_type, "origin", origin, origin_layout)) return e;
  rma::Reduction red;
  if (kind == Kind::accumulate)
    if (int e = reduction(k, op, target_type, origin_type, true, red)) return e;
  if (target_rank == MPI_PROC_NULL) {
    if (request) new_request(request, win, true);
    return MPI_SUCCESS;
  }
  rma::Region where;
  base::Strided block;
  if (int e = target_region(k, target_rank, target_disp, target_count, target_type, origin.bytes, where, block))
    return e;
  p2p::Request* done = request ? new_request(request, win, false) : nullptr;
  rma::Window& w = *k.w->window;
  switch (kind) {
    case Kind::put: w.put(target_rank, origin, where, done); break;
    case Kind::get: w.get(target_rank, origin, where, done); break;
    case Kind::accumulate: w.accumulate(target_rank, origin, where, red, done); break;
  }
  return MPI_SUCCESS;
}

int get_accumulate(const char* name, const void* origin_addr, int origin_count, MPI_Datatype origin_type,
                   void* result_addr, int result_count, MPI_Datatype result_type, int target_rank,
                   MPI_Aint target_disp, int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win,
                   MPI_Request* request) {
  Call k{name, win};
  if (int e = begin(k, target_rank)) return e;
  const bool no_op = core::is_no_op(op);
  rma::Buffer origin, result;
  base::Layout origin_layout, result_layout;
  if (!no_op)
    if (int e = origin_buffer(k, origin_addr, origin_count, origin_type, "origin", origin, origin_layout)) return e;
  if (int e = origin_buffer(k, result_addr, result_count, result_type, "result", result, result_layout)) return e;
  rma::Reduction red;
  if (int e = reduction(k, op, target_type, origin_type, !no_op, red)) return e;
  if (basic_type(result_type) != red.elem_type)
    return win_error(win, *k.w, MPI_ERR_TYPE, name, "result_datatype=0x%x is not made of the target's predefined type",
                     static_cast<unsigned>(result_type));
  if (target_rank == MPI_PROC_NULL) {
    if (request) new_request(request, win, true);
    return MPI_SUCCESS;
  }
  if (!no_op && origin.bytes != result.bytes)
    return win_error(win, *k.w, MPI_ERR_ARG, name, "origin (%zu bytes) and result (%zu bytes) differ in size",
                     origin.bytes, result.bytes);
  rma::Region where;
  base::Strided block;
  if (int e = target_region(k, target_rank, target_disp, target_count, target_type, result.bytes, where, block))
    return e;
  k.w->window->get_accumulate(target_rank, origin, result, where, red,
                              request ? new_request(request, win, false) : nullptr);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return transfer(Kind::put, "MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, nullptr);
}
#pragma weak MPI_Put = PMPI_Put

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rput", "request is NULL");
  return transfer(Kind::put, "MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, request);
}
#pragma weak MPI_Rput = PMPI_Rput

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
             int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  return transfer(Kind::get, "MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, nullptr);
}
#pragma weak MPI_Get = PMPI_Get

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
              int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request* request) {
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget", "request is NULL");
  return transfer(Kind::get, "MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, MPI_OP_NULL, win, request);
}
#pragma weak MPI_Rget = PMPI_Rget

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return transfer(Kind::accumulate, "MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, nullptr);
}
#pragma weak MPI_Accumulate = PMPI_Accumulate

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Raccumulate", "request is NULL");
  return transfer(Kind::accumulate, "MPI_Raccumulate", origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Raccumulate = PMPI_Raccumulate

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                        int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  return get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, nullptr);
}
#pragma weak MPI_Get_accumulate = PMPI_Get_accumulate

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, void* result_addr,
                         int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request* request) {
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget_accumulate", "request is NULL");
  return get_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype, result_addr, result_count,
                        result_datatype, target_rank, target_disp, target_count, target_datatype, op, win, request);
}
#pragma weak MPI_Rget_accumulate = PMPI_Rget_accumulate

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  if (quick_fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win)) return MPI_SUCCESS;
  return get_accumulate("MPI_Fetch_and_op", origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                        target_disp, 1, datatype, op, win, nullptr);
}
#pragma weak MPI_Fetch_and_op = PMPI_Fetch_and_op

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  Call k{"MPI_Compare_and_swap", win};
  if (int e = begin(k, target_rank)) return e;
  bool valid;
  const std::size_t size = core::builtin_size(datatype, valid);
  // Integer, logical and byte types only (MPI-3.1 11.3.4): those MPI_LAND or MPI_BAND take.
  if (!valid || size == 0 || (!core::find_reduce(MPI_LAND, datatype) && !core::find_reduce(MPI_BAND, datatype)))
    return win_error(win, *k.w, MPI_ERR_TYPE, k.name,
                     "datatype=0x%x is not a predefined integer, logical or byte datatype",
                     static_cast<unsigned>(datatype));
  if (!origin_addr || !compare_addr || !result_addr)
    return win_error(win, *k.w, MPI_ERR_BUFFER, k.name, "origin_addr, compare_addr or result_addr is NULL");
  if (target_rank == MPI_PROC_NULL) return MPI_SUCCESS;
  rma::Region where;
  base::Strided block;
  if (int e = target_region(k, target_rank, target_disp, 1, datatype, size, where, block)) return e;
  k.w->window->compare_and_swap(target_rank, static_cast<const std::byte*>(origin_addr),
                                static_cast<const std::byte*>(compare_addr), static_cast<std::byte*>(result_addr),
                                where.offset, size, nullptr);
  return MPI_SUCCESS;
}
#pragma weak MPI_Compare_and_swap = PMPI_Compare_and_swap

}  // extern "C"
