// Node-level collectives: blocking barrier, bcast, reduce and allreduce of small messages on
// intracommunicators whose ranks all share one node, through one slot of the node's shared region
// (mcm/node_memory.hpp) instead of point-to-point messages. Every call returns not_taken, having
// done nothing, when the communicator or the message does not qualify; the caller then runs the
// point-to-point schedule. Whether a call qualifies depends only on what every member agrees on
// (communicator, size in bytes, predefined operation), so all members take the same path.
//
// Slot: the communicator's rank 0 claims one at the communicator's first qualifying call and
// broadcasts its index over point-to-point (once); each member releases it when it frees the
// communicator. Layout, with n members and L = RAILMPI_NODE_COLL_LIMIT rounded up to 64:
//   n flags          flag[i] (three 64-byte lines): written by rank i (the sleeper count by sleepers)
//   2n inline cells  each rank's reduction input of up to kInlineMax bytes, by call number modulo
//                    2: kInlineLines lines, each led by the call number (stored after the line's
//                    data) and the rank's byte count
//   kSmallDepth      small bcast cells (256 bytes), by call number modulo kSmallDepth: the byte
//                    count of every bcast, and the data of those up to kSmallBcastMax bytes
//   kDepth cells     data of larger bcasts, by call number modulo kDepth
//   2n cells         each rank's reduction input, by call number modulo 2
// A flag holds, on its first line, the number of the last call its rank entered (a 32-bit futex
// word); on its second the count of ranks asleep on it; on its third the byte count its rank passed
// in each of the last kDepth calls that carried a reduction input from it (reduce, allreduce;
// ranks expecting fewer bytes than were passed, here or in a bcast, report a truncation).
//
// Call s (the communicator's s-th node-level collective), flat and without any lock:
//   barrier    every rank sets flag[me] = s and waits until every flag reached s;
//   allreduce  every rank puts its input in its cell, sets its flag and waits for every flag;
//              then every rank combines all inputs in one fixed order, x0 op (x1 op (... x(n-1))),
//              so every rank computes bitwise the same result (floating point included);
//              Up to kInlineMax bytes the input goes to the rank's inline cell instead, and the
//              others poll the cell's lines rather than the flag: the lines that tell them the
//              call is there carry the data too, and travel in parallel (one cache-line transfer
//              instead of two: the flag, then the input cell);
//              From blocks_min bytes on (below), allreduce takes two call numbers, s and s+1,
//              and each rank combines one n-th of the vector: rank r copies every block but
//              block r into its input cell of call s (block r of its own input it reads from its
//              buffer), sets its flag to s and waits for every flag; combines block r from every
//              rank's input (same fixed order) into block r of its input cell of call s+1; sets
//              its flag to s+1, waits for every flag, and copies the other blocks from their
//              ranks' cells. Each rank reads (n-1)/n of the others' inputs and (n-1)/n of their
//              results instead of all of n-1 inputs, and combines 1/n of the vector; one more
//              wait for every rank. Every cell rule below holds for the two numbers as for any.
//              (Ranks passing counts on both sides of blocks_min, like counts on both sides of
//              the limit, are an erroneous program that this does not detect.)
//              With 2 ranks from kPairAllreduceMin bytes on and a shared single copy between
//              them (pair_allreduce): each rank puts its send and receive buffer addresses in
//              its inline cell of call s; then reads the other's input for its own block (as
//              above) from the other's send buffer, combines it with its own into its receive
//              buffer and writes that result into the other's receive buffer; and says in its
//              inline cell of call s+1 whether its read and write worked. Seeing the other's
//              line of call s+1 ends the call (the other has read this rank's input and written
//              its result here). Refused copies are made up through the input cells in calls
//              s+2 and s+3 (the missing inputs, then the results computed from them).
//   reduce     the same, but only the root waits and combines; the others return at once;
//   bcast      the root writes the byte count in small cell s mod kSmallDepth and the data there
//              too, then the call number in the small cell, and sets its flag; the others set
//              theirs and wait until the small cell shows call s (spinning on the cell itself, the
//              line they read next; then on the root's flag); then read the count and copy from
//              where it says. A larger bcast's data goes to bcast cell s mod kDepth: the first
//              kBcastChunk piece before the call number, the others after it and the flag (whole
//              before them when no other rank has entered the call yet); the small cell's
//              `ready` says how much is there, and the others copy each piece as it comes.
//              With 2 ranks above kPairBcastLimit and a shared single copy between them
//              (pair_bcast): each rank puts its buffer's address in its inline cell of call s;
//              in call s+1 the root writes the first half into the receiver's buffer while the
//              receiver reads the second half from the root's, and each says in its inline cell
//              whether its copy worked (a refused one is made up by the other's single copy, or
//              through the bcast cell of call s+1, in calls s+2 and s+3).
// Reuse of cells: a rank writes its input (or inline) cell of call s only once every rank entered call s-1
// (so every reader finished call s-2, the last user of that cell), and a bcast root its cells
// once every rank entered call s-kDepth+1 (large) or s-kSmallDepth+1 (small: a root of small
// bcasts runs up to 255 calls ahead, so receivers sharing cores with it copy in long batches
// instead of taking turns every 16 calls). These waits are usually already satisfied; a rank
// remembers the call number it last read from each flag and reads a flag again only when that
// does not suffice (a root ahead of its receivers costs them one read per kDepth calls).
// Waiting spins RAILMPI_SPIN_COUNT polls, yields RAILMPI_YIELD_COUNT times, then sleeps on the
// futex in growing slices; the progress engine is polled throughout, so point-to-point and
// non-blocking collective traffic keeps moving. (Unlike point-to-point waits, these keep yielding
// beside busy programs: ranks waiting for a bcast root or in an allreduce then sleeping each call
// made 4-rank 8 B bcasts 8x and 2-rank 8 B allreduces 6x slower under load.)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/settings.hpp"
#include "coll/schedule.hpp"
#include "core/communicator.hpp"
#include "mcm/multi_method.hpp"
#include "mcm/node_memory.hpp"

