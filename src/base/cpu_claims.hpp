// The machine-wide record of the CPUs that running mpiexec jobs bound ranks to
// (RAILMPI_CPU_CLAIMS), so that a job started while another runs binds its ranks to other CPUs.
//
// Without it two jobs started on one machine both bind from the first CPU of their masks (as Open
// MPI's mpiexec does): two 1-rank compute jobs on 2 cores each took 2.0x the time of one alone,
// one core idle. The record is a folder (default /dev/shm) holding one file per job,
// `railmpi-cpus.<pid>` of the mpiexec that wrote it: its start time and its CPU list. A lock file
// (`railmpi-cpus.lock`, flock) makes reading the others' records and writing one's own one step,
// so jobs started at the same moment still get different CPUs. A record whose process is gone
// (or whose pid now names a process started at another time) is removed by the next reader: a
// killed mpiexec holds nothing. A record also says how many of the job's ranks each CPU runs
// (oversubscribed jobs put several on one), so a job started beside it puts its own ranks where
// fewest run.
#pragma once

#include <string>
#include <vector>

namespace railmpi::base {

class CpuClaims {
 public:
  // The file name prefix of the records and the lock in the folder.
  static constexpr const char* kPrefix = "railmpi-cpus.";

  // Opens the record in `folder` and holds its lock until claim() or destruction. An empty folder,
  // "none", or one that cannot be opened gives a record that holds nothing and reads nothing
  // (usable() false): binding then goes on as if no other job ran.
  explicit CpuClaims(const std::string& folder);
  ~CpuClaims();
  CpuClaims(const CpuClaims&) = delete;
  CpuClaims& operator=(const CpuClaims&) = delete;

  bool usable() const { return lock_fd_ >= 0 || claimed_; }
  // Why the record is not usable ("" when it is).
  const std::string& why_not() const { return why_not_; }

  // CPUs the live jobs of other processes run ranks on, one entry per rank (a CPU with two of
  // their ranks appears twice), in increasing order; removes the records of processes that are
  // gone.
  std::vector<int> held_by_others();

  // Records `cpus`, the CPU of each rank of this process's job (any order; nothing when empty),
  // and releases the lock. Once.
  void claim(const std::vector<int>& cpus);

 private:
  void unlock();

  std::string folder_;
  std::string why_not_;
  int lock_fd_ = -1;
  bool claimed_ = false;
};

// Start time of process `pid` (field 22 of /proc/PID/stat, clock ticks since boot); false when
// it does not exist.
bool process_start_time(int pid, unsigned long long& out);

}  // namespace railmpi::base
