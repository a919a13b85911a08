#include "base/runnable_tasks.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>

namespace railmpi::base {

int runnable_tasks_of(std::string_view loadavg) {
  // Three load averages, then "R/T".
  std::size_t at = 0;
  for (int field = 0; field < 3; ++field) {
    at = loadavg.find(' ', at);
    if (at == std::string_view::npos) return -1;
    at = loadavg.find_first_not_of(' ', at);
    if (at == std::string_view::npos) return -1;
  }
  const std::string_view rest = loadavg.substr(at);
  int n = -1;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), n);
  if (ec != std::errc{} || end == rest.data() + rest.size() || *end != '/' || n < 0) return -1;
  return n;
}

RunnableTasks::~RunnableTasks() {
  if (fd_ >= 0) ::close(fd_);
}

int RunnableTasks::count() {
  if (!opened_) {
    opened_ = true;
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (fd_ < 0) return -1;
  char text[128];
  const ssize_t got = ::pread(fd_, text, sizeof text - 1, 0);
  if (got <= 0) return -1;
  return runnable_tasks_of(std::string_view(text, static_cast<std::size_t>(got)));
}

}  // namespace railmpi::base