namespace railmpi::coll {

class NodeCollectives {
 public:
  // Bcast calls a root may run ahead of the slowest receiver (deep enough that a busy or
  // oversubscribed node rarely makes a root wait).
  static constexpr std::uint32_t kDepth = 16;
  // Small bcasts: up to kSmallBcastMax bytes travel in a small cell, and a root may run
  // kSmallDepth - 1 calls ahead (4 ranks on 2 cores, 8 B: 0.25 us a call instead of 1.7 with 16).
  static constexpr std::uint32_t kSmallDepth = 256;
  static constexpr std::size_t kSmallBcastMax = 248;
  // A bcast through the region moves the data twice (root -> cell -> receivers). With one
  // receiver and single copies between the two, each copying half once (pair_bcast; the route's
  // shared_copy_min) or a whole single copy by point-to-point (its single_copy_min, above its
  // eager limit), the data moves once: above this size that wins or ties. pair_bcast against
  // point-to-point's shared copy, which takes one frame latency more (rts, write_part, written):
  // 2 ranks, osu_bcast 64 KiB, medians of 7 interleaved rounds, two runs: 3.99 -> 3.00 us and
  // 3.73 -> 3.29. The limit, measured before pair_bcast (2 ranks, osu_bcast, medians of 7
  // interleaved runs, 2026-11-26, a root that finds nobody waiting writes the cell whole): 32 KiB
  // 2.03 us through the region, 3.05 by the shared copy; 64 KiB 3.91 and 3.84. When point-to-point copies twice too (eager,
  // or packets through the ring), the region is faster (2 ranks, 8-64 KiB: 0.65/6/12/20 us vs
  // 8/7.5/15/29 us eager, an earlier version).
  static constexpr std::size_t kPairBcastLimit = 32 * 1024;
  // Allreduce goes by blocks (one combined by each rank) from this many bytes on, when the node
  // has a CPU for every rank. 2 ranks, loops of 20000 float-sum calls (best of 5 repetitions,
  // median of 3 interleaved rounds): 512 B 0.33 vs 0.26 us flat (the second wait costs more than
  // the copying saves), 1 KiB 0.34 vs 0.34, 2 KiB 0.43 vs 0.50, 4 KiB 0.64 vs 0.82, 16 KiB 2.9
  // vs 3.6, 64 KiB 11.3 vs 12.1.
  static constexpr std::int32_t kBlocksMin = 2 * 1024;
  // ... and when the node has more ranks than CPUs, where each wait may take a turn of the
  // scheduler: 8 ranks on 2 cores, 4 KiB 15.2 vs 11.7 us flat, 16 KiB 23.5 vs 24-68, 64 KiB 48 vs
  // 79; 4 ranks on 2 cores, 16 KiB 11-22 vs 14-25.
  static constexpr std::int32_t kBlocksMinOversubscribed = 16 * 1024;
  // With 2 ranks, each a core, and single copies between them, allreduce from this many bytes on
  // goes by pair_allreduce(): each rank reads the other's input for its block straight from the
  // other's send buffer, combines it with its own into its receive buffer and writes the result
  // into the other's receive buffer (process_vm_readv / writev): the data moves once each way
  // instead of through the input cells (copied in, read out, and the results again). 2 ranks,
  // osu_allreduce, lib_ab.sh medians of 9 interleaved rounds against the blocks: 16 / 32 / 64 KiB
  // 3.76 / 5.36 / 8.78 us instead of 4.85 / 8.27 / 14.57 (0.78 / 0.65 / 0.60); from 4 KiB on, 4
  // and 8 KiB took 1.37 and 1.08 the time of the blocks (two system calls a rank cost more).
  static constexpr std::size_t kPairAllreduceMin = 16 * 1024;
  // pair_bcast and pair_allreduce only where a single copy's call (Figures::single_copy_call_us,
  // the same figure on every rank of the node) costs less than this: their gains above were
  // measured where a call cost 0.3 us. On a 2-vCPU AMD EPYC guest whose calls cost 2.0 us
  // (2026-12-07, a system call 1.1 us), 2 ranks, lib_ab.sh, 9 interleaved rounds, the region
  // against them: osu_bcast 64 KiB 3.15 us against 4.20 (0.75); osu_allreduce 16 / 32 / 64 KiB
  // 2.93 / 4.51 / 7.64 us against 7.94 / 8.99 / 10.85 (0.37 / 0.50 / 0.70). Taking the gains as
  // linear in the call's cost, the two cross at about 1.1 us (bcast) and 0.6 us (allreduce).
  static constexpr double kPairCopyCallMaxUs = 0.8;
  // A bcast cell is filled in chunks of this many bytes, each announced as soon as it is written,
  // so receivers that already wait copy chunk j while the root writes chunk j+1 (the two copies
  // overlap).
  static constexpr std::size_t kBcastChunk = 8 * 1024;
  // Reduce and allreduce inputs of up to kInlineMax bytes travel in inline cells (see above).
  // 2 ranks, interleaved medians of 5 runs: 8 B 0.35-0.38 us instead of 0.66-0.75 (Open MPI 0.53),
  // 64 B 0.45 vs 0.69-0.83, 128 B 0.44-0.47 vs 0.70-0.77; 256 B (5 lines) 0.69-0.75 vs 0.73-0.81
  // and 512 B (10 lines) 0.87 vs 0.77 were no gain. One 256-byte cell with one call number (data
  // contiguous) took 0.79 us at 128 B: its reader polls the line that the writer is filling.
  static constexpr std::size_t kInlineLines = 4;
  static constexpr std::size_t kInlinePart = 56;  // data bytes of one line
  static constexpr std::size_t kInlineMax = kInlineLines * kInlinePart;
  // Bytes a slot needs for n members and cells of `cell` bytes.
  static std::size_t slot_bytes(std::size_t n, std::size_t cell) {
    return n * (kMemberLines * 64 + 2 * cell) + kSmallDepth * sizeof(SmallCell) + kDepth * cell;
  }

