// Windows: creation (MPI_Win_create over the program's memory, MPI_Win_allocate over the
// library's), MPI_Win_free, and what a window carries: group, attributes, name, error handler,
// info.
#include <algorithm>
#include <atomic>
#include <cstring>

#include "api/rma_checks.hpp"
#include "base/log.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// Where each rank's memory is, as the window's group tells it at creation.
struct MemoryCard {
  std::uint64_t base;
  std::uint64_t size;
  std::int64_t disp_unit;
};

int check_create(const char* call, MPI_Aint size, int disp_unit, MPI_Comm comm, MPI_Win* win,
                 core::Communicator*& c) {
  require_running(call);
  if (int e = check_comm(call, comm, c)) return e;
  if (c->is_inter()) return raise_error(comm, MPI_ERR_COMM, call, "comm=0x%x is an intercommunicator", unsigned(comm));
  if (size < 0) return raise_error(comm, MPI_ERR_SIZE, call, "size=%ld is negative", static_cast<long>(size));
  if (disp_unit <= 0) return raise_error(comm, MPI_ERR_DISP, call, "disp_unit=%d is not positive", disp_unit);
  if (!win) return raise_error(comm, MPI_ERR_ARG, call, "win is NULL");
  return MPI_SUCCESS;
}

void use_direct_access(WinObject& w);

// Collective over `comm`: makes `w` (its memory, if the library's, already in it) the window over
// `base`. A dynamic window's targets are addresses: no size bounds them at the origin.
int make_window(MPI_Comm comm, void* base, MPI_Aint size, int disp_unit, int flavor, std::unique_ptr<WinObject> w,
                MPI_Win* win) {
  Instance& in = instance();
  if (int e = PMPI_Comm_dup(comm, &w->comm)) return e;
  const core::Communicator& c = *find_comm(w->comm);
  const std::uint64_t reach =
      flavor == MPI_WIN_FLAVOR_DYNAMIC ? rma::TargetInfo::kAddresses : static_cast<std::uint64_t>(size);
  const MemoryCard mine{reinterpret_cast<std::uintptr_t>(base), reach, disp_unit};
  std::vector<MemoryCard> cards(static_cast<std::size_t>(c.size()));
  if (int e = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards.data(), sizeof mine, MPI_BYTE, w->comm)) return e;
  std::vector<rma::TargetInfo> targets(cards.size());
  for (std::size_t i = 0; i < cards.size(); ++i) targets[i] = {cards[i].base, cards[i].size, cards[i].disp_unit};
  w->window = std::make_unique<rma::Window>(*in.rma, c.context, c.rank, c.job_ranks, std::move(targets));
  w->base = base;
  w->size = size;
  w->disp_unit = disp_unit;
  w->flavor = flavor;
  w->locks.assign(cards.size(), WinObject::Lock::none);
  w->in_access_group.assign(cards.size(), 0);
  if (w->segment && in.settings.rma_shared) use_direct_access(*w);
  *win = in.windows.add(std::move(w));
  return MPI_SUCCESS;
}

// Lines of lock words per rank at the start of a node window's segment.
constexpr int kLockLines = 2;

// Whether every rank of `c` runs on this rank's node.
bool all_on_node(const core::Communicator& c) {
  const std::vector<int>& node = instance().mcm->node_ranks();
  for (int job : c.job_ranks)
    if (std::find(node.begin(), node.end(), job) == node.end()) return false;
  return true;
}

