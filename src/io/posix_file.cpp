#include "io/posix_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace railmpi::io {

PosixFile& PosixFile::operator=(PosixFile&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

int PosixFile::open(const std::string& path, Mode mode) {
  close();
  int flags = O_CLOEXEC;
  switch (mode.access) {
    case Access::read: flags |= O_RDONLY; break;
    case Access::write: flags |= O_WRONLY; break;
    case Access::read_write: flags |= O_RDWR; break;
  }
  if (mode.create) flags |= O_CREAT;
  if (mode.create && mode.exclusive) flags |= O_EXCL;
  int fd;
  do {
    fd = ::open(path.c_str(), flags, 0666);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  fd_ = fd;
  return 0;
}

int PosixFile::close() {
  if (fd_ < 0) return 0;
  const int rc = ::close(fd_);
  fd_ = -1;
  return rc == 0 ? 0 : errno;
}

int PosixFile::read_at(std::uint64_t offset, std::span<std::byte> out, std::size_t& done) const {
  done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) break;  // end of file
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

int PosixFile::write_at(std::uint64_t offset, std::span<const std::byte> in, std::size_t& done) const {
  done = 0;
  while (done < in.size()) {
    const ssize_t n = ::pwrite(fd_, in.data() + done, in.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

int PosixFile::size(std::uint64_t& bytes) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return errno;
  bytes = static_cast<std::uint64_t>(st.st_size);
  return 0;
}

int PosixFile::truncate(std::uint64_t bytes) const {
  while (::ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

int PosixFile::preallocate(std::uint64_t bytes) const {
  if (bytes == 0) return 0;
  const int rc = ::posix_fallocate(fd_, 0, static_cast<off_t>(bytes));
  if (rc == 0) return 0;
  if (rc != EOPNOTSUPP && rc != EINVAL) return rc;
  // A file system without fallocate: grow the file (its blocks come at the first write).
  std::uint64_t now = 0;
  if (int e = size(now)) return e;
  return now < bytes ? truncate(bytes) : 0;
}

int PosixFile::sync() const { return ::fsync(fd_) == 0 ? 0 : errno; }

namespace {

int range_lock(int fd, short type, std::uint64_t offset, std::uint64_t bytes) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = static_cast<off_t>(offset);
  l.l_len = static_cast<off_t>(bytes);
  while (::fcntl(fd, F_SETLKW, &l) != 0) {
    if (errno != EINTR) return errno;
  }
  return 0;
}

}  // namespace

int PosixFile::lock(std::uint64_t offset, std::uint64_t bytes, bool exclusive) const {
  return range_lock(fd_, exclusive ? F_WRLCK : F_RDLCK, offset, bytes);
}

int PosixFile::unlock(std::uint64_t offset, std::uint64_t bytes) const { return range_lock(fd_, F_UNLCK, offset, bytes); }

int remove_file(const std::string& path) { return ::unlink(path.c_str()) == 0 ? 0 : errno; }

}  // namespace railmpi::io
