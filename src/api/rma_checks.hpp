// What the one-sided entry points share: the window behind a handle, errors raised through the
// window's error handler, and the checks of an epoch.
#pragma once

#include <utility>

#include "api/checks.hpp"

namespace railmpi::api {

// Raises `errclass` through the window's error handler.
template <class... Args>
int win_error(MPI_Win win, const WinObject& w, int errclass, const char* call, const char* fmt, Args... args) {
  return raise_object_error(w.errhandler, win, errclass, call, fmt, args...);
}

// The live window behind `win` (MPI_ERR_WIN through MPI_COMM_WORLD's handler otherwise).
inline int check_win(const char* call, MPI_Win win, WinObject*& out) {
  require_running(call);
  out = instance().windows.find(win);
  if (!out) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_WIN, call, "win=0x%x is not a valid window", static_cast<unsigned>(win));
  return MPI_SUCCESS;
}

// A target: a rank of the window's group or MPI_PROC_NULL.
inline int check_target(const char* call, MPI_Win win, const WinObject& w, int rank) {
  if ((rank < 0 || rank >= w.window->size()) && rank != MPI_PROC_NULL) [[unlikely]]
    return win_error(win, w, MPI_ERR_RANK, call, "target_rank=%d is not a rank of a window of %d processes", rank,
                     w.window->size());
  return MPI_SUCCESS;
}

inline int check_lock_target(const char* call, MPI_Win win, const WinObject& w, int rank) {
  if (rank < 0 || rank >= w.window->size()) [[unlikely]]
    return win_error(win, w, MPI_ERR_RANK, call, "rank=%d is not a rank of a window of %d processes", rank,
                     w.window->size());
  return MPI_SUCCESS;
}

}  // namespace railmpi::api
