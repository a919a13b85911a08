/* token_ring: the scheduling limit of the oversubscribed ring target, without MPI.
 * P processes (default 8) on this machine's cores pass a token ROUNDS times (default 5000)
 * around a ring, each process polling its own cache line for the token, the way a rank waits for
 * a message on a core it shares. These ways to wait are timed, each the best of 3 runs:
 *   yield  poll, then sched_yield() until the token is there (what Open MPI does oversubscribed);
 *   futex  sleep in FUTEX_WAIT, the sender wakes the sleeper;
 *   spin   poll 2 us, then sched_yield(), again and again;
 *   yield_rr, yield_blocks  yield, each process bound to one CPU of this process's mask: round
 *          robin (process i on CPU i mod C, as mpiexec binds oversubscribed ranks) or in blocks
 *          (process i on CPU i*C/P: ring neighbours share a CPU but at the blocks' edges);
 *   same_cpu_futex  in blocks; a process whose left neighbour shares its CPU sleeps in FUTEX_WAIT
 *          at once (that neighbour runs only when the CPU is given up; the kernel runs the task
 *          its wake-up makes runnable next), the others yield.
 *   pairs_futex  as same_cpu_futex, in pairs dealt round robin (process i on CPU (i/2) mod C, as
 *          ranks bind themselves when each CPU gets the same even number of 4 or more: half the
 *          hops cross CPUs instead of 2 in P).
 *   pairs_baton  as pairs_futex, but the waiters across CPUs sleep too, until handed a baton: a
 *          process that passed the token across CPUs wakes the process of its CPU that gets the
 *          token next (me + 3 in pairs on 2 CPUs), which then polls and yields as pairs_futex's
 *          do; only one process of a CPU is runnable at a time (an oracle: a library does not
 *          know who gets the token next).
 *   rr_baton  the same oracle round robin (process i on CPU i mod C, every hop crossing CPUs):
 *          a process that passed the token on hands a baton to the one that gets the token C hops
 *          later (on its own CPU when C divides P) and sleeps until handed one itself; the baton's
 *          holder polls and yields, alone runnable on its CPU, so a hop would cost a hand-over of
 *          a line if a CPU's switch to its next process kept ahead of the token.
 * First the price of the switch every hop pays somewhere: two processes bound to one CPU hand it
 * to each other, "token_ring_switch_yield_us" by sched_yield() (each polls a shared word for its
 * turn) and "token_ring_switch_futex_us" by FUTEX_WAKE and FUTEX_WAIT (each sleeps until woken),
 * microseconds a switch, the best of 3 runs; and "token_ring_syscall_us", one system call that
 * does nothing (getppid).
 * Prints "token_ring_<way>_us_per_hop <value>" and "token_ring_best_s_per_1000_rounds <value>":
 * the time 1000 rounds of 8 hops take with the fastest way and no payload, no matching and no
 * library at all; an MPI ring on these cores cannot beat it by much.
 * Then the same with the payload of bench/oversub_loop's ring: every 10th round the token carries
 * 64 KiB, which each process copies from its left neighbour's buffer (in memory all of them
 * share) into its own before it passes the token on, as a receiver reading the message itself
 * would; no acknowledgement back. Prints "token_ring_payload_<way>_us_per_hop <value>" and
 * "token_ring_payload_best_s_per_1000_rounds <value>".
 * PAGES (default 0): after it gets the token, each process also reads one line and writes the
 * next of each of PAGES private pages of its own before it passes the token on: the memory a
 * library touches between a wake and its send (its code, stack, heap and shared lines), each page
 * of which may cost a TLB miss after a switch between processes. Page k's two lines sit at
 * (k mod 32) * 128 bytes into it, so that 128 pages' lines spread over the level-1 cache's sets:
 * lines at one offset of every page all fall into one set of 8 ways and miss at every hop, with
 * or without a switch (pairs_futex, 8 processes: 128 pages at one offset 2.89-2.97 us a hop,
 * spread 2.25-2.32, none 1.99-2.06).
 *   token_ring [ROUNDS [P [PAGES]]] */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "limits_common.h"

