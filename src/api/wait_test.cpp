// Completion: MPI_Wait/Test and their -all, -any, -some forms, MPI_Request_get_status.
#include <array>
#include <vector>

#include "api/completion.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

// The slots behind an array of handles: on the stack for the usual small arrays, so that a
// Waitall on a window of requests allocates nothing.
class SlotList {
 public:
  explicit SlotList(int count) : size_(static_cast<std::size_t>(count)) {
    if (size_ > inline_.size()) heap_.resize(size_);
    data_ = size_ > inline_.size() ? heap_.data() : inline_.data();
  }
  core::RequestSlot*& operator[](std::size_t i) { return data_[i]; }
  std::size_t size() const { return size_; }
  core::RequestSlot** begin() { return data_; }
  core::RequestSlot** end() { return data_ + size_; }

 private:
  std::size_t size_;
  std::array<core::RequestSlot*, 64> inline_{};
  std::vector<core::RequestSlot*> heap_;
  core::RequestSlot** data_;
};

// Looks up a handle. MPI_REQUEST_NULL and inactive persistent requests give nullptr with success.
int lookup(const char* call, MPI_Request handle, core::RequestSlot*& out) {
  out = nullptr;
  if (handle == MPI_REQUEST_NULL) return MPI_SUCCESS;
  core::RequestSlot* s = instance().requests.find(handle);
  if (!s || s->op == core::RequestOp::message) [[unlikely]]
    return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, call, "request=0x%x is not a valid request",
                       static_cast<unsigned>(handle));
  if (s->persistent && !s->active) return MPI_SUCCESS;
  out = s;
  return MPI_SUCCESS;
}

int check_array(const char* call, int count, const MPI_Request* requests) {
  require_running(call);
  if (count < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "count=%d is negative", count);
  if (count > 0 && !requests) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_requests is NULL");
  return MPI_SUCCESS;
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses + i;
}

// Completes slot s (already done): status, retire, and the error it carried.
int consume(core::RequestSlot* s, MPI_Request* handle, MPI_Status* status) {
  int error = slot_status(*s, status);
  if (s->op == core::RequestOp::generalized) [[unlikely]] {  // freed by the wait: the free function too
    const int freed = generalized_free(*s);
    if (error == MPI_SUCCESS) error = freed;
  }
  retire(s, handle);
  return error;
}

int raise_completion_error(const char* call, MPI_Comm comm, int error) {
  return raise_error(comm, error, call, "a completed request carries %s", error_class_name(error));
}

// -all forms once every request is done: statuses, and MPI_ERR_IN_STATUS if any failed.
int consume_all(const char* call, int count, MPI_Request* requests, SlotList& slots,
                MPI_Status* statuses) {
  bool failed = false;
  MPI_Comm comm = MPI_COMM_WORLD;
  for (int i = 0; i < count; ++i) {
    core::RequestSlot* s = slots[std::size_t(i)];
    if (!s) {
      set_empty_status(status_at(statuses, i));
      continue;
    }
    const MPI_Comm c = s->comm;
    const int error = consume(s, &requests[i], status_at(statuses, i));
    // With MPI_ERR_IN_STATUS every status carries its own class, MPI_SUCCESS included.
    if (statuses != MPI_STATUSES_IGNORE) statuses[i].MPI_ERROR = error;
    if (error != MPI_SUCCESS) {
      failed = true;
      comm = c;
    }
  }
  if (!failed) return MPI_SUCCESS;
  return raise_error(comm, MPI_ERR_IN_STATUS, call, "at least one request failed; see the statuses");
}

}  // namespace

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  require_running("MPI_Wait");
  if (!request) return raise_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Wait", "request is NULL");
  core::RequestSlot* s;
  if (int e = lookup("MPI_Wait", *request, s)) return e;
  if (!s) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  instance().progress->wait_until([&] { return s->p2p.complete; });
  const MPI_Comm comm = s->comm;
  const int error = consume(s, request, status);
  return error ? raise_completion_error("MPI_Wait", comm, error) : MPI_SUCCESS;
}
#pragma weak MPI_Wait = PMPI_Wait

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  require_running("MPI_Test");
  if (!request || !flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test", "request or flag is NULL");
  core::RequestSlot* s;
  if (int e = lookup("MPI_Test", *request, s)) return e;
  if (!s) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!s->p2p.complete) instance().progress->test_poll();
  *flag = s->p2p.complete;
  if (!*flag) return MPI_SUCCESS;
  const MPI_Comm comm = s->comm;
  const int error = consume(s, request, status);
  return error ? raise_completion_error("MPI_Test", comm, error) : MPI_SUCCESS;
}
#pragma weak MPI_Test = PMPI_Test

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (int e = check_array("MPI_Waitall", count, requests)) return e;
  SlotList slots(count);
  for (int i = 0; i < count; ++i)
    if (int e = lookup("MPI_Waitall", requests[i], slots[std::size_t(i)])) return e;
  std::size_t next = 0;  // slots before `next` are known complete
  instance().progress->wait_until([&] {
    while (next < slots.size() && (!slots[next] || slots[next]->p2p.complete)) ++next;
    return next == slots.size();
  });
  return consume_all("MPI_Waitall", count, requests, slots, statuses);
}
#pragma weak MPI_Waitall = PMPI_Waitall

