// RAII POSIX shared-memory mappings for the shm device.
#pragma once

#include <cstddef>
#include <string>

namespace railmpi::device::shm {

// One mmap()ed window of a POSIX shared-memory object. Move-only; unmaps on destruction.
class SharedMapping {
 public:
  SharedMapping() = default;
  ~SharedMapping() { unmap(); }
  SharedMapping(SharedMapping&& o) noexcept;
  SharedMapping& operator=(SharedMapping&& o) noexcept;
  SharedMapping(const SharedMapping&) = delete;
  SharedMapping& operator=(const SharedMapping&) = delete;

  // Creates object `name` ("/..."), sizes it to `bytes` (sparse: pages cost memory only once
  // touched) and maps all of it. A stale object of the same name is removed first.
  // On failure returns an invalid mapping and sets *error.
  static SharedMapping create(const std::string& name, std::size_t bytes, std::string* error);
  // Maps `bytes` at `offset` (page multiple) of the existing object `name`.
  static SharedMapping open(const std::string& name, std::size_t offset, std::size_t bytes,
                            std::string* error);

  bool valid() const { return data_ != nullptr; }
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  void unmap();

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

// Maps the pages of [at, at + bytes) (page aligned) into this process now, writable, without
// touching their contents (MADV_POPULATE_WRITE): the first lap of a ring then costs no page
// faults in the middle of the traffic. Best effort: false when the kernel cannot (before 5.14).
bool prefault(std::byte* at, std::size_t bytes);

// shm_unlink; false (with *error set) on failure other than "does not exist".
bool unlink_shared(const std::string& name, std::string* error);

}  // namespace railmpi::device::shm
