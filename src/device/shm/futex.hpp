// Futex wait and wake on 32-bit words in memory shared between processes (not FUTEX_PRIVATE).
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>

namespace railmpi::device::shm {

// Sleeps while *addr == expected, at most `timeout`; a wake, a signal or a spurious wake-up may
// end it sooner.
inline void futex_wait(std::uint32_t* addr, std::uint32_t expected, std::chrono::microseconds timeout) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout.count() / 1000000);
  ts.tv_nsec = static_cast<long>((timeout.count() % 1000000) * 1000);
  ::syscall(SYS_futex, addr, FUTEX_WAIT, expected, &ts, nullptr, 0);
}

// Wakes every process sleeping on addr.
inline void futex_wake_all(std::uint32_t* addr) { ::syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0); }

}  // namespace railmpi::device::shm