// MPI_Win_allocate_shared's segment: rank 0 of `comm` creates it, the others map it.
// MPI_Win_allocate_shared's segment: rank 0 of `comm` creates it, the others map it. MPI_SUCCESS,
// or MPI_ERR_NO_MEM on every rank (not raised; `why` says what failed) when a rank could not.
int map_shared_segment(MPI_Comm comm, const core::Communicator& c, std::size_t bytes, mcm::NodeSegment& out,
                       std::string& why) {
  Instance& in = instance();
  // The name: the creating rank's job rank and its count of such windows.
  std::uint64_t key[2] = {static_cast<std::uint64_t>(in.rank()), in.shared_windows_made++};
  if (int e = PMPI_Bcast(key, 2, MPI_UINT64_T, 0, comm)) return e;
  const std::string name = std::to_string(key[0]) + "-" + std::to_string(key[1]);
  int ok = 1;
  if (c.rank == 0) {
    out = mcm::NodeSegment::create(in.job_id, name, bytes, &why);
    ok = out.valid();
  }
  if (int e = PMPI_Bcast(&ok, 1, MPI_INT, 0, comm)) return e;
  if (!ok) {
    if (c.rank != 0) why = "rank 0 could not create the shared segment (see its message)";
    return MPI_ERR_NO_MEM;
  }
  if (c.rank != 0) {
    out = mcm::NodeSegment::open(in.job_id, name, bytes, &why);
    ok = out.valid();
  }
  int all_ok = 0;
  if (int e = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm)) return e;
  if (c.rank == 0) mcm::NodeSegment::remove(in.job_id, name);  // every rank has it mapped (or failed)
  if (!all_ok) {
    if (ok) why = "another rank could not map the shared segment";
    out = mcm::NodeSegment();
    return MPI_ERR_NO_MEM;
  }
  return MPI_SUCCESS;
}

// The memory of a window whose ranks all share this node, in one segment every rank maps: two lock
// words per rank (a cache line each: accumulates, MPI_Win_lock), then each rank's part: contiguous in rank
// order (MPI_Win_allocate_shared's default), or `padded` to whole cache lines (MPI_Win_allocate).
int node_window_memory(MPI_Comm comm, const core::Communicator& c, MPI_Aint size, int disp_unit, bool padded,
                       WinObject& w, std::string& why) {
  struct Part {
    MPI_Aint size;
    int disp_unit;
  };
  const Part mine{size, disp_unit};
  std::vector<Part> parts(static_cast<std::size_t>(c.size()));
  if (int e = PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, parts.data(), sizeof mine, MPI_BYTE, comm)) return e;
  const auto line = static_cast<MPI_Aint>(sizeof(CacheLine));
  MPI_Aint at = kLockLines * line * c.size();
  for (const Part& p : parts) {
    w.shared_offsets.push_back(at);
    w.shared_sizes.push_back(p.size);
    w.shared_disp_units.push_back(p.disp_unit);
    at += padded ? (p.size + line - 1) / line * line : p.size;
  }
  w.segment = std::make_unique<mcm::NodeSegment>();
  return map_shared_segment(comm, c, std::size_t(at), *w.segment, why);
}

// Operations on a window in one node segment are loads and stores (RAILMPI_RMA_SHARED).
void use_direct_access(WinObject& w) {
  rma::DirectAccess d;
  for (std::size_t i = 0; i < w.shared_offsets.size(); ++i) {
    d.bases.push_back(w.segment->data() + w.shared_offsets[i]);
    std::byte* lines = w.segment->data() + i * kLockLines * sizeof(CacheLine);
    d.locks.push_back(reinterpret_cast<std::uint32_t*>(lines));
    d.epoch_locks.push_back(reinterpret_cast<std::uint32_t*>(lines + sizeof(CacheLine)));
  }
  w.window->use_direct_access(std::move(d));
}

}  // namespace

