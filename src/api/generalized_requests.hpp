// Generalized requests (MPI_Grequest_start): operations the program carries out itself and
// completes with MPI_Grequest_complete. Their request slots (RequestOp::generalized) complete
// like any other; the program's query, free and cancel functions live here, by request handle.
#pragma once

#include <unordered_map>

#include "mpi.h"

namespace railmpi::api {

class GeneralizedRequests {
 public:
  struct Functions {
    MPI_Grequest_query_function* query;
    MPI_Grequest_free_function* free;
    MPI_Grequest_cancel_function* cancel;
    void* state;
  };
  void add(int handle, const Functions& f) { by_handle_[handle] = f; }
  // The functions of request `handle` (nullptr when it is not a generalized request).
  const Functions* find(int handle) const {
    const auto it = by_handle_.find(handle);
    return it == by_handle_.end() ? nullptr : &it->second;
  }
  void erase(int handle) { by_handle_.erase(handle); }
  std::size_t size() const { return by_handle_.size(); }

 private:
  std::unordered_map<int, Functions> by_handle_;
};

}  // namespace railmpi::api