int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (int e = check_array("MPI_Testall", count, requests)) return e;
  if (!flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Testall", "flag is NULL");
  SlotList slots(count);
  for (int i = 0; i < count; ++i)
    if (int e = lookup("MPI_Testall", requests[i], slots[std::size_t(i)])) return e;
  instance().progress->test_poll();
  for (auto* s : slots)
    if (s && !s->p2p.complete) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  return consume_all("MPI_Testall", count, requests, slots, statuses);
}
#pragma weak MPI_Testall = PMPI_Testall

int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (int e = check_array("MPI_Waitany", count, requests)) return e;
  if (!index) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Waitany", "index is NULL");
  SlotList slots(count);
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (int e = lookup("MPI_Waitany", requests[i], slots[std::size_t(i)])) return e;
    any_active |= slots[std::size_t(i)] != nullptr;
  }
  if (!any_active) {
    *index = MPI_UNDEFINED;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  int found = -1;
  instance().progress->wait_until([&] {
    for (int i = 0; i < count; ++i)
      if (slots[std::size_t(i)] && slots[std::size_t(i)]->p2p.complete) {
        found = i;
        return true;
      }
    return false;
  });
  *index = found;
  core::RequestSlot* s = slots[std::size_t(found)];
  const MPI_Comm comm = s->comm;
  const int error = consume(s, &requests[found], status);
  return error ? raise_completion_error("MPI_Waitany", comm, error) : MPI_SUCCESS;
}
#pragma weak MPI_Waitany = PMPI_Waitany

int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (int e = check_array("MPI_Testany", count, requests)) return e;
  if (!index || !flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Testany", "index or flag is NULL");
  SlotList slots(count);
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (int e = lookup("MPI_Testany", requests[i], slots[std::size_t(i)])) return e;
    any_active |= slots[std::size_t(i)] != nullptr;
  }
  if (!any_active) {
    *flag = 1;
    *index = MPI_UNDEFINED;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  instance().progress->test_poll();
  for (int i = 0; i < count; ++i) {
    core::RequestSlot* s = slots[std::size_t(i)];
    if (s && s->p2p.complete) {
      *flag = 1;
      *index = i;
      const MPI_Comm comm = s->comm;
      const int error = consume(s, &requests[i], status);
      return error ? raise_completion_error("MPI_Testany", comm, error) : MPI_SUCCESS;
    }
  }
  *flag = 0;
  *index = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
#pragma weak MPI_Testany = PMPI_Testany

static int some(const char* call, bool wait, int incount, MPI_Request requests[], int* outcount, int indices[],
                MPI_Status statuses[]) {
  if (int e = check_array(call, incount, requests)) return e;
  if (!outcount || (incount > 0 && !indices))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "outcount or array_of_indices is NULL");
  SlotList slots(incount);
  bool any_active = false;
  for (int i = 0; i < incount; ++i) {
    if (int e = lookup(call, requests[i], slots[std::size_t(i)])) return e;
    any_active |= slots[std::size_t(i)] != nullptr;
  }
  if (!any_active) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  auto any_done = [&] {
    for (auto* s : slots)
      if (s && s->p2p.complete) return true;
    return false;
  };
  if (wait)
    instance().progress->wait_until(any_done);
  else
    instance().progress->test_poll();
  int n = 0;
  bool failed = false;
  MPI_Comm comm = MPI_COMM_WORLD;
  for (int i = 0; i < incount; ++i) {
    core::RequestSlot* s = slots[std::size_t(i)];
    if (!s || !s->p2p.complete) continue;
    const MPI_Comm c = s->comm;
    const int error = consume(s, &requests[i], status_at(statuses, n));
    if (statuses != MPI_STATUSES_IGNORE) statuses[n].MPI_ERROR = error;
    if (error) {
      failed = true;
      comm = c;
    }
    indices[n++] = i;
  }
  *outcount = n;
  return failed ? raise_error(comm, MPI_ERR_IN_STATUS, call, "at least one request failed; see the statuses")
                : MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some("MPI_Waitsome", true, incount, requests, outcount, indices, statuses);
}
#pragma weak MPI_Waitsome = PMPI_Waitsome

int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some("MPI_Testsome", false, incount, requests, outcount, indices, statuses);
}
#pragma weak MPI_Testsome = PMPI_Testsome

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  require_running("MPI_Request_get_status");
  if (!flag) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Request_get_status", "flag is NULL");
  core::RequestSlot* s;
  if (int e = lookup("MPI_Request_get_status", request, s)) return e;
  if (!s) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!s->p2p.complete) instance().progress->test_poll();
  *flag = s->p2p.complete;
  if (*flag) slot_status(*s, status);
  return MPI_SUCCESS;
}
#pragma weak MPI_Request_get_status = PMPI_Request_get_status

}  // extern "C"
