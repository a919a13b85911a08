// The progress engine: polls the devices, and waits without burning a core.
//
// Waiting spins for RAILMPI_SPIN_COUNT polls (and at least RAILMPI_SPIN_TIME, see below), then
// yields the core up to RAILMPI_YIELD_COUNT times after the last arrival (a peer sharing this
// core gets to run; with a core per rank, for kAwakeAfterArrival at least), then sleeps in the
// devices' wait() (oversubscribed or idle ranks use no CPU; a sender wakes a sleeping rank).
//
// Yielding is how ranks of one job share cores well: a yield among them returns within
// microseconds, and a rank that is asleep when its message comes costs a wake-up (on a virtual
// machine an interrupt to a halted core takes tens of microseconds). When other programs keep the
// cores busy, a yield hands the core to one of them for its whole time slice, and a rank that
// keeps yielding runs last (EEVDF pushes a yielding task's deadline back): then a woken sleeper is
// served first. So when this machine runs more ranks than this rank has cores, yields that show
// other programs (yield_shows_crowding(): long, close together, and more tasks runnable than the
// job's ranks awake; a virtual machine's host stopping the CPU makes long yields too, in bursts:
// so the evidence must also come at moments spread over 20 ms at least, CrowdingEvidence) end the
// yielding, and for kCrowdedFor the waits of this rank sleep right after spinning
// (bench/oversub_loop ring, 8 ranks on 2 cores beside other busy programs, load 5-7, medians of
// 15 interleaved runs: 0.080 s instead of 0.129 s; Open MPI 0.171 s).
// kLongYield (500 us) lies between the two causes of a long yield: a busy program gets at least
// the scheduler's smallest slice (0.75 ms on one CPU, more with more CPUs), while the job's own
// ranks on the core seldom hold it that long. In the 8-rank ring on 2 cores without other
// programs, most yields took 8-16 us; each rank saw 0-9 of 128-256 us and 0-2 of 256-512 us (a
// 64 KiB copy into a ring page touched for the first time, 3 us a page on this machine), and with
// a 200 us threshold each of those put the rank to sleep for 10 ms: ring medians of 9
// interleaved runs 0.0525 s with 200 us, 0.0495 with 450, 0.0488 with 700 (Open MPI 0.0412);
// beside 3 busy programs, 11 runs, 0.69 s with 200 and 0.63 with 500 (Open MPI 12 s). With a
// core per rank, waits keep yielding: a yielding rank is still runnable on its core, a sleeping
// one needs an interrupt to wake (2 ranks beside busy programs, 8 B allreduce: 3 us yielding,
// 17 us sleeping). Beside one busy program (bench/busy_neighbour.sh, osu_latency 0-8 B, 2 ranks),
// ranks bound to a core each (mpiexec's default when ranks <= cores) took 0.10 us a message, and
// 0.18 when they also spun 10 ms before yielding (RAILMPI_SPIN_TIME=10000); unbound ranks took
// 3-5 us, and 0.18 spinning 10 ms, but unbound ranks that the scheduler put on one core then
// take a time slice a message (4 ms) instead of 13 us: so no spin time unless set.
//
// A rank alone on its core (bound to one CPU, the machine not oversubscribed) has only other
// programs to yield to: a yield that takes kLongYield or longer shows one sharing the core, and
// for kKeepCoreFor its waits poll where they would yield (the scheduler still shares the core
// fairly, as with MPICH and Open MPI, whose ranks spin). Beside one busy loop, 2 ranks,
// tests/mpi/noncontig_send -m 300000 (every wait for the peer's credits handed the busy loop the
// core for a slice): 1.9 s yielding, 0.9 s keeping the core (or spinning 10 ms before yielding,
// RAILMPI_SPIN_TIME=10000), Open MPI 1.0; bench/busy_neighbour.sh medians, 0-8 B latency 0.62 us
// -> 0.17-0.24, osu_bw 4-64 KiB 9.4-11.6 -> 11.1-12.8 GB/s (Open MPI 0.55-0.66 us, 4.1-5.2 GB/s).
//
// Oversubscribed ranks bind themselves, in blocks or pairs (bind_while_uncrowded, base/binding.hpp):
// bound, a yield among them reaches a rank of the job on the same core, not one the scheduler just
// moved, and a wait for a rank bound to the same CPU sleeps at once (wait_until(done, peer)); a
// crowding seen in the yields lets every rank of the node go again.
#pragma once

