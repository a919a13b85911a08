// The binding an oversubscribed rank gives itself, and lets go of when other programs crowd its
// core.
//
// With more ranks on a machine than CPUs (RAILMPI_BIND=auto), mpiexec binds none of them. But the
// ranks of one job wait for each other by yielding, and a yield among ranks that the scheduler
// keeps moving between cores more often hands the core to a rank with nothing to do: 8 ranks on
// 2 cores, 1000 x 8 B allreduce (bench/oversub_loop) made 14.9 context switches an allreduce
// unbound and 8.3 bound round robin (perf stat); bench/oversub_ab.sh, 9 interleaved rounds, two
// runs: 8.3 and 8.1 ms unbound, 6.7 and 6.7 ms self-bound (Open MPI 17.0 and 13.4); the ring did
// not change (31.9 -> 28.8 and 27.7 -> 29.3 ms). 4-rank osu_allreduce 4 B-2 KiB: 0.75-0.81 of the
// unbound times. Bound ranks cannot escape a busy program on their core, though: beside one busy
// loop, ranks bound for good took 2.1 s for the allreduce loop against 0.02 s unbound. So each
// rank binds itself at MPI_Init and lets go (back to the mask it started with) once yields show
// another program holding a core (the progress engine: two long yields close together with more
// tasks runnable than the job's ranks awake; every rank of the node then lets go), and the scheduler moves it as before. Letting go costs a one-time
// transient while the scheduler moves the ranks away from the busy core: beside one busy loop,
// 1000 allreduces 13.2 -> 24.1 and 21.1 -> 43.1 ms, 10000 allreduces 144 -> 167 ms.
#pragma once

#include <vector>

namespace railmpi::base {

class SelfBinding {
 public:
  // Binds the calling thread to `cpu` when its affinity mask holds it (mpiexec planned it: see
  // RAILMPI_SELF_BIND_CPU), else to the CPU of rank `index` of `ranks` in blocks over its mask
  // (base::block_position(), as mpiexec plans it), and keeps the mask. False, changing nothing,
  // when the mask has fewer than 2 CPUs, the call fails or this object is already bound.
  bool bind(int index, int ranks, int cpu = -1);
  // Back to the mask bind() kept, for the calling thread and every thread of the process still
  // on the one CPU (threads started after bind() inherited it); true when it was bound (later
  // calls do nothing).
  bool release();

  bool bound() const { return cpu_ >= 0; }
  int cpu() const { return cpu_; }
  // The mask bind() kept (empty before).
  const std::vector<int>& mask() const { return mask_; }

 private:
  std::vector<int> mask_;
  int cpu_ = -1;
};

}  // namespace railmpi::base
