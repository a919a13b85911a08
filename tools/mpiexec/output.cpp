#include "output.hpp"

#include <cerrno>

#include <poll.h>
#include <unistd.h>

namespace railmpi::mpiexec {
namespace {
// A "line" longer than this is written out in pieces rather than held back forever.
constexpr std::size_t kMaxHeldLine = 64 * 1024;
}  // namespace

bool write_fully(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
      continue;
    }
    return false;
  }
  return true;
}

LineForwarder::LineForwarder(int target_fd, std::string prefix)
    : target_fd_(target_fd), prefix_(std::move(prefix)) {}

void LineForwarder::emit(std::string_view lines) {
  if (broken_ || lines.empty()) return;
  if (prefix_.empty()) {
    broken_ = !write_fully(target_fd_, lines);
    return;
  }
  std::string text;
  text.reserve(lines.size() + 16 * prefix_.size());
  std::size_t pos = 0;
  while (pos < lines.size()) {
    std::size_t nl = lines.find('\n', pos);
    std::size_t end = nl == std::string_view::npos ? lines.size() : nl + 1;
    text += prefix_;
    text.append(lines.substr(pos, end - pos));
    pos = end;
  }
  broken_ = !write_fully(target_fd_, text);
}

void LineForwarder::feed(std::string_view data) {
  std::size_t last_nl = data.rfind('\n');
  if (last_nl == std::string_view::npos) {
    partial_.append(data);
    if (partial_.size() >= kMaxHeldLine) {
      if (!prefix_.empty()) partial_.push_back('\n');
      emit(partial_);
      partial_.clear();
    }
    return;
  }
  // Everything up to the last newline is complete lines (with the held partial in front).
  if (partial_.empty()) {
    emit(data.substr(0, last_nl + 1));
  } else {
    partial_.append(data.substr(0, last_nl + 1));
    emit(partial_);
    partial_.clear();
  }
  partial_.assign(data.substr(last_nl + 1));
}

void LineForwarder::finish() {
  if (partial_.empty()) return;
  if (!prefix_.empty()) partial_.push_back('\n');
  emit(partial_);
  partial_.clear();
}

}  // namespace railmpi::mpiexec