  NodeCollectives(mcm::MultiMethod& mcm, Engine& engine, const base::Settings& settings);

  // not_taken: nothing done, run the point-to-point schedule. truncated: the call completed but
  // another rank passed more data than this one expects (counts differ across ranks: an error).
  enum class Result { not_taken, done, truncated };

  Result barrier(const core::Communicator& c);
  // `bytes` contiguous bytes at buf, from root to every rank.
  Result bcast(const core::Communicator& c, void* buf, std::size_t bytes, int root);
  // Predefined operations only (op.fn set). recvbuf matters at the root only; sendbuf may equal
  // recvbuf (in place).
  Result reduce(const core::Communicator& c, const void* sendbuf, void* recvbuf, std::size_t count,
                const Reducer& op, int root);
  Result allreduce(const core::Communicator& c, const void* sendbuf, void* recvbuf, std::size_t count,
                   const Reducer& op);

  // The communicator is being freed: drops its reference to its slot.
  void release(const core::Communicator& c);

  std::size_t limit() const { return limit_; }
  // Calls that went through the node's shared region (RAILMPI_VERBOSE's end-of-job line: a
  // region sized too small for a communicator would send them all to point-to-point silently).
  std::uint64_t calls() const { return calls_; }
  // Those of them that went by single copies between two ranks (pair_bcast, pair_allreduce).
  std::uint64_t pair_calls() const { return pair_calls_; }