#include <sched.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/cache_hint.hpp"
#include "base/cpus.hpp"
#include "base/log.hpp"
#include "base/runnable_tasks.hpp"
#include "base/self_binding.hpp"
#include "base/settings.hpp"
#include "base/ticks.hpp"
#include "mcm/multi_method.hpp"
#include "progress/crowding_evidence.hpp"
#include "progress/mate_waits.hpp"
#include "progress/poll_spacing.hpp"
#include "progress/yield_clock.hpp"

namespace railmpi::progress {

class Engine {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds kLongYield{500};
  static constexpr std::chrono::milliseconds kCrowdedFor{10};
  // With a core per rank, a wait yields at least this long after the last arrival before it
  // sleeps.
  static constexpr std::chrono::microseconds kAwakeAfterArrival{1000};
  // How long a rank alone on its core keeps it after a long yield (then it yields again, and a
  // program still there costs one more time slice).
  static constexpr std::chrono::milliseconds kKeepCoreFor{100};

  Engine(mcm::MultiMethod& mcm, const base::Settings& settings)
      : Engine(mcm, settings, base::oversubscribed(mcm.machine_ranks(), settings.machine_cpus),
               base::affinity_cpus().size() == 1) {}
  // `oversubscribed`: more ranks on this machine than the CPUs they share (not this rank's own
  // mask: a rank bound to one core sees one CPU). `one_cpu`: this rank may run on one CPU only.
  Engine(mcm::MultiMethod& mcm, const base::Settings& settings, bool oversubscribed, bool one_cpu = false)
      : mcm_(mcm),
        spin_(settings.spin_count),
        yield_(settings.yield_count),
        spin_time_(static_cast<std::int64_t>(settings.spin_time_us)),
        spacing_(settings.spin_pauses == base::Settings::kAutomatic
                     ? PollSpacing()
                     : PollSpacing(static_cast<unsigned>(settings.spin_pauses))),
        oversubscribed_(oversubscribed),
        alone_on_core_(one_cpu && !oversubscribed),
        verbose_(settings.verbose > 0) {}

  // On an oversubscribed machine, binds this rank to the CPU at `machine_index` (its position
  // among the machine's ranks) in blocks over its mask (base::block_position()), and tells the
  // node's ranks so, until yields show another program
  // holding a core (base/self_binding.hpp): the rank whose yields show it first (see
  // yield_shows_crowding()) sets the node's crowded word, and every bound rank lets go at its
  // next yield: ranks on a core no program crowds would otherwise stay pinned while the scheduler moves the others
  // (measured beside one busy loop, 8 ranks, 2 cores, 1000 x 8 B allreduce: 25.3 ms with each
  // rank letting go for itself, 24.1 with the word, against 14.5 and 13.2 unbound in the same
  // rounds; the transient is the scheduler's either way). False, changing nothing, when not
  // oversubscribed or the rank cannot bind (its mask has one CPU, the kernel refuses).
  // `cpu`: the CPU mpiexec planned for this rank (RAILMPI_SELF_BIND_CPU), -1 for none.
  bool bind_while_uncrowded(int machine_index, int cpu = -1) {
    if (!oversubscribed_ || !binding_.bind(machine_index, mcm_.machine_ranks(), cpu)) return false;
    mate_waits_.reset(std::size_t(mcm_.job_size()));  // before any wait for a CPU mate
    crowded_word_ = mcm_.node_memory().crowded_word();
    mcm_.set_cpu(binding_.cpu());
    return true;
  }
  const base::SelfBinding& binding() const { return binding_; }

  // The spacing of the spinning waits' polls, as measured so far.
  const PollSpacing& poll_spacing() const { return spacing_; }
  // Yields of the core made so far (by waits and test_poll()).
  std::uint64_t yields() const { return yields_; }
  // Sleeps in the devices' wait made so far by waits.
  std::uint64_t sleeps() const { return sleeps_; }
  // Those of them made by waits for a rank bound to this rank's CPU (wait_until(done, peer)).
  std::uint64_t cpu_mate_sleeps() const { return cpu_mate_sleeps_; }
  // Waits across CPUs that polled for an answer one hand-over away (spin_while_answer_near()).
  std::uint64_t near_spins() const { return near_spins_; }
  // Least time a wait polls before it yields or sleeps.
  std::chrono::microseconds spin_time() const { return spin_time_; }
  // Polls between two clock reads while spinning for spin_time().
  static constexpr unsigned kPollsPerClockRead = 64;

