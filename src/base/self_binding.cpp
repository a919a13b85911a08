#include "base/self_binding.hpp"

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

#include "base/binding.hpp"
#include "base/cpus.hpp"

namespace railmpi::base {

bool SelfBinding::bind(int index, int ranks, int planned) {
  if (bound() || index < 0) return false;
  std::vector<int> mask = affinity_cpus();
  if (mask.size() < 2) return false;
  const int cpu = std::find(mask.begin(), mask.end(), planned) != mask.end()
                      ? planned
                      : mask[static_cast<std::size_t>(block_position(index, ranks, static_cast<int>(mask.size())))];
  if (!set_affinity_cpus({&cpu, 1})) return false;
  mask_ = std::move(mask);
  cpu_ = cpu;
  return true;
}

bool SelfBinding::release() {
  if (!bound()) return false;
  // Threads the rank started after bind() inherited the one CPU (an OpenMP team): they go back
  // to the mask too, the ones a program bound elsewhere keep theirs. Should a call fail, that
  // thread stays bound: nothing else to do.
  if (DIR* tasks = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(tasks)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(e->d_name));
      if (tid <= 0) continue;
      cpu_set_t now;
      CPU_ZERO(&now);
      if (::sched_getaffinity(tid, sizeof now, &now) == 0 && CPU_COUNT(&now) == 1 && CPU_ISSET(cpu_, &now))
        set_thread_affinity_cpus(tid, mask_);
    }
    ::closedir(tasks);
  }
  set_affinity_cpus(mask_);  // this thread, whatever /proc said
  cpu_ = -1;
  return true;
}

}  // namespace railmpi::base
