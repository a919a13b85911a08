// The PMI server's TCP endpoint, for ranks that cannot inherit a socket (ssh launcher): they
// connect to PMI_PORT=ip:port and say who they are with "cmd=initack pmiid=RANK".
#pragma once

#include <string>

#include "unique_fd.hpp"

namespace railmpi::mpiexec {

class PmiListener {
 public:
  // Listens on `address` (IPv4; "" = this namespace's first non-loopback IPv4 address that is
  // up), on a port the kernel picks. On failure valid() is false and error() says why.
  explicit PmiListener(const std::string& address);

  bool valid() const { return fd_.valid(); }
  const std::string& error() const { return error_; }
  int fd() const { return fd_.get(); }
  // "ip:port", the value of PMI_PORT.
  const std::string& endpoint() const { return endpoint_; }

  // A connection waiting on the socket (non-blocking, close-on-exec), or an invalid fd.
  UniqueFd accept_one();

 private:
  UniqueFd fd_;
  std::string endpoint_;
  std::string error_;
};

}  // namespace railmpi::mpiexec
