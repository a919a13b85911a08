// One-sided synchronization: fences, passive-target locks and flushes, and the generalized
// active target (post / start / complete / wait).
#include <atomic>

#include "api/rma_checks.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

constexpr int kKnownAsserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                              MPI_MODE_NOSUCCEED;

int check_assert(const char* call, MPI_Win win, const WinObject& w, int assert_) {
  if (assert_ & ~kKnownAsserts)
    return win_error(win, w, MPI_ERR_ASSERT, call, "assert=0x%x has bits of no MPI_MODE_* constant",
                     static_cast<unsigned>(assert_));
  return MPI_SUCCESS;
}

int sync_error(const char* call, MPI_Win win, const WinObject& w, const char* why) {
  return win_error(win, w, MPI_ERR_RMA_SYNC, call, "%s", why);
}

// The ranks of `group` in the window's group; MPI_ERR_GROUP when one is not in it.
int window_ranks(const char* call, MPI_Win win, const WinObject& w, MPI_Group group, std::vector<int>& out) {
  const core::Ranks* g = find_group(group);
  if (!g) return win_error(win, w, MPI_ERR_GROUP, call, "group=0x%x is not a valid group", static_cast<unsigned>(group));
  const core::Communicator& c = *find_comm(w.comm);
  out.clear();
  for (int job : *g) {
    const int r = core::group_rank_of(c.job_ranks, job);
    if (r < 0)
      return win_error(win, w, MPI_ERR_GROUP, call, "job rank %d of the group is not in the window's group", job);
    out.push_back(r);
  }
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Win_fence(int assert_, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_fence", win, w)) return e;
  if (int e = check_assert("MPI_Win_fence", win, *w, assert_)) return e;
  if (w->locks_held > 0 || w->locked_all || w->started || w->posted)
    return sync_error("MPI_Win_fence", win, *w, "a lock, or a post or start epoch, is open on the window");
  // This rank's operations are done at their targets, then every rank has come here: the next
  // epoch's operations reach each target after it entered this fence.
  w->window->flush(w->window->everyone());
  if (int e = PMPI_Barrier(w->comm)) return e;
  w->fence_open = !(assert_ & MPI_MODE_NOSUCCEED);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_fence = PMPI_Win_fence

int PMPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_lock", win, w)) return e;
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return win_error(win, *w, MPI_ERR_LOCKTYPE, "MPI_Win_lock", "lock_type=%d is neither MPI_LOCK_EXCLUSIVE nor "
                     "MPI_LOCK_SHARED", lock_type);
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_lock_target("MPI_Win_lock", win, *w, rank)) return e;
  if (int e = check_assert("MPI_Win_lock", win, *w, assert_)) return e;
  WinObject::Lock& l = w->locks[std::size_t(rank)];
  if (l != WinObject::Lock::none || w->locked_all)
    return win_error(win, *w, MPI_ERR_RMA_SYNC, "MPI_Win_lock", "rank %d is locked already", rank);
  if (assert_ & MPI_MODE_NOCHECK) {
    l = WinObject::Lock::nocheck;
  } else {
    w->window->lock(rank, lock_type == MPI_LOCK_EXCLUSIVE);
    l = lock_type == MPI_LOCK_EXCLUSIVE ? WinObject::Lock::exclusive : WinObject::Lock::shared;
  }
  ++w->locks_held;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock = PMPI_Win_lock

int PMPI_Win_unlock(int rank, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_unlock", win, w)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_lock_target("MPI_Win_unlock", win, *w, rank)) return e;
  WinObject::Lock& l = w->locks[std::size_t(rank)];
  if (l == WinObject::Lock::none)
    return win_error(win, *w, MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "rank %d is not locked by this process", rank);
  const int t[] = {rank};
  if (l == WinObject::Lock::nocheck) w->window->flush(t);
  else w->window->unlock(rank);
  l = WinObject::Lock::none;
  --w->locks_held;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_unlock = PMPI_Win_unlock

int PMPI_Win_lock_all(int assert_, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_lock_all", win, w)) return e;
  if (int e = check_assert("MPI_Win_lock_all", win, *w, assert_)) return e;
  if (w->locked_all || w->locks_held > 0)
    return sync_error("MPI_Win_lock_all", win, *w, "the window is locked already");
  w->locked_all_nocheck = assert_ & MPI_MODE_NOCHECK;
  if (!w->locked_all_nocheck) w->window->lock_shared(w->window->everyone());
  w->locked_all = true;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all

int PMPI_Win_unlock_all(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_unlock_all", win, w)) return e;
  if (!w->locked_all) return sync_error("MPI_Win_unlock_all", win, *w, "the window is not locked with MPI_Win_lock_all");
  if (w->locked_all_nocheck) w->window->flush(w->window->everyone());
  else w->window->unlock_all(w->window->everyone());
  w->locked_all = false;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all

int PMPI_Win_flush(int rank, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_flush", win, w)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_lock_target("MPI_Win_flush", win, *w, rank)) return e;
  if (!w->locked_all && w->locks[std::size_t(rank)] == WinObject::Lock::none)
    return win_error(win, *w, MPI_ERR_RMA_SYNC, "MPI_Win_flush", "rank %d is not locked by this process", rank);
  const int t[] = {rank};
  w->window->flush(t);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_flush = PMPI_Win_flush

int PMPI_Win_flush_all(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_flush_all", win, w)) return e;
  if (!w->locked_all && w->locks_held == 0)
    return sync_error("MPI_Win_flush_all", win, *w, "no passive-target epoch is open on the window");
  w->window->flush(w->window->everyone());
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all

int PMPI_Win_flush_local(int rank, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_flush_local", win, w)) return e;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (int e = check_lock_target("MPI_Win_flush_local", win, *w, rank)) return e;
  if (!w->locked_all && w->locks[std::size_t(rank)] == WinObject::Lock::none)
    return win_error(win, *w, MPI_ERR_RMA_SYNC, "MPI_Win_flush_local", "rank %d is not locked by this process", rank);
  w->window->wait_local();
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local

int PMPI_Win_flush_local_all(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_flush_local_all", win, w)) return e;
  if (!w->locked_all && w->locks_held == 0)
    return sync_error("MPI_Win_flush_local_all", win, *w, "no passive-target epoch is open on the window");
  w->window->wait_local();
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all

int PMPI_Win_sync(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_sync", win, w)) return e;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_sync = PMPI_Win_sync

int PMPI_Win_post(MPI_Group group, int assert_, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_post", win, w)) return e;
  if (int e = check_assert("MPI_Win_post", win, *w, assert_)) return e;
  if (w->posted) return sync_error("MPI_Win_post", win, *w, "an exposure epoch (MPI_Win_post) is open already");
  std::vector<int> origins;
  if (int e = window_ranks("MPI_Win_post", win, *w, group, origins)) return e;
  w->window->post(origins);
  w->posted = true;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_post = PMPI_Win_post

int PMPI_Win_start(MPI_Group group, int assert_, MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_start", win, w)) return e;
  if (int e = check_assert("MPI_Win_start", win, *w, assert_)) return e;
  if (w->started) return sync_error("MPI_Win_start", win, *w, "an access epoch (MPI_Win_start) is open already");
  if (int e = window_ranks("MPI_Win_start", win, *w, group, w->access_group)) return e;
  w->window->start(w->access_group);
  for (int t : w->access_group) w->in_access_group[std::size_t(t)] = 1;
  w->started = true;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_start = PMPI_Win_start

int PMPI_Win_complete(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_complete", win, w)) return e;
  if (!w->started) return sync_error("MPI_Win_complete", win, *w, "no access epoch (MPI_Win_start) is open");
  w->window->complete(w->access_group);
  for (int t : w->access_group) w->in_access_group[std::size_t(t)] = 0;
  w->access_group.clear();
  w->started = false;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_complete = PMPI_Win_complete

int PMPI_Win_wait(MPI_Win win) {
  WinObject* w;
  if (int e = check_win("MPI_Win_wait", win, w)) return e;
  if (!w->posted) return sync_error("MPI_Win_wait", win, *w, "no exposure epoch (MPI_Win_post) is open");
  w->window->wait_exposure();
  w->posted = false;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_wait = PMPI_Win_wait

int PMPI_Win_test(MPI_Win win, int* flag) {
  WinObject* w;
  if (int e = check_win("MPI_Win_test", win, w)) return e;
  if (!flag) return win_error(win, *w, MPI_ERR_ARG, "MPI_Win_test", "flag is NULL");
  if (!w->posted) return sync_error("MPI_Win_test", win, *w, "no exposure epoch (MPI_Win_post) is open");
  *flag = w->window->test_exposure();
  if (*flag) w->posted = false;
  return MPI_SUCCESS;
}
#pragma weak MPI_Win_test = PMPI_Win_test

}  // extern "C"