  // Whether a yield that took `took` may show other programs holding the cores (others_runnable()
  // tells whether it does).
  static bool yield_was_long(Clock::duration took) { return took >= kLongYield; }

  // Whether `runnable` tasks on the machine (-1: unknown) are more than the node's `ranks` that
  // are not `asleep`: then a program other than the job's ranks wants a CPU. A long yield alone
  // does not show one: the host of a virtual machine stops its CPUs for milliseconds now and then,
  // and a yield then takes that long with nothing else to run (8 ranks on 2 cores, the ring of
  // bench/oversub_loop, in a phase where this machine's host was busy: yields of 0.5-4 ms in most
  // runs, each making the ranks let go of their binding and sleep; ring 0.10-1.7 s against
  // 0.039 s in the runs without one). The count alone errs the other way now and then: a kernel
  // thread is runnable for a moment, and a rank woken from its sleep is runnable before it counts
  // itself awake (2 runs of 25 where every rank let go): yield_shows_crowding() asks for two long
  // yields close together too.
  static bool others_runnable(int runnable, int ranks, int asleep) {
    return runnable < 0 || runnable > ranks - asleep;
  }
  // Long yields taken as the host stopping this CPU, not as other programs on the cores (see
  // yield_shows_crowding()).
  std::uint64_t stalls() const { return stalls_; }
  // Reads the runnable count from `path` instead of /proc/loadavg (tests).
  void count_runnable_from(std::string path) { runnable_ = std::make_unique<base::RunnableTasks>(std::move(path)); }

  // Yields a wait starting now may make before it sleeps: none while the cores are crowded.
  unsigned yields_now() const { return crowded_until_ > Clock::now() ? 0 : yield_; }

  // The decision in force: more ranks on this machine than the CPUs they share.
  bool oversubscribed() const { return oversubscribed_; }

  // Yields the core once (a rank alone on its core polls instead for kKeepCoreFor after a long
  // yield); false (and the cores count as crowded for kCrowdedFor) when the yield
  // on an oversubscribed machine showed crowding that lasts (yield_shows_crowding() at
  // CrowdingEvidence's moments): the caller should stop yielding and sleep. A rank
  // bound by bind_while_uncrowded() lets go of its binding then. Every yield of the library's
  // waits goes through here.
  bool yield_core() {
    if (!oversubscribed_) {
      if (alone_on_core_) {
        keep_or_yield_core();
      } else {
        ++yields_;
        sched_yield();
      }
      return true;
    }
    ++yields_;
    const std::uint64_t k0 = base::ticks();
    sched_yield();
    const std::uint64_t k1 = base::ticks();
    Clock::duration took{};
    Clock::time_point t1{};  // read only when the yield may have been long
    if (yield_clock_.maybe_long(k1 - k0)) [[unlikely]] {
      t1 = Clock::now();
      took = yield_clock_.length(k1 - k0, k1, t1);
    }
    if (!yield_shows_crowding(took) || !crowding_.seen(t1)) {
      if (binding_.bound() && crowded_word_ && std::atomic_ref(*crowded_word_).load(std::memory_order_relaxed))
        [[unlikely]] let_go_of_binding(nullptr);
      return true;
    }
    crowded_until_ = t1 + kCrowdedFor;
    if (binding_.bound()) [[unlikely]] {
      if (crowded_word_) std::atomic_ref(*crowded_word_).store(1, std::memory_order_relaxed);
      const auto took_us = std::chrono::duration_cast<std::chrono::microseconds>(took);
      let_go_of_binding(&took_us);
    }
    return false;
  }

  // One pass over every device, then the upper layers' deferred work (collective schedules whose
  // round finished). Returns the number of events.
  int poll() { return with_hooks(mcm_.poll()); }

