// Typed user buffers on the point-to-point paths. Contiguous types go to the engine as they are
// (buffer + true_lb); other types are packed into a staging buffer before a send, and received
// into one that is unpacked when the receive completes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>

#include "api/checks.hpp"
#include "core/request_table.hpp"

namespace railmpi::api {

inline std::byte* offset_ptr(const void* buf, std::ptrdiff_t off) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(off));
}

// What a send gives the engine; `staging` owns the packed copy (non-contiguous types).
struct SendView {
  const void* ptr = nullptr;
  std::size_t bytes = 0;
  std::unique_ptr<std::byte[]> staging;
};

inline SendView send_view(const void* buf, int count, MPI_Datatype type, const core::TypeInfo& t) {
  SendView v;
  v.bytes = t.size * std::size_t(count);
  if (t.contiguous) [[likely]] {
    v.ptr = t.true_lb ? offset_ptr(buf, t.true_lb) : buf;
    return v;
  }
  v.staging.reset(new std::byte[std::max<std::size_t>(v.bytes, 1)]);
  core::pack(instance().types, buf, std::size_t(count), type, v.staging.get());
  v.ptr = v.staging.get();
  return v;
}

// What a receive gives the engine.
struct RecvView {
  void* ptr = nullptr;
  std::size_t capacity = 0;
  std::unique_ptr<std::byte[]> staging;
};

inline RecvView recv_view(void* buf, int count, const core::TypeInfo& t) {
  RecvView v;
  v.capacity = t.size * std::size_t(count);
  if (t.contiguous) [[likely]] {
    v.ptr = t.true_lb ? offset_ptr(buf, t.true_lb) : buf;
    return v;
  }
  v.staging.reset(new std::byte[std::max<std::size_t>(v.capacity, 1)]);
  v.ptr = v.staging.get();
  return v;
}

// A blocking receive finished: unpack what arrived (at most the capacity).
inline void finish_recv_view(RecvView& v, const p2p::Request& r, void* buf, int count, MPI_Datatype type) {
  if (!v.staging) return;
  if (!r.cancelled) core::unpack(instance().types, v.staging.get(), std::min(r.status_bytes, v.capacity), std::size_t(count), type, buf);
  v.staging.reset();
}

// ---- non-blocking requests ------------------------------------------------------------------------

// Unpacks (receives) and frees the staging buffer of a completed slot; drops the datatype
// reference of a non-persistent request. Runs once per completion.
inline void finish_staging(core::RequestSlot& s) {
  if (s.staging) {
    if (s.op == core::RequestOp::recv && !s.p2p.cancelled)
      core::unpack(instance().types, s.staging, std::min(s.p2p.status_bytes, s.staging_bytes), std::size_t(s.staging_count),
                   s.datatype, s.user_buf);
    delete[] s.staging;
    s.staging = nullptr;
  }
  if (s.holds_type && !s.persistent) {
    s.holds_type = false;
    core::dtype::release(instance().types, s.datatype);
  }
}

// Drops everything a slot holds (before it is released).
inline void drop_slot_resources(core::RequestSlot& s) {
  finish_staging(s);
  if (s.holds_type) {
    s.holds_type = false;
    core::dtype::release(instance().types, s.datatype);
  }
}

inline void staging_complete(p2p::Request& r) { finish_staging(*static_cast<core::RequestSlot*>(r.owner)); }

// A derived type used by a pending request stays alive while the request needs it (receives
// unpack with it at completion; persistent requests use it at every MPI_Start).
inline void hold_type(core::RequestSlot& s, MPI_Datatype type, const core::TypeInfo& t) {
  s.datatype = type;
  if (t.derived && !s.holds_type) {
    core::dtype::retain(instance().types, type);
    s.holds_type = true;
  }
}

// Prepares a slot's receive into (buf, count, type): returns the engine's buffer and capacity.
inline void* slot_recv_buffer(core::RequestSlot& s, void* buf, int count, MPI_Datatype type, const core::TypeInfo& t,
                              std::size_t& capacity) {
  capacity = t.size * std::size_t(count);
  if (t.contiguous) [[likely]]
    return t.true_lb ? offset_ptr(buf, t.true_lb) : buf;
  hold_type(s, type, t);
  s.staging = new std::byte[std::max<std::size_t>(capacity, 1)];
  s.staging_bytes = capacity;
  s.staging_count = count;
  s.user_buf = buf;
  s.p2p.on_complete = &staging_complete;
  return s.staging;
}

// Prepares a slot's send of (buf, count, type): packs non-contiguous data into the slot's staging.
inline const void* slot_send_buffer(core::RequestSlot& s, const void* buf, int count, MPI_Datatype type,
                                    const core::TypeInfo& t, std::size_t& bytes) {
  bytes = t.size * std::size_t(count);
  if (t.contiguous) [[likely]]
    return t.true_lb ? offset_ptr(buf, t.true_lb) : buf;
  s.staging = new std::byte[std::max<std::size_t>(bytes, 1)];
  s.staging_bytes = bytes;
  s.staging_count = count;
  core::pack(instance().types, buf, std::size_t(count), type, s.staging);
  s.p2p.on_complete = &staging_complete;
  return s.staging;
}

}  // namespace railmpi::api
