#include "device/shm/segment.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace railmpi::device::shm {
namespace {

std::string errno_text(const char* what, const std::string& name, int err) {
  return std::string(what) + " " + name + ": " + std::strerror(err);
}

std::byte* map_fd(int fd, std::size_t offset, std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd,
                   static_cast<off_t>(offset));
  return p == MAP_FAILED ? nullptr : static_cast<std::byte*>(p);
}

}  // namespace

SharedMapping::SharedMapping(SharedMapping&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

SharedMapping& SharedMapping::operator=(SharedMapping&& o) noexcept {
  if (this != &o) {
    unmap();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

void SharedMapping::unmap() {
  if (data_) ::munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
}

SharedMapping SharedMapping::create(const std::string& name, std::size_t bytes,
                                    std::string* error) {
  SharedMapping m;
  int fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0 && errno == EEXIST) {  // left over by a crashed job with the same id
    ::shm_unlink(name.c_str());
    fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  }
  if (fd < 0) {
    if (error) *error = errno_text("shm_open", name, errno);
    return m;
  }
  if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    if (error) *error = errno_text("ftruncate", name, errno);
    ::close(fd);
    ::shm_unlink(name.c_str());
    return m;
  }
  m.data_ = map_fd(fd, 0, bytes);
  int err = errno;
  ::close(fd);
  if (!m.data_) {
    if (error) *error = errno_text("mmap", name, err);
    ::shm_unlink(name.c_str());
    return m;
  }
  m.size_ = bytes;
  return m;
}

SharedMapping SharedMapping::open(const std::string& name, std::size_t offset, std::size_t bytes,
                                  std::string* error) {
  SharedMapping m;
  int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    if (error) *error = errno_text("shm_open", name, errno);
    return m;
  }
  m.data_ = map_fd(fd, offset, bytes);
  int err = errno;
  ::close(fd);
  if (!m.data_) {
    if (error) *error = errno_text("mmap", name, err);
    return m;
  }
  m.size_ = bytes;
  return m;
}

bool unlink_shared(const std::string& name, std::string* error) {
  if (::shm_unlink(name.c_str()) == 0 || errno == ENOENT) return true;
  if (error) *error = errno_text("shm_unlink", name, errno);
  return false;
}

bool prefault(std::byte* at, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  return ::madvise(at, bytes, MADV_POPULATE_WRITE) == 0;
#else
  (void)at;
  (void)bytes;
  return false;
#endif
}

}  // namespace railmpi::device::shm