  // poll() of the devices' channel from job rank `peer` only, then the upper layers' deferred work.
  int poll_peer(int peer) { return with_hooks(mcm_.poll_peer(peer)); }

  // One poll for a caller that tests and comes back (MPI_Test, MPI_Iprobe loops): after spin_
  // polls in a row that found nothing, the core is yielded once, so a rank looping on MPI_Test
  // on an oversubscribed node lets the ranks it waits for run.
  int test_poll() {
    const int n = poll();
    if (n > 0) {
      idle_tests_ = 0;
    } else if (++idle_tests_ >= spin_) {
      idle_tests_ = 0;
      yield_core();
    }
    return n;
  }

  // Work an upper layer defers out of device callbacks: run after a device pass while *armed is
  // true (a plain flag test on the hot path; no call when there is nothing to do). The hook
  // returns how many events it handled. One slot per upper layer that defers work.
  enum class HookSlot { point_to_point, collectives, rma };  // poll() tests the slots' flags
  void set_hook(HookSlot slot, int (*hook)(void* ctx), void* ctx, const bool* armed) {
    hooks_[static_cast<int>(slot)] = Hook{hook, ctx, hook ? armed : &kNever};
  }

  // Polls until done() holds, when only job rank `peer` (-1: any) can make it hold: a message
  // from it, an answer to one sent to it. On an oversubscribed node, when `peer` is bound to this
  // rank's CPU and so is a third rank, the wait may sleep at once instead of yielding
  // (wait_for_cpu_mate()): when most of the last waits for that peer outlasted
  // MateWaits::kQuickYields yields (a token passed around: the peer gets it long after). When
  // its messages come sooner (every rank has work: a shift, Send to the right then Recv from the
  // left), yielding hands the CPU round more cheaply than sleeps and wakes (each wake preempts the
  // sender: 8 ranks on 2 cores, 10000 shifts, bench/oversub_loop shift, 0.118 s sleeping at once
  // against 0.031 yielding). Each yield of a rank lets the CPU's other ranks run: the shift's
  // waits that a poll found unfinished ended after 1 yield (66%) or 2 (29%), seldom 3 or 4; the
  // ring's after 3-6 (90% more than 2), so a wait of more than MateWaits::kQuickYields (3) counts as
  // long. 8 ranks on 2 cores, interleaved medians of 7 runs, both rules asking for the last 2
  // waits long, against the rule before (long: more than 2 rounds of the CPU's ranks, 6 yields,
  // which the ring's waits seldom took; sleeps of kLongestSlice): ring 0.0187 against 0.0267 s
  // (Open MPI 0.0302; 2 yields and 2 ms sleeps: 0.0204 against 0.0254), 10000 shifts 0.0275
  // against 0.0265 (Open MPI 0.0258; 9 runs more: 0.0284 / 0.0257 against 0.0244 / 0.0253); with
  // 2 yields, ring 0.0184 and shift 0.0300. A wait also sleeps at once, or stops yielding, when
  // the peer waits for a rank that waits for a third with nothing come to any of them
  // (peer_waits_long(): its message is several handovers away). That is the ring's case, and it
  // catches what the history misses: with three ranks of a CPU yielding, each yield took ~27 us
  // and one CPU mate's waits ended within kQuickYields, so that rank yielded first in 91-98% of
  // its waits (11000 yields in 5000 rounds; 20-45 with the chain). The shift's chains are short.
  // 8 ranks on 2 cores, interleaved medians of 21 runs against the history alone (slow phase of
  // the host): ring 0.0728 against 0.0825 s (0.88), 10000 shifts 0.1849 against 0.1802 (1.03),
  // 11 runs of 1000 allreduces 0.99; with chains of 2 ring 0.83 and shift 0.99, of 1 (the peer
  // alone) 0.86 and 1.08. With two ranks on the CPU a
  // yield hands it to the peer already, and costs less than a sleep and a wake (3 ranks on 2
  // cores, the ring of bench/oversub_loop: 0.0077 s sleeping against 0.0054 yielding).
  template <class Done>
  void wait_until(Done&& done, int peer) {
    if (peer >= 0 && binding_.bound() && mcm_.shares_cpu(peer)) {
      const int mates = mcm_.cpu_mates();
      if (mates >= 2) {
        if (done()) return;
        if (tell_awaiting_and_poll(done, peer)) return;
        const MateWaits::Start how = peer_waits_long(peer) ? MateWaits::Start{false, false} : mate_waits_.start(peer);
        if (how.yield_first) {
          int yields = -1;  // -1: not done within its yields
          std::uint32_t bell = ~std::uint32_t{0};
          for (int i = 0; i < mates * kMateYieldRounds; ++i) {
            const bool go_on = yield_core();
            if (poll_after_yield(peer, bell) > 0 && done()) {
              yields = i + 1;
              break;
            }
            if (!go_on || peer_waits_long(peer)) break;
          }
          mate_waits_.ended(peer, how, yields);
          if (yields >= 0) {
            mcm_.end_awaiting();
            return;
          }
        }
        mcm_.end_awaiting();
        if (wait_for_cpu_mate(done, peer)) return;
      }
    }
    wait_polling(done, peer);
  }

