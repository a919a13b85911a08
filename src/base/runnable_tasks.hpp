// How many tasks this machine could run right now: the kernel's count of runnable threads, the
// "R" of the "R/T" field of /proc/loadavg (every CPU, the reader included).
//
// The progress engine asks after a yield that took long: a long yield on a virtual machine also
// happens when the host stops the virtual CPU for milliseconds, with nothing else to run in the
// machine; only a count above the ranks that are awake shows another program holding the cores.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace railmpi::base {

// The runnable count of a /proc/loadavg text ("0.52 0.58 0.59 3/245 12345" -> 3); -1 when the
// text is not one.
int runnable_tasks_of(std::string_view loadavg);

class RunnableTasks {
 public:
  // Reads `path` (opened at the first count(); tests give a file of their own).
  explicit RunnableTasks(std::string path = "/proc/loadavg") : path_(std::move(path)) {}
  ~RunnableTasks();
  RunnableTasks(const RunnableTasks&) = delete;
  RunnableTasks& operator=(const RunnableTasks&) = delete;

  // The count now; -1 when the file cannot be read or parsed. One pread (about 1.5 us here).
  int count();

 private:
  std::string path_;
  int fd_ = -1;
  bool opened_ = false;
};

}  // namespace railmpi::base
