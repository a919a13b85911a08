#include "mcm/node_segment.hpp"

#include <sys/statvfs.h>

namespace railmpi::mcm {

std::string NodeSegment::name(std::string_view job, std::string_view key) {
  std::string n = "/railmpi-";
  for (char c : job) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    n.push_back(ok ? c : '_');
  }
  n += "-win-";
  n += key;
  return n;
}

NodeSegment NodeSegment::create(std::string_view job, std::string_view key, std::size_t bytes, std::string* error) {
  NodeSegment s;
  // The object's pages are taken as they are first touched, and one the file system has no room
  // for is a SIGBUS then: refuse now what /dev/shm cannot hold (a container's is often 64 MB).
  struct statvfs fs;
  if (::statvfs("/dev/shm", &fs) == 0 && static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < bytes) {
    if (error)
      *error = "/dev/shm has " + std::to_string(static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize) +
               " bytes free, the segment needs " + std::to_string(bytes);
    return s;
  }
  s.mapping_ = device::shm::SharedMapping::create(name(job, key), bytes, error);
  return s;
}

NodeSegment NodeSegment::open(std::string_view job, std::string_view key, std::size_t bytes, std::string* error) {
  NodeSegment s;
  s.mapping_ = device::shm::SharedMapping::open(name(job, key), 0, bytes, error);
  return s;
}

void NodeSegment::remove(std::string_view job, std::string_view key) {
  std::string ignored;
  device::shm::unlink_shared(name(job, key), &ignored);
}

}  // namespace railmpi::mcm