  // Polls until done() holds.
  template <class Done>
  void wait_until(Done&& done) {
    wait_polling(done, -1);
  }

 private:
  // wait_until(): `awaited` the job rank whose message or answer ends the wait, -1 any.
  template <class Done>
  void wait_polling(Done& done, int awaited) {
    if (done()) return;
    // PAUSEs after each poll that found nothing: the poll reads the line the peer answers on
    // (the pair line), and a read while the peer prepares its answer takes the line from it, so
    // its write waits for the line to come back. On a 2-vCPU AMD EPYC guest (a PAUSE 27 ns, the
    // cache-line hand-over 0.029 us; bench/lib_ab.sh, 2 ranks): one PAUSE, osu_latency 0-64 B
    // 0.85-0.97 the time of polling back to back (6 and 8 interleaved rounds); osu_bw and
    // osu_bibw 4-64 KiB 0.91-1.20 the bandwidth, osu_allreduce 2 ranks 0.92-1.06 the time (4-8
    // rounds: noise). How many, the waits measure (PollSpacing). Oversubscribed waits do not spin.
    const unsigned pauses = spacing_.pauses();
    const bool timed = spin_ != 0 && spacing_.time_next();
    for (unsigned i = 0; i < spin_; ++i) {
      const int events = poll();
      if (events > 0) {
        if (done()) {
          if (timed) [[unlikely]] spacing_.end_of_wait(base::ticks(), i + 1);
          return;
        }
      } else {
        for (unsigned k = 0; k < pauses; ++k) base::spin_pause();
      }
    }
    if (timed) spacing_.abandon();
    if (done()) return;
    if (spin_time_.count() > 0) {
      const auto until = Clock::now() + spin_time_;
      do {
        for (unsigned i = 0; i < kPollsPerClockRead; ++i) {
          if (poll() > 0) {
            if (done()) return;
          } else {
            for (unsigned k = 0; k < pauses; ++k) base::spin_pause();  // as in the spin above
          }
        }
        if (done()) return;
      } while (Clock::now() < until);
    }
    // The yield budget counts from the last arrival, and a sleep that an arrival ends goes back
    // to yielding: only a wait that nothing reaches for a whole budget sleeps. With a core per
    // rank the budget is also kAwakeAfterArrival at least: a wait that keeps receiving (the fins
    // of the 1 MiB messages a peer reads while this rank waits for its own, one per 75 us in
    // osu_bibw, where 200 yields take 56 us) stays awake instead of paying a wake-up per fin.
    Clock::time_point spin_until{};  // the end of this wait's kNearSpin, once begun
    for (;;) {
      const unsigned yields = yields_now();
      auto awake_until = Clock::now() + kAwakeAfterArrival;
      const bool awaiting = binding_.bound();
      if (awaiting && tell_awaiting_and_poll(done, awaited)) return;
      std::uint32_t bell = ~std::uint32_t{0};
      const bool near_spin = awaiting && awaited >= 0 && oversubscribed_;
      for (unsigned i = 0; i < yields || (!oversubscribed_ && Clock::now() < awake_until); ++i) {
        if (near_spin && spin_while_answer_near(done, awaited, spin_until)) {
          mcm_.end_awaiting();
          return;
        }
        const bool go_on = yield_core();
        const int events = poll_after_yield(awaiting ? awaited : -1, bell);
        if (done()) {
          if (awaiting) mcm_.end_awaiting();
          return;
        }
        if (!go_on) break;
        if (events > 0) {
          i = 0;
          if (!oversubscribed_) awake_until = Clock::now() + kAwakeAfterArrival;
          if (awaiting && tell_awaiting_and_poll(done, awaited)) return;
        }
      }
      if (awaiting) mcm_.end_awaiting();
      if (sleep_until_arrival(done)) return;
    }
  }