extern "C" {

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  (void)info;
  core::Communicator* c;
  if (int e = check_create("MPI_Win_create", size, disp_unit, comm, win, c)) return e;
  if (!base && size > 0) return raise_error(comm, MPI_ERR_BASE, "MPI_Win_create", "base is NULL with size=%ld", long(size));
  return make_window(comm, base, size, disp_unit, MPI_WIN_FLAVOR_CREATE, std::make_unique<WinObject>(), win);
}
#pragma weak MPI_Win_create = PMPI_Win_create

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  (void)info;
  core::Communicator* c;
  if (int e = check_create("MPI_Win_allocate", size, disp_unit, comm, win, c)) return e;
  if (!baseptr) return raise_error(comm, MPI_ERR_ARG, "MPI_Win_allocate", "baseptr is NULL");
  auto w = std::make_unique<WinObject>();
  void* memory_base;
  if (instance().settings.rma_shared && c->size() > 1 && all_on_node(*c)) {
    std::string why;
    const int e = node_window_memory(comm, *c, size, disp_unit, true, *w, why);
    if (e != MPI_SUCCESS && e != MPI_ERR_NO_MEM) return e;
    if (e == MPI_ERR_NO_MEM) {  // every rank: private memory, operations as messages
      if (instance().settings.verbose > 0)
        base::log_info("MPI_Win_allocate: the window stays in private memory (%s)", why.c_str());
      w = std::make_unique<WinObject>();
    }
  }
  if (w->segment) {
    memory_base = w->segment->data() + w->shared_offsets[std::size_t(c->rank)];
  } else {
    const std::size_t lines = (static_cast<std::size_t>(size) + sizeof(CacheLine) - 1) / sizeof(CacheLine);
    if (lines) w->memory.reset(new CacheLine[lines]());
    memory_base = w->memory.get();
  }
  *static_cast<void**>(baseptr) = memory_base;
  return make_window(comm, memory_base, size, disp_unit, MPI_WIN_FLAVOR_ALLOCATE, std::move(w), win);
}
#pragma weak MPI_Win_allocate = PMPI_Win_allocate

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                             MPI_Win* win) {
  (void)info;  // alloc_shared_noncontig: the parts stay contiguous, which that hint allows too
  const char* call = "MPI_Win_allocate_shared";
  core::Communicator* c;
  if (int e = check_create(call, size, disp_unit, comm, win, c)) return e;
  if (!baseptr) return raise_error(comm, MPI_ERR_ARG, call, "baseptr is NULL");
  if (!all_on_node(*c))
    return raise_error(comm, MPI_ERR_RMA_SHARED, call, "the ranks of comm=0x%x are not all on this node (%s)",
                       unsigned(comm), instance().mcm->host().c_str());
  // Each rank's part follows the one of the rank before it (MPI's default: contiguous).
  auto w = std::make_unique<WinObject>();
  std::string why;
  if (int e = node_window_memory(comm, *c, size, disp_unit, false, *w, why)) {
    if (e != MPI_ERR_NO_MEM) return e;
    return raise_error(comm, MPI_ERR_NO_MEM, call, "%s", why.c_str());
  }
  void* base = w->segment->data() + w->shared_offsets[std::size_t(c->rank)];
  *static_cast<void**>(baseptr) = base;
  return make_window(comm, base, size, disp_unit, MPI_WIN_FLAVOR_SHARED, std::move(w), win);
}
#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  const char* call = "MPI_Win_shared_query";
  WinObject* w;
  if (int e = check_win(call, win, w)) return e;
  if (!size || !disp_unit || !baseptr) return win_error(win, *w, MPI_ERR_ARG, call, "size, disp_unit or baseptr is NULL");
  if (w->flavor != MPI_WIN_FLAVOR_SHARED)
    return win_error(win, *w, MPI_ERR_RMA_FLAVOR, call, "the window was not made by MPI_Win_allocate_shared");
  const int n = static_cast<int>(w->shared_sizes.size());
  if (rank == MPI_PROC_NULL) {  // the lowest rank with memory
    rank = 0;
    while (rank < n - 1 && w->shared_sizes[std::size_t(rank)] == 0) ++rank;
  } else if (rank < 0 || rank >= n) {
    return win_error(win, *w, MPI_ERR_RANK, call, "rank=%d is not a rank of a window of %d processes", rank, n);
  }
  const auto r = static_cast<std::size_t>(rank);
  *size = w->shared_sizes[r];
  *disp_unit = w->shared_disp_units[r];
  *static_cast<void**>(baseptr) = w->segment->data() + w->shared_offsets[r];
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  (void)info;
  core::Communicator* c;
  if (int e = check_create("MPI_Win_create_dynamic", 0, 1, comm, win, c)) return e;
  return make_window(comm, MPI_BOTTOM, 0, 1, MPI_WIN_FLAVOR_DYNAMIC, std::make_unique<WinObject>(), win);
}
#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  WinObject* w;
  if (int e = check_win("MPI_Win_attach", win, w)) return e;
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(win, *w, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach", "the window was not made by MPI_Win_create_dynamic");
  if (size < 0) return win_error(win, *w, MPI_ERR_SIZE, "MPI_Win_attach", "size=%ld is negative", long(size));
  if (!base && size > 0) return win_error(win, *w, MPI_ERR_BASE, "MPI_Win_attach", "base is NULL");
  w->attached.emplace_back(base, size);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_attach = PMPI_Win_attach

int PMPI_Win_detach(MPI_Win win, const void* base) {
  WinObject* w;
  if (int e = check_win("MPI_Win_detach", win, w)) return e;
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return win_error(win, *w, MPI_ERR_RMA_FLAVOR, "MPI_Win_detach", "the window was not made by MPI_Win_create_dynamic");
  const auto it = std::find_if(w->attached.begin(), w->attached.end(), [&](const auto& r) { return r.first == base; });
  if (it == w->attached.end())
    return win_error(win, *w, MPI_ERR_RMA_ATTACH, "MPI_Win_detach", "base=%p is not attached to the window", base);
  w->attached.erase(it);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_detach = PMPI_Win_detach

int PMPI_Win_free(MPI_Win* win) {
  if (!win) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_free", "win is NULL");
  WinObject* w;
  if (int e = check_win("MPI_Win_free", *win, w)) return e;
  if (w->locks_held > 0 || w->locked_all || w->started || w->posted)
    return win_error(*win, *w, MPI_ERR_RMA_SYNC, "MPI_Win_free",
                     "an epoch is still open on the window (%s)",
                     w->started ? "MPI_Win_start without MPI_Win_complete"
                     : w->posted ? "MPI_Win_post without MPI_Win_wait"
                                 : "a lock is held");
  w->window->wait_local();
  // Every rank's accesses are over once all are here; then the requests they sent are handled.
  if (int e = PMPI_Barrier(w->comm)) return e;
  w->window->wait_idle();
  Instance& in = instance();
  in.attributes.remove_all(*win);
  MPI_Comm comm = w->comm;
  // The window's memory (MPI_Win_allocate) goes with the object.
  in.windows.release(*win);
  PMPI_Comm_free(&comm);
  *win = MPI_WIN_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_free = PMPI_Win_free

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  WinObject* w;
  if (int e = check_win("MPI_Win_get_group", win, w)) return e;
  if (!group) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_get_group", "group is NULL");
  return PMPI_Comm_group(w->comm, group);
}
#pragma weak MPI_Win_get_group = PMPI_Win_get_group

// ---- attributes: the predefined ones live in the window object ----

int PMPI_Win_get_attr(MPI_Win win, int keyval, void* value, int* flag) {
  WinObject* w;
  if (int e = check_win("MPI_Win_get_attr", win, w)) return e;
  if (!value || !flag) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_get_attr", "attribute_val or flag is NULL");
  void** out = static_cast<void**>(value);
  *flag = 1;
  switch (keyval) {
    case MPI_WIN_BASE: *out = w->base; return MPI_SUCCESS;
    case MPI_WIN_SIZE: *out = &w->size; return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT: *out = &w->disp_unit; return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR: *out = &w->flavor; return MPI_SUCCESS;
    case MPI_WIN_MODEL: *out = &w->model; return MPI_SUCCESS;
    default: break;
  }
  *flag = 0;
  if (!instance().attributes.find_keyval(keyval, core::AttrKind::win))
    return win_error(win, *w, MPI_ERR_KEYVAL, "MPI_Win_get_attr", "keyval=0x%x is not a valid window keyval",
                     static_cast<unsigned>(keyval));
  void* v = nullptr;
  *flag = instance().attributes.get(win, keyval, v);
  if (*flag) *out = v;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_attr = PMPI_Win_get_attr

int PMPI_Win_set_attr(MPI_Win win, int keyval, void* value) {
  WinObject* w;
  if (int e = check_win("MPI_Win_set_attr", win, w)) return e;
  if (!instance().attributes.find_keyval(keyval, core::AttrKind::win))
    return win_error(win, *w, MPI_ERR_KEYVAL, "MPI_Win_set_attr", "keyval=0x%x is not a valid user window keyval",
                     static_cast<unsigned>(keyval));
  if (int e = instance().attributes.set(win, keyval, value))
    return win_error(win, *w, e, "MPI_Win_set_attr", "the delete callback of the replaced value returned %d", e);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_attr = PMPI_Win_set_attr

int PMPI_Win_delete_attr(MPI_Win win, int keyval) {
  WinObject* w;
  if (int e = check_win("MPI_Win_delete_attr", win, w)) return e;
  if (!instance().attributes.find_keyval(keyval, core::AttrKind::win))
    return win_error(win, *w, MPI_ERR_KEYVAL, "MPI_Win_delete_attr", "keyval=0x%x is not a valid user window keyval",
                     static_cast<unsigned>(keyval));
  bool found = false;
  if (int e = instance().attributes.remove(win, keyval, found))
    return win_error(win, *w, e, "MPI_Win_delete_attr", "the delete callback returned %d", e);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_delete_attr = PMPI_Win_delete_attr

// ---- name, error handler, info ----

int PMPI_Win_set_name(MPI_Win win, const char* name) {
  WinObject* w;
  if (int e = check_win("MPI_Win_set_name", win, w)) return e;
  if (!name) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_set_name", "name is NULL");
  w->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_name = PMPI_Win_set_name

int PMPI_Win_get_name(MPI_Win win, char* name, int* resultlen) {
  WinObject* w;
  if (int e = check_win("MPI_Win_get_name", win, w)) return e;
  if (!name || !resultlen) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_get_name", "name or resultlen is NULL");
  std::memcpy(name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_name = PMPI_Win_get_name

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  WinObject* w;
  if (int e = check_win("MPI_Win_set_errhandler", win, w)) return e;
  if (!valid_errhandler(errhandler))
    return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_set_errhandler", "errhandler=0x%x is not a valid error handler",
                     static_cast<unsigned>(errhandler));
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_set_errhandler = PMPI_Win_set_errhandler

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  WinObject* w;
  if (int e = check_win("MPI_Win_get_errhandler", win, w)) return e;
  if (!errhandler) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_get_errhandler", "errhandler is NULL");
  *errhandler = w->errhandler;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_get_errhandler = PMPI_Win_get_errhandler

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  WinObject* w;
  if (int e = check_win("MPI_Win_call_errhandler", win, w)) return e;
  win_error(win, *w, errorcode, "MPI_Win_call_errhandler", "called by the program with error code %d", errorcode);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_call_errhandler = PMPI_Win_call_errhandler

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  WinObject* w;
  if (int e = check_win("MPI_Win_set_info", win, w)) return e;
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return win_error(win, *w, MPI_ERR_INFO, "MPI_Win_set_info", "info=0x%x is not a valid info object", unsigned(info));
  return MPI_SUCCESS;  // no hint changes how this implementation works
}
#pragma weak MPI_Win_set_info = PMPI_Win_set_info

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info) {
  WinObject* w;
  if (int e = check_win("MPI_Win_get_info", win, w)) return e;
  if (!info) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_get_info", "info is NULL");
  if (int e = PMPI_Info_create(info)) return e;
  return PMPI_Info_set(*info, "no_locks", "false");
}
#pragma weak MPI_Win_get_info = PMPI_Win_get_info

}  // extern "C"
