// One open file of the file system: reads and writes at byte offsets (whole, retried across
// short transfers and interrupts), size, truncation, preallocation, sync. Errors are errno values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace railmpi::io {

class PosixFile {
 public:
  PosixFile() = default;
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;
  PosixFile(PosixFile&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  PosixFile& operator=(PosixFile&& other) noexcept;
  ~PosixFile() { close(); }

  enum class Access { read, write, read_write };
  struct Mode {
    Access access = Access::read_write;
    bool create = false;
    bool exclusive = false;  // with create: fail when the file exists
  };
  // Opens `path`; 0 or an errno value.
  int open(const std::string& path, Mode mode);
  // 0 or an errno value of close(2).
  int close();
  bool is_open() const { return fd_ >= 0; }

  // Reads up to out.size() bytes at `offset`: fewer only at the end of the file. Sets `done` to
  // the bytes read; returns 0 or an errno value.
  int read_at(std::uint64_t offset, std::span<std::byte> out, std::size_t& done) const;
  // Writes all of `in` at `offset`; sets `done`; returns 0 or an errno value.
  int write_at(std::uint64_t offset, std::span<const std::byte> in, std::size_t& done) const;

  int size(std::uint64_t& bytes) const;
  int truncate(std::uint64_t bytes) const;
  // Makes the file at least `bytes` long with its blocks allocated (never shrinks it).
  int preallocate(std::uint64_t bytes) const;
  int sync() const;

  // Holds a byte-range lock of the file system (fcntl) on [offset, offset + bytes) for other
  // processes: shared for readers, exclusive for writers; waits for conflicting holders.
  int lock(std::uint64_t offset, std::uint64_t bytes, bool exclusive) const;
  int unlock(std::uint64_t offset, std::uint64_t bytes) const;

 private:
  int fd_ = -1;
};

// Removes the file at `path`; 0 or an errno value.
int remove_file(const std::string& path);

}  // namespace railmpi::io