  // A wait for `awaited` (a rank of another CPU of this node) whose answer is at most one
  // hand-over away (mcm::MultiMethod::answer_near()) while every other rank of this CPU waits
  // with nothing come: polls that rank's channel instead of yielding, for at most kNearSpin a
  // wait (`until`: its end, set at the wait's first such poll). A yield would hand the CPU to a
  // rank that finds nothing and yields it back, and an answer that came meanwhile would wait for
  // the switch back (8 ranks on 2 cores, the ring of bench/oversub_loop: two ranks of a CPU
  // waiting across CPUs took turns, and a hop across cost 1.7-2.7 us, a switch 1.6-1.7; polling,
  // 0.3-0.6 us and the ring 0.91 the time). True when done() holds.
  template <class Done>
  bool spin_while_answer_near(Done& done, int awaited, Clock::time_point& until) {
    if (!mcm_.answer_near(awaited) || !mcm_.cpu_mates_idle()) return false;
    if (until == Clock::time_point{}) until = Clock::now() + kNearSpin;
    ++near_spins_;
    while (Clock::now() < until) {
      for (unsigned i = 0; i < kNearSpinPolls; ++i) {
        if (poll_peer(awaited) > 0 && done()) return true;
        base::spin_pause();
      }
      if (done()) return true;
      if (!mcm_.answer_near(awaited) || !mcm_.cpu_mates_idle()) return false;
    }
    return false;
  }
  static constexpr std::chrono::microseconds kNearSpin{30};
  static constexpr unsigned kNearSpinPolls = 32;
  std::uint64_t near_spins_ = 0;

  // The poll after a yield of a wait for job rank `awaited` that told the node so
  // (tell_awaiting_and_poll(); -1: any, or not told): that rank's channel only while nothing rang
  // this rank's doorbell since the poll of every device that read it into `bell` (a frame to a
  // rank that awaits rings it: mcm::MultiMethod::quiet_since()), and every kFullPollEvery-th time
  // a poll of every device anyway (a frame sent just as the wait told the node may not ring it).
  // 8 ranks on 2 cores, bench/lib_ab.sh oversub_loop ring 2000, 2 x 300 rounds, with a poll of
  // every device each 4th yield: 0.989 and 1/1.010 the time; shift and allreduce unchanged.
  int poll_after_yield(int awaited, std::uint32_t& bell) {
    if (awaited >= 0 && ++yield_polls_ % kFullPollEvery != 0 && mcm_.quiet_since(bell)) return poll_peer(awaited);
    bell = mcm_.doorbell();
    return poll();
  }
  static constexpr unsigned kFullPollEvery = 16;
  unsigned yield_polls_ = 0;

  // Tells the node's ranks that this rank waits for job rank `awaited` (-1: any; see
  // peer_waits_long()), then polls: a message that came before the tell is found now, one after
  // it rings the doorbell. True, the tell taken back, when done() holds.
  template <class Done>
  bool tell_awaiting_and_poll(Done& done, int awaited) {
    mcm_.begin_awaiting(awaited);
    if (poll() > 0 && done()) {
      mcm_.end_awaiting();
      return true;
    }
    return false;
  }

  // A rank alone on its core: yields, unless a long yield less than kKeepCoreFor ago showed
  // another program on the core.
  void keep_or_yield_core() {
    const auto t0 = Clock::now();
    if (t0 < keep_core_until_) return;
    ++yields_;
    sched_yield();
    const auto t1 = Clock::now();
    if (!yield_shows_crowding(t1 - t0)) return;
    keep_core_until_ = t1 + kKeepCoreFor;
    if (verbose_ && !kept_core_before_) {
      const auto took = std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0);
      base::log_info("waits: a yield took %lld us (another program shares this rank's core): waits poll instead "
                     "of yielding for %lld ms after each such yield",
                     static_cast<long long>(took.count()), static_cast<long long>(kKeepCoreFor.count()));
    }
    kept_core_before_ = true;
  }

