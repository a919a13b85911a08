// Typed user buffers on the point-to-point paths. Contiguous types go to the engine as they are
// (buffer + true_lb); other types go as their layout (base::Layout), so that received bytes land in
// the user's buffer directly and a single-copy receiver reads a sender's runs directly (zero copy).
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

// What a send gives the engine: a contiguous buffer, or the layout of a non-contiguous one (a
// single-copy receiver then reads the runs, or the device gathers them: no pack).
struct SendView {
  const void* ptr = nullptr;
  std::size_t bytes = 0;
  base::Layout layout;
  bool gathered = false;
  const base::Layout* source() const { return gathered ? &layout : nullptr; }
};

// The first byte of a contiguous type's data.
inline const void* contiguous_start(const void* buf, const core::TypeInfo& t) {
  return t.true_lb ? offset_ptr(buf, t.true_lb) : buf;
}

inline SendView send_view(const void* buf, int count, MPI_Datatype type, const core::TypeInfo& t) {
  SendView v;
  v.bytes = t.size * std::size_t(count);
  if (t.contiguous) [[likely]] {
    v.ptr = contiguous_start(buf, t);
    return v;
  }
  v.gathered = core::layout_of(instance().types, buf, std::size_t(count), type, v.layout);
  v.ptr = nullptr;
  return v;
}

// Contiguous bytes of a typed buffer (buffered sends copy them into the attached buffer).
struct PackedView {
  const void* ptr = nullptr;
  std::size_t bytes = 0;
  std::unique_ptr<std::byte[]> staging;
};

inline PackedView packed_view(const void* buf, int count, MPI_Datatype type, const core::TypeInfo& t) {
  PackedView v;
  v.bytes = t.size * std::size_t(count);
  if (t.contiguous) [[likely]] {
    v.ptr = contiguous_start(buf, t);
    return v;
  }
  v.staging.reset(new std::byte[std::max<std::size_t>(v.bytes, 1)]);
  core::pack(instance().types, buf, std::size_t(count), type, v.staging.get());
  v.ptr = v.staging.get();
  return v;
}

// What a receive gives the engine: a contiguous buffer, or the layout of a non-contiguous one.
struct RecvView {
  void* ptr = nullptr;
  std::size_t capacity = 0;
  base::Layout layout;
  bool scattered = false;
  const base::Layout* target() const { return scattered ? &layout : nullptr; }
};

inline RecvView recv_view(void* buf, int count, MPI_Datatype type, const core::TypeInfo& t) {
  RecvView v;
  v.capacity = t.size * std::size_t(count);
  if (t.contiguous) [[likely]] {
    v.ptr = const_cast<void*>(contiguous_start(buf, t));
    return v;
  }
  v.scattered = core::layout_of(instance().types, buf, std::size_t(count), type, v.layout);
  v.ptr = buf;
  return v;
}

// ---- non-blocking requests ------------------------------------------------------------------------

// Drops the datatype reference of a completed non-persistent request. Runs once per completion.
inline void finish_typed(core::RequestSlot& s) {
  if (s.holds_type && !s.persistent) {
    s.holds_type = false;
    core::dtype::release(instance().types, s.datatype);
  }
}

// Drops everything a slot holds (before it is released).
inline void drop_slot_resources(core::RequestSlot& s) {
  finish_typed(s);
  if (s.holds_type) {
    s.holds_type = false;
    core::dtype::release(instance().types, s.datatype);
  }
}

inline void typed_complete(p2p::Request& r) { finish_typed(*static_cast<core::RequestSlot*>(r.owner)); }

// A derived type used by a pending request stays alive while the request needs it (its layout
// points into the type; persistent requests use it at every MPI_Start).
inline void hold_type(core::RequestSlot& s, MPI_Datatype type, const core::TypeInfo& t) {
  s.datatype = type;
  if (t.derived && !s.holds_type) {
    core::dtype::retain(instance().types, type);
    s.holds_type = true;
  }
}

// Prepares a slot's transfer of (buf, count, type): returns the first byte of a contiguous type's
// data, or nullptr for a non-contiguous type, whose layout is kept in the slot (slot_layout()) and
// whose type is held until completion. `bytes` is the message size (receives: the capacity).
inline const void* slot_typed_buffer(core::RequestSlot& s, const void* buf, int count, MPI_Datatype type,
                                     const core::TypeInfo& t, std::size_t& bytes) {
  bytes = t.size * std::size_t(count);
  s.scattered = false;
  if (t.contiguous) [[likely]]
    return contiguous_start(buf, t);
  hold_type(s, type, t);
  s.scattered = core::layout_of(instance().types, buf, std::size_t(count), type, s.layout);
  s.p2p.on_complete = &typed_complete;  // drops the type reference at completion
  return nullptr;
}

// The same for a receive: the engine's buffer (the user's buffer when a layout is used).
inline void* slot_recv_buffer(core::RequestSlot& s, void* buf, int count, MPI_Datatype type, const core::TypeInfo& t,
                              std::size_t& capacity) {
  const void* p = slot_typed_buffer(s, buf, count, type, t, capacity);
  return const_cast<void*>(p ? p : buf);
}

inline const base::Layout* slot_layout(const core::RequestSlot& s) { return s.scattered ? &s.layout : nullptr; }

}  // namespace railmpi::api
