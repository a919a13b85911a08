// Forwarding of a rank's stdout or stderr to mpiexec's: whole lines only, so lines of different
// ranks never mix within a line; optional "[rank] " prefix.
#pragma once

#include <string>
#include <string_view>

namespace railmpi::mpiexec {

class LineForwarder {
 public:
  // `target_fd` is 1 or 2 of mpiexec; `prefix` is "" or "[3] ".
  LineForwarder(int target_fd, std::string prefix);

  // Data read from the rank: complete lines are written now, the rest is kept.
  void feed(std::string_view data);
  // End of stream: writes what is left (with a newline added when prefixing, so the next
  // line from another rank starts on its own line).
  void finish();

 private:
  void emit(std::string_view lines);

  int target_fd_;
  std::string prefix_;
  std::string partial_;
  bool broken_ = false;  // the target is gone (EPIPE): drop output, keep the job running
};

// Writes all of `data` to `fd`, waiting when it is non-blocking and full. False on error.
bool write_fully(int fd, std::string_view data);

}  // namespace railmpi::mpiexec