  // Whether a yield that took `took` shows other programs holding the cores: it was long, so was
  // another of the kYieldWindow before it, and others_runnable() holds. A busy program on the core
  // takes it at one yield in a few (every rank there yields to it in turn), the host stops a CPU
  // now and then, and a kernel thread is runnable for a moment now and then. Any other long yield
  // counts as a stall (the first one logged when verbose).
  bool yield_shows_crowding(Clock::duration took) {
    const bool long_yield = yield_was_long(took);
    long_yields_seen_ = (long_yields_seen_ << 1) | (long_yield ? 1u : 0u);
    if (!long_yield) return false;
    if (std::popcount(long_yields_seen_ & kYieldWindowMask) >= 2 && others_runnable_now()) return true;
    if (verbose_ && stalls_ == 0) {
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(took);
      base::log_info("waits: a yield took %lld us, the first in %u yields or with no more tasks runnable on the "
                     "machine than ranks of this job awake: taken as a stall of the host, not as other programs on "
                     "the cores",
                     static_cast<long long>(us.count()), kYieldWindow);
    }
    ++stalls_;
    return false;
  }
  static constexpr unsigned kYieldWindow = 32;
  // This yield and the kYieldWindow before it.
  static constexpr std::uint64_t kYieldWindowMask = (std::uint64_t{1} << (kYieldWindow + 1)) - 1;
  bool others_runnable_now() {
    if (!runnable_) runnable_ = std::make_unique<base::RunnableTasks>();
    return others_runnable(runnable_->count(), mcm_.machine_ranks(), mcm_.ranks_asleep());
  }

  // `took`: the long yield of this rank; nullptr when another rank of the node saw one.
  void let_go_of_binding(const std::chrono::microseconds* took) {
    const int cpu = binding_.cpu();
    binding_.release();
    mcm_.set_cpu(-1);
    if (!verbose_) return;
    const std::string why = took ? "a yield took " + std::to_string(took->count()) + " us"
                                 : std::string("a yield of another rank of this node was long");
    base::log_info("binding: let go of CPU %d (%s: another program holds a core); may run on CPUs %s", cpu,
                   why.c_str(), base::cpu_list_text(binding_.mask()).c_str());
  }

  // A wait for `peer`, bound to this rank's CPU: the peer runs only when this rank gives the CPU
  // up, and a rank a futex wake makes runnable runs next on its CPU (the kernel's wake-up
  // preemption), so the peer's wake hands the CPU straight back, where yields would hand it to
  // whichever rank of the CPU the scheduler picks (8 ranks on 2 cores in blocks, the ring of
  // bench/oversub_loop: see bench/results/README.md). Sleeps until done() holds (true), or until
  // the peer no longer shares the CPU or the cores are crowded (false: the caller waits as
  // usual).
  template <class Done>
  bool wait_for_cpu_mate(Done& done, int peer) {
    while (!done()) {
      if (crowded_word_ && std::atomic_ref(*crowded_word_).load(std::memory_order_relaxed)) [[unlikely]] {
        let_go_of_binding(nullptr);
        return false;
      }
      if (!mcm_.shares_cpu(peer)) return false;
      ++sleeps_;
      ++cpu_mate_sleeps_;
      mcm_.wait_for_cpu_mate(kMateSleep);
      // The mate's wake says where its message is: its channel first, the other peers' lines
      // (cold after the switch) only if that did not end the wait (8 ranks on 2 cores,
      // bench/lib_ab.sh oversub_loop ring 2000, 2 x 300 rounds: 0.989 and 1/1.015 the time,
      // standard error 0.005-0.008).
      if (poll_peer(peer) > 0 && done()) return true;
      poll();
    }
    return true;
  }

  // Sleeps in the devices' wait until done() holds (true) or a poll after a sleep found events
  // (false).
  template <class Done>
  bool sleep_until_arrival(Done& done) {
    // When every arrival ends the devices' wait (one device can block), each sleep may be long:
    // a short one only wakes the rank for nothing. Otherwise (shm and tcp both in use: the wait
    // watches shm only) sleeps start short and double.
    auto slice = mcm_.wait_wakes_on_arrival() ? kLongestSlice : kShortestSlice;
    while (!done()) {
      ++sleeps_;
      mcm_.wait(slice);
      if (poll() > 0) return done();
      if (slice < kLongestSlice) slice *= 2;
    }
    return true;
  }

