#include "device/shm/process_barrier.hpp"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace railmpi::device::shm {
namespace {

long membarrier(int cmd) { return ::syscall(SYS_membarrier, cmd, 0, 0); }

}  // namespace

bool register_for_process_barriers() {
  const long supported = membarrier(MEMBARRIER_CMD_QUERY);
  return supported > 0 && (supported & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0 &&
         membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

void process_barrier() { membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED); }

}  // namespace railmpi::device::shm