 private:
  struct alignas(64) Flag {
    std::uint32_t seq;  // polled by the others: alone on its line
    // Ranks asleep on seq, on a line of its own: the owner reads it after each store of seq, and
    // on seq's line that load missed (the others' polls had taken the line; perf annotate: 97%
    // of arrive()'s samples on it). 2 ranks, osu_barrier -i 50, medians of 7 interleaved runs,
    // twice: 0.29 -> 0.21 and 0.30 -> 0.21 us (a bare two-process flag barrier: 0.155).
    // Allreduce and bcast are polled on other lines (no change measured).
    alignas(64) std::uint32_t sleepers;
    alignas(64) std::uint32_t bytes[kDepth];
  };
  static_assert(sizeof(Flag) == 192);
  // One line of an inline cell, written by its rank only.
  struct alignas(64) InlineLine {
    std::uint32_t seq;    // the call, stored after the rest of the line
    std::uint32_t bytes;  // the rank's byte count
    std::byte data[kInlinePart];
  };
  static_assert(sizeof(InlineLine) == 64);
  // 64-byte lines per member: its flag and its two inline cells.
  static constexpr std::size_t kMemberLines = sizeof(Flag) / 64 + 2 * kInlineLines;
  // Written by the root of the call, read by the others once the root's flag shows the call.
  // The slot's claim zeroes the small cells with the flags: a call number left by an earlier
  // communicator in the slot would otherwise pass for this one's.
  struct alignas(64) SmallCell {
    std::uint32_t bytes;  // the root's byte count, whichever cell holds the data
    std::uint32_t seq;    // the call, stored last: a receiver that sees it skips the root's flag
    union {
      std::byte data[kSmallBcastMax];  // a small bcast's data
      std::uint32_t ready;             // a larger one's: bytes of the bcast cell written so far
    };
  };
  static_assert(sizeof(SmallCell) == 256);
  // What this process knows of a slot it uses: its call count, and the call every member is
  // known to have entered.
  struct Progress {
    std::uint32_t seq = 0;
    std::uint32_t synced = 0;
    std::vector<std::uint32_t> seen;  // per rank: the last call number read from its flag
    // Allreduce of at least this many bytes goes by blocks (the same on every member: rank 0
    // decides it with the slot).
    std::size_t blocks_min = kBlocksMin;
    // The bcast cells / the input cells are mapped into this process (see map_once()).
    bool bcast_cells_mapped = false;
    bool input_cells_mapped = false;
  };
  // One call's view of the communicator's slot.
  struct Call {
    Flag* flags;  // [n]
    InlineLine* inline_lines;
    SmallCell* small_cells;
    std::byte* bcast_cells;
    std::byte* input_cells;
    std::size_t cell;
    int n;
    int me;
    std::uint32_t seq;
    Progress* progress;
    const int* job_ranks;  // [n]
    SmallCell& small_cell() const { return small_cells[seq % kSmallDepth]; }
    std::byte* bcast_cell() const { return bcast_cells + (seq % kDepth) * cell; }
    std::byte* input(int rank) const { return input_cells + (std::size_t(rank) * 2 + (seq & 1u)) * cell; }
    std::uint32_t bytes_of(int rank) const { return flags[rank].bytes[seq % kDepth]; }
    InlineLine* inline_cell(int rank) const {
      return inline_lines + (std::size_t(rank) * 2 + (seq & 1u)) * kInlineLines;
    }
  };

