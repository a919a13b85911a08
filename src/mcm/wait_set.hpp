// Waiting on several descriptors at once (the tcp channels' epoll sets): an epoll set of them.
#pragma once

#include <chrono>
#include <span>

namespace railmpi::mcm {

class WaitSet {
 public:
  WaitSet() = default;
  ~WaitSet();
  WaitSet(const WaitSet&) = delete;
  WaitSet& operator=(const WaitSet&) = delete;

  // Adds a descriptor that becomes readable when there is work (level-triggered); `id` names it
  // in ready().
  void add(int fd, int id);
  // Returns when one of the descriptors is readable or `timeout` passes.
  void wait(std::chrono::microseconds timeout) const;
  // Without waiting: the ids of up to out.size() readable descriptors; returns how many.
  int ready(std::span<int> out) const;

 private:
  int epoll_fd_ = -1;
};

}  // namespace railmpi::mcm