typedef struct {
  _Alignas(64) atomic_int token;  /* round number the holder passed on */
  atomic_int sleeping;
  atomic_int bell; /* pairs_baton's futex word: the token's holder or the baton's giver adds 1 */
} Slot;

enum Way {
  YIELD,
  FUTEX,
  SPIN,
  YIELD_RR,
  YIELD_BLOCKS,
  SAME_CPU_FUTEX,
  PAIRS_FUTEX,
  PAIRS_BATON,
  RR_BATON,
  WAYS
};
static const char *const kWayName[WAYS] = {"yield", "futex", "spin", "yield_rr", "yield_blocks", "same_cpu_futex",
                                          "pairs_futex", "pairs_baton", "rr_baton"};
/* A process's own way within pairs_baton: a waiter for its CPU mate sleeps until the bell rings,
 * a waiter across CPUs sleeps until the bell rings and then polls. Within rr_baton: a process
 * holds the baton while its bell is odd (polls, then yields), and sleeps while it is even. */
enum { BELL_SLEEP = WAYS, BELL_THEN_YIELD, BATON };
enum { PAYLOAD = 65536, PAYLOAD_EVERY = 10 };

static void wait_for(Slot *s, int value, int way) {
  if (way == BATON) {
    for (;;) {
      const int bell = atomic_load(&s->bell);
      if (atomic_load(&s->token) == value) return;
      if (bell & 1) {
        for (int i = 0; i < 200; i++) {
          if (atomic_load(&s->token) == value) return;
          spin_pause();
        }
        sched_yield();
        continue;
      }
      atomic_store(&s->sleeping, 1);
      if (atomic_load(&s->token) != value) syscall(SYS_futex, &s->bell, FUTEX_WAIT, bell, NULL, NULL, 0);
      atomic_store(&s->sleeping, 0);
    }
  }
  if (way == BELL_SLEEP || way == BELL_THEN_YIELD) {
    do {
      const int bell = atomic_load(&s->bell);
      if (atomic_load(&s->token) == value) return;
      atomic_store(&s->sleeping, 1);
      if (atomic_load(&s->token) != value) syscall(SYS_futex, &s->bell, FUTEX_WAIT, bell, NULL, NULL, 0);
      atomic_store(&s->sleeping, 0);
    } while (way == BELL_SLEEP && atomic_load(&s->token) != value);
    while (atomic_load(&s->token) != value) sched_yield();
    return;
  }
  while (atomic_load(&s->token) != value) {
    if (way == YIELD || way == YIELD_RR || way == YIELD_BLOCKS) {
      sched_yield();
    } else if (way == FUTEX) {
      atomic_store(&s->sleeping, 1);
      const int seen = atomic_load(&s->token);
      if (seen != value) syscall(SYS_futex, &s->token, FUTEX_WAIT, seen, NULL, NULL, 0);
      atomic_store(&s->sleeping, 0);
    } else {
      const double t0 = now();
      while (atomic_load(&s->token) != value && now() - t0 < 2e-6) {
      }
      if (atomic_load(&s->token) != value) sched_yield();
    }
  }
}

/* The CPU of process `me` of `procs` under `way` (its index in `cpus`), -1 when not bound. */
static int cpu_of(enum Way way, int me, int procs, const cpu_set_t *mask) {
  int cpus[CPU_SETSIZE], n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (CPU_ISSET(c, mask)) cpus[n++] = c;
  }
  if (way == YIELD_RR || way == RR_BATON) return cpus[me % n];
  if (way == YIELD_BLOCKS || way == SAME_CPU_FUTEX) return cpus[(long)me * n / procs];
  if (way == PAIRS_FUTEX || way == PAIRS_BATON) return cpus[me / 2 % n];
  return -1;
}