  // Whether a 2-rank call of `bytes` goes by single copies with the peer of figures `f` (pair_bcast,
  // pair_allreduce): the route's shared copy takes such messages and its calls are cheap enough.
  static bool pair_copies(const device::Figures& f, std::size_t bytes) {
    return f.single_copy && bytes >= f.shared_copy_min && f.single_copy_call_us < kPairCopyCallMaxUs;
  }
  // Bcast between 2 ranks of `bytes` > kPairBcastLimit by single copies with `peer` (see the
  // file comment); takes two call numbers, three or four when a copy was refused.
  Result pair_bcast(const Call& k, int peer, void* buf, std::size_t bytes, int root);
  // 2-rank calls by single copies (pair_bcast, pair_allreduce): writes `bytes` and `words` into
  // the first line of this rank's inline cell of call k, arrives, waits for the other rank's line
  // of that call and returns it. The line's readers must have finished call k.seq - 2. A call
  // whose other rank wrote no line there (it took another path: `what` names the call) ends the job.
  const InlineLine& swap_line(const Call& k, std::uint32_t bytes, std::span<const std::uint64_t> words,
                              const char* what);
  // Allreduce between 2 ranks of kPairAllreduceMin bytes or more by single copies with `peer`
  // (see the file comment), after the input cells are mapped and both ranks entered call
  // k.seq - 1; takes two call numbers, four when a copy was refused.
  Result pair_allreduce(const Call& k, int peer, const void* sendbuf, void* recvbuf, std::size_t count,
                        const Reducer& op);
  // The refused copies of pair_allreduce(), made up through the input cells in two more calls.
  // `read_ok[r]` / `write_ok[r]`: rank r's read of the other's input / write of its result worked.
  void pair_allreduce_refused(const Call& k, const bool (&read_ok)[2], const bool (&write_ok)[2],
                              const void* sendbuf, void* recvbuf, std::size_t lo, std::size_t hi,
                              std::size_t their_lo, std::size_t their_hi, const Reducer& op);
  // Whether `c` may take the node path for `bytes`; decides its slot on the first call.
  bool usable(const core::Communicator& c, std::size_t bytes);
  void decide(const core::Communicator& c);
  Call begin(const core::Communicator& c);
  // Sets this rank's flag to the call's number, first recording the byte count it passes unless
  // kNoBytes. Only calls that waited for every rank to enter call seq-kDepth+1 record one (no
  // reader of the entry for call seq-kDepth is left then).
  static constexpr std::size_t kNoBytes = ~std::size_t{0};
  void wake_sleepers(const Call& k);
  void arrive(const Call& k, std::size_t bytes);
  // Waits until every other rank's flag reached `target` (and records how far they all are).
  void wait_all(const Call& k, std::uint32_t target);
  // Waits until rank's flag reached `target`, unless an earlier read already showed it.
  void wait_rank(const Call& k, int rank, std::uint32_t target);
  // On an oversubscribed node, when other ranks of the communicator are bound to this rank's CPU
  // (its mates): waits until their flags reached `target` first (yields hand them the CPU), then
  // polls the others' flags for up to kCrossCpuSpin before returning (the caller's waits follow):
  // they run on other CPUs, and a yield would hand this CPU to a mate, which waits for the same
  // ranks and yields it back. 4 ranks on 2 cores, 10000 8-byte allreduces: 1.6 context switches
  // a rank and call -> 1.0 (perf stat), osu_allreduce 8 B 2.32 -> 2.00 us, osu_barrier 2.9-3.2
  // -> 2.0-2.3 us (3 interleaved runs). With several mates (8 ranks on 2 cores) a yield hands the
  // CPU round all of them before this rank looks again, while the ranks it awaits arrive on the
  // other CPU in the meantime: on a 2-vCPU AMD EPYC guest whose switch by sched_yield costs 5 us
  // (2026-12-07), lib_ab.sh, 8 ranks, against only one mate polled: oversub_loop allreduce 1000
  // 0.91 the time (SE 0.011, 20 rounds) and 1/1.097 the other way round (SE 0.009, 40 rounds);
  // osu_allreduce 4 B-64 KiB 0.90-0.95, osu_barrier 0.87 (10 rounds each). (An earlier version,
  // on a guest whose switch cost 1.6 us, measured the allreduce loop slower with them, 0.064-0.084
  // -> 0.078-0.090 s in 7 runs not interleaved: every mate waits for the same ranks, so its polls
  // take no turn a mate could use.)
  void mate_first(const Call& k, std::uint32_t target);
  static constexpr std::chrono::microseconds kCrossCpuSpin{20};
  // Waits until flag.seq has reached `target` (wraparound-safe); returns the value read.
  std::uint32_t wait_for(Flag& flag, std::uint32_t target);
  // Polls ready() up to RAILMPI_SPIN_COUNT times (the devices every kPollEvery); its last answer.
  template <class Ready>
  bool spin_until(Ready ready);
  // Waits until `word`, which `rank` writes before it sets its flag to `target`, shows `target`:
  // spins on the word (whose line holds what the caller reads next; and reading the
  // `lines_after` lines after it, which the caller reads next too), then waits on the flag. False
  // when the flag reached `target` and the word does not show it (the rank wrote elsewhere).
  bool wait_word(const Call& k, const std::uint32_t& word, int rank, std::uint32_t target,
                 std::size_t lines_after = 0);
  // Reduce and allreduce of up to kInlineMax bytes: this rank's input into its inline cell, then
  // its flag.
  void put_inline(const Call& k, const void* in, std::size_t bytes);
  // Waits for rank's inline input of this call and copies min(its bytes, `bytes`) bytes of it to
  // `out` (the rest of `bytes` zeroed); returns the byte count the rank passed.
  std::size_t get_inline(const Call& k, int rank, std::byte* out, std::size_t bytes);
  // x0 op (x1 op (... op x(n-1))) of the inline cells into out; returns the largest byte count
  // passed. Every rank has then entered the call.
  std::size_t combine_inline(const Call& k, void* out, std::size_t count, const Reducer& op);
  static std::size_t inline_lines(std::size_t bytes) { return bytes ? (bytes + kInlinePart - 1) / kInlinePart : 1; }
  // Before the first call that uses more than the first page of the slot's bcast cells (or of
  // its input cells), this process maps all of those `cells` at once and sets `mapped`: otherwise
  // each of the first kDepth large bcasts would take a page fault per 4 KiB in every rank
  // (2 ranks, 64 KiB: 20 us a call over 20 calls instead of 6).
  void map_once(bool& mapped, std::span<std::byte> cells, std::size_t bytes);
  // allreduce() from Progress::blocks_min bytes on (see the layout comment above), after its
  // input cells are mapped and every rank entered call k.seq - 1.
  Result allreduce_blocks(const Call& k, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op);
  // Largest byte count any rank passed in this call (after wait_all).
  static std::size_t largest(const Call& k);
  // Another member has entered call k.seq (its flag shows it).
  static bool anyone_waits(const Call& k);
  // x0 op (x1 op (... op x(n-1))) of the input cells into out.
  static void combine(const Call& k, void* out, std::size_t count, const Reducer& op);

  mcm::MultiMethod& mcm_;
  mcm::NodeMemory memory_;
  Engine& engine_;
  std::size_t limit_;
  std::uint64_t calls_ = 0;
  std::uint64_t pair_calls_ = 0;
  std::size_t cell_;
  bool light_stores_;  // arrive() stores without a fence (mcm::NodeMemory::light_stores)
  unsigned spin_;
  unsigned yield_;
  std::vector<Progress> progress_;  // per slot
};

}  // namespace railmpi::coll