  static constexpr std::chrono::microseconds kShortestSlice{50};
  static constexpr std::chrono::microseconds kLongestSlice{2000};
  // The timeout of a sleep for a CPU mate, whose wake ends it: long, so the sleep's timer is
  // seldom the CPU's next one and arming it does not reprogram the timer (on a virtual machine a
  // trap to the host). bench/limits/token_ring's same_cpu_futex way with a
  // timeout in each FUTEX_WAIT, 3 interleaved runs of 5000 rounds: none 1.45-1.65 us a hop, 2 ms
  // 1.82-2.00, 5 ms 1.65-1.81, 20 ms 1.54-1.76, 100 ms 1.52-1.74. A sleep whose wake is lost
  // (the mate let go of its CPU in between and sent without the process barrier) ends at the
  // timeout or at the next liveness check of the shm device, whichever comes first.
  static constexpr std::chrono::microseconds kMateSleep{20000};

  mcm::MultiMethod& mcm_;
  unsigned spin_;
  unsigned yield_;
  std::chrono::microseconds spin_time_;
  PollSpacing spacing_;
  bool oversubscribed_;
  bool alone_on_core_;
  bool verbose_;
  bool kept_core_before_ = false;
  Clock::time_point keep_core_until_{};  // while alone_on_core_
  base::SelfBinding binding_;
  std::uint32_t* crowded_word_ = nullptr;  // the node's (mcm::NodeMemory), while bound
  unsigned idle_tests_ = 0;
  std::uint64_t yields_ = 0;
  std::uint64_t sleeps_ = 0;
  std::uint64_t cpu_mate_sleeps_ = 0;
  // How the waits for each job rank bound to this CPU begin; sized when this rank binds itself.
  MateWaits mate_waits_;
  // Rounds of yields over the CPU's other ranks before a wait for one of them that yields first
  // sleeps (8 ranks on 2 cores, interleaved medians against the parent, 5-7 rounds: shift 1.04 /
  // 1.19 / 1.14 and ring 0.92 / 0.86 / 0.92 with 2 rounds and 2 waits of history / 1 round and 2 /
  // 1 round and 3, when such rounds were also what made a wait count as long).
  static constexpr int kMateYieldRounds = 2;
  // Ranks waiting one for the next with nothing come (mcm::MultiMethod::unanswered_chain()) that
  // make a wait for a CPU mate sleep at once.
  static constexpr int kWaitingChain = 3;
  // Whether `peer` waits for a rank that waits for a third (kWaitingChain ranks), none of them
  // reached by anything since it began to wait: what this rank waits for comes only after several
  // handovers (a token passed around), and a wait for a CPU mate sleeps.
  bool peer_waits_long(int peer) const { return mcm_.unanswered_chain(peer, kWaitingChain) >= kWaitingChain; }
  Clock::time_point crowded_until_{};
  std::unique_ptr<base::RunnableTasks> runnable_;  // made at the first long yield
  std::uint64_t stalls_ = 0;
  std::uint64_t long_yields_seen_ = 0;  // bit i: the yield i yields ago was long
  CrowdingEvidence crowding_;  // of the oversubscribed yields
  YieldClock yield_clock_{kLongYield};
  static constexpr bool kNever = false;
  struct Hook {
    int (*run)(void*) = nullptr;
    void* ctx = nullptr;
    const bool* armed = &kNever;
  };
  Hook hooks_[3];
  // `n` events of a device pass, and the hooks' if any is armed: three loads and a test when none
  // is (a slot without a hook points at kNever).
  int with_hooks(int n) {
    if (*hooks_[0].armed || *hooks_[1].armed || *hooks_[2].armed) [[unlikely]] return n + run_hooks();
    return n;
  }
  [[gnu::noinline]] int run_hooks() {
    int n = 0;
    for (const Hook& h : hooks_) {
      if (*h.armed) n += h.run(h.ctx);
    }
    return n;
  }
};

}  // namespace railmpi::progress