static void pass(Slot *s, int value) {
  atomic_store(&s->token, value);
  if (atomic_load(&s->sleeping)) syscall(SYS_futex, &s->token, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* pairs_baton: rings the bell of `s` (after the token's store, or as the baton); rr_baton: turns
 * the baton of `s` over (given or dropped: the bell's parity says who holds it, whichever of the
 * two comes first). */
static void ring_bell(Slot *s) {
  atomic_fetch_add(&s->bell, 1);
  if (atomic_load(&s->sleeping)) syscall(SYS_futex, &s->bell, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Where page k's lines of the PAGES argument are: (k mod 32) * 128 bytes into it (see above). */
static size_t page_line(int k) { return (size_t)k * 4096 + (size_t)(k % 32) * 128; }

/* One run: seconds per hop. `payload`: every PAYLOAD_EVERY-th round the receiver of the token
 * copies PAYLOAD bytes from its left neighbour's buffer into its own. */
static double run(enum Way way, int rounds, int procs, int payload, int pages) {
  Slot *slots = mmap(NULL, sizeof(Slot) * (size_t)procs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  double *took = mmap(NULL, sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  char *bufs = mmap(NULL, (size_t)PAYLOAD * (size_t)procs, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (slots == MAP_FAILED || took == MAP_FAILED || bufs == MAP_FAILED) exit(1);
  memset(bufs, 1, (size_t)PAYLOAD * (size_t)procs);
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) exit(1);
  /* rr_baton: the first process of each CPU holds the baton (an odd bell) */
  for (int p = 0; p < procs; p++) {
    atomic_store(&slots[p].token, -1);
    atomic_store(&slots[p].bell, way == RR_BATON && p < CPU_COUNT(&mask) ? 1 : 0);
  }
  for (int me = 0; me < procs; me++) {
    if (fork() != 0) continue;
    const int next = (me + 1) % procs;
    const int cpu = cpu_of(way, me, procs, &mask);
    if (cpu >= 0) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) _exit(1);
    }
    int my_way = way;
    const int mate_on_left = cpu_of(way, (me + procs - 1) % procs, procs, &mask) == cpu;
    if (way == SAME_CPU_FUTEX || way == PAIRS_FUTEX) my_way = mate_on_left ? FUTEX : YIELD;
    if (way == PAIRS_BATON) my_way = mate_on_left ? BELL_SLEEP : BELL_THEN_YIELD;
    if (way == RR_BATON) my_way = BATON;
    /* pairs_baton: after passing the token across, wake the process of this CPU that gets it
     * next, the first of this CPU's next pair (C CPUs: me + 2C - 1); none unless every CPU gets
     * the same number of pairs. */
    const int cpus = CPU_COUNT(&mask);
    const int baton =
        way == PAIRS_BATON && mate_on_left && cpus >= 2 && procs % (2 * cpus) == 0 ? (me + 2 * cpus - 1) % procs : -1;
    volatile char *own = NULL;
    if (pages > 0) {
      own = mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (own == MAP_FAILED) _exit(1);
      for (int k = 0; k < pages; k++) own[page_line(k)] = 1;
    }
    char *mine = bufs + (size_t)PAYLOAD * (size_t)me;
    const char *left = bufs + (size_t)PAYLOAD * (size_t)((me + procs - 1) % procs);
    const double t0 = now();
    for (int r = 0; r < rounds; r++) {
      if (me != 0 || r > 0) {
        wait_for(&slots[me], me == 0 ? r - 1 : r, my_way);
        if (payload && (me == 0 ? r - 1 : r) % PAYLOAD_EVERY == 0) memcpy(mine, left, PAYLOAD);
      }
      for (int k = 0; k < pages; k++) {
        volatile char *line = own + page_line(k);
        line[64] = (char)(line[0] + r);
      }
      if (way == RR_BATON) {
        atomic_store(&slots[next].token, r); /* its receiver holds a baton: it polls */
        ring_bell(&slots[me]);               /* drops this process's baton */
        ring_bell(&slots[(me + cpus) % procs]);
      } else if (way == PAIRS_BATON) {
        atomic_store(&slots[next].token, r);
        ring_bell(&slots[next]);
        if (baton >= 0) ring_bell(&slots[baton]);
      } else {
        pass(&slots[next], r);
      }
    }
    if (me == 0) {
      wait_for(&slots[0], rounds - 1, my_way);
      if (payload && (rounds - 1) % PAYLOAD_EVERY == 0) memcpy(mine, left, PAYLOAD);
      *took = (now() - t0) / ((double)rounds * procs);
    }
    _exit(0);
  }
  for (int p = 0; p < procs; p++) wait(NULL);
  const double t = *took;
  munmap(slots, sizeof(Slot) * (size_t)procs);
  munmap(took, sizeof(double));
  munmap(bufs, (size_t)PAYLOAD * (size_t)procs);
  return t;
}

/* Seconds one switch between two processes bound to the first CPU of this process's mask takes,
 * `by_futex` handing the CPU over by FUTEX_WAKE and FUTEX_WAIT, else by sched_yield(). */
static double switch_cost(int by_futex, int switches) {
  atomic_int *turn = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (turn == MAP_FAILED) exit(1);
  atomic_store(turn, 0);
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) exit(1);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mask)) cpu++;
  const pid_t child = fork();
  if (child < 0) exit(1);
  pin(cpu);
  const int me = child == 0;  /* the parent takes the even turns, the child the odd ones */
  const double t0 = now();
  for (int i = 0; i < switches / 2; i++) {
    const int mine = 2 * i + me;
    for (int seen; (seen = atomic_load(turn)) != mine;) {
      if (by_futex) {
        syscall(SYS_futex, turn, FUTEX_WAIT, seen, NULL, NULL, 0);
      } else {
        sched_yield();
      }
    }
    atomic_store(turn, mine + 1);
    if (by_futex) syscall(SYS_futex, turn, FUTEX_WAKE, 1, NULL, NULL, 0);
  }
  if (me) _exit(0);
  waitpid(child, NULL, 0);
  if (sched_setaffinity(0, sizeof mask, &mask) != 0) exit(1); /* the rings run on every CPU again */
  const double t = (now() - t0) / (double)(switches / 2 * 2);
  munmap(turn, sizeof(atomic_int));
  return t;
}

int main(int argc, char **argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 5000;
  const int procs = argc > 2 ? atoi(argv[2]) : 8;
  const int pages = argc > 3 ? atoi(argv[3]) : 0;
  if (rounds < 1 || procs < 2 || pages < 0) return 2;
  double yield = 1e9, futex = 1e9, call = 1e9;
  for (int rep = 0; rep < 3; rep++) {
    const double y = switch_cost(0, 8 * rounds), f = switch_cost(1, 8 * rounds);
    const double t0 = now();
    for (int i = 0; i < 8 * rounds; i++) syscall(SYS_getppid);
    const double c = (now() - t0) / (8.0 * rounds);
    if (y < yield) yield = y;
    if (f < futex) futex = f;
    if (c < call) call = c;
  }
  printf("token_ring_syscall_us %.3f\ntoken_ring_switch_yield_us %.3f\ntoken_ring_switch_futex_us %.3f\n", call * 1e6,
         yield * 1e6, futex * 1e6);
  for (int payload = 0; payload <= 1; payload++) {
    const char *what = payload ? "payload_" : "";
    double best_way = 1e9;
    for (int w = 0; w < WAYS; w++) {
      double best = 1e9;
      for (int rep = 0; rep < 3; rep++) {
        const double t = run((enum Way)w, rounds, procs, payload, pages);
        if (t < best) best = t;
      }
      printf("token_ring_%s%s_us_per_hop %.3f\n", what, kWayName[w], best * 1e6);
      if (best < best_way) best_way = best;
    }
    printf("token_ring_%sbest_s_per_1000_rounds %.4f\n", what, best_way * 1000 * procs);
  }
  return 0;
}
