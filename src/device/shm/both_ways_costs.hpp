// Which way moves messages that go both ways at once faster now: the rings (the sender's core
// copies a message into the pair's packet ring, the receiver's core copies it out) or single
// copies (the receiver's core reads the sender's buffer with process_vm_readv).
//
// Both are timed where they happen, in ticks (base::ticks()) a KiB, and kept as moving averages; the rings
// take the stream below kRingsMargin times a single copy and keep it up to kKeepRingsMargin. Why measure: on a 2-vCPU AMD
// EPYC guest the rings' speed swings with the host's placement of the two CPUs from one
// ten-second stretch to the next, while single copies (which read a buffer the reader's caches
// may hold already, and pay a system call) barely move. osu_bibw 8/16/32/64 KiB, GB/s,
// interleaved, 2026-11-29: fast stretches (bench/limits/handoff_bw 6-9 GB/s) rings 39-40 /
// 38-40 / 39-40 / 39-41, single copies 19-20 / 24-25 / 25-26 / 28; slow stretches (handoff
// 2 GB/s) rings 4-7 / 4-7 / 4-6 / 4-6, single copies 15 / 20-22 / 23-24 / 26.
//
// The rings' cost is the copy out plus the copy in, but the copy in is counted only while the
// rings carry the stream: a message sent through them now and then (to keep them measured) is
// copied into lines nobody touched for long, from memory, whatever the stretch (81-145 ns a KiB
// in fast and slow stretches alike), where in a stream they come from the reader's caches (23
// fast, 390 slow). Until then the copy out stands for both (22-35 fast, 60-84 slow); single
// copies took 72-82 ns a KiB in a stream of them, 83-124 now and then.
//
// A value type of the shm device: no clock here (the device times, this keeps the figures).
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/moving_average.hpp"

namespace railmpi::device::shm {

class BothWaysCosts {
 public:
  // The rings must cost less than this fraction of a single copy to be chosen (the two ways'
  // costs move together a little with the host, and switching back and forth costs a cold lap).
  static constexpr double kRingsMargin = 0.9;
  // Once they carry the stream, they keep it until they cost more than this fraction of it.
  static constexpr double kKeepRingsMargin = 1.1;
  // A sample counts as at most this many times the average it updates.
  static constexpr double kMostAboveAverage = 2.0;
  // Copies in timed after the rings took the stream that are not counted: the first laps of a
  // ring write lines nobody touched for long (from memory, as a message sent now and then).
  static constexpr unsigned kColdInSamples = 32;
  // Smallest copy that is timed: smaller ones are dominated by their fixed costs.
  static constexpr std::size_t kSmallestTimed = 4096;

  // A copy of `bytes` into the packet ring took `ticks` (counted while rings_faster()).
  void ring_in(std::size_t bytes, std::uint64_t ticks) {
    if (!rings_faster_) return;
    if (cold_samples_left_ > 0) {
      --cold_samples_left_;
      return;
    }
    update(in_, bytes, ticks);
  }
  // A delivery of `bytes` out of the packet ring (the handler's copy) took `ticks`.
  void ring_out(std::size_t bytes, std::uint64_t ticks) { update(out_, bytes, ticks); }
  // One process_vm_readv of `bytes` (a batch of messages, its fixed cost included) took `ticks`.
  void single_copy(std::size_t bytes, std::uint64_t ticks) { update(read_, bytes, ticks); }

  // Ticks a KiB through the rings: out, and in (out again while the rings carry no stream,
  // or none was timed yet since they do).
  double rings_ticks_per_kib() const { return out_ + (rings_faster_ && in_ > 0 ? in_ : out_); }

  // True while the rings are the cheaper way (copies out and single copies measured, within
  // kRingsMargin).
  bool rings_faster() const { return rings_faster_; }
  // Where rings_faster() lives, for readers that keep a pointer to it (Figures::both_ways_rings).
  const bool* rings_faster_flag() const { return &rings_faster_; }
  // Times rings_faster() changed.
  std::uint64_t switches() const { return switches_; }

  // Sends both ways that should go the way not in use, so that it stays measured: the last
  // kExploreBurst of every explore_every() (Figures::both_ways_explore_every), in a row: a lone
  // message the other way runs cold and measures slow (2 ranks, osu_bibw 8-64 KiB, fast
  // stretches of a 2-vCPU AMD EPYC guest: copies into the rings 23-24 ns a KiB in a stream of
  // them, 81-107 one at a time; single copies 72-73 and 117-124). kExploreOften while the other
  // way measured less than kFarBehind times the one in use, else kExploreRarely: there a message
  // the other way costs 2-3 times more, and 16 of every 1024 cost osu_bibw 32-64 KiB 10-15% of
  // its bandwidth in the slow stretches (against single copies alone).
  static constexpr unsigned kExploreBurst = 16;
  static constexpr unsigned kExploreOften = 1024;
  static constexpr unsigned kExploreRarely = 8192;
  static constexpr double kFarBehind = 1.5;
  unsigned explore_every() const { return explore_every_; }
  const unsigned* explore_every_flag() const { return &explore_every_; }

  // Moving averages, ticks a KiB (0: not measured yet).
  double ring_in_ticks_per_kib() const { return in_; }
  double ring_out_ticks_per_kib() const { return out_; }
  double single_copy_ticks_per_kib() const { return read_; }

 private:
  void update(double& average, std::size_t bytes, std::uint64_t ticks) {
    if (bytes < kSmallestTimed || ticks == 0) return;
    const double sample = double(ticks) * 1024.0 / double(bytes);
    // The copies in stand in for themselves from the copies out (rings_ticks_per_kib()).
    if (average == 0 && &average == &in_) average = out_;
    // The first sample sets the average; later ones move it a quarter of the way, each counted
    // as at most kMostAboveAverage times the average: a switch of the host's placement shows
    // within a few samples, while one odd sample (a page touched for the first time, an
    // interruption: 5-50x the average now and then) moves it by a quarter at most.
    average = average == 0 ? sample : base::moving_average_step(average, sample, 4, kMostAboveAverage);
    if (out_ == 0 || read_ == 0) return;
    const double rings_cost = rings_ticks_per_kib();
    const bool rings = rings_faster_ ? rings_cost < kKeepRingsMargin * read_ : rings_cost < kRingsMargin * read_;
    const double behind = rings_faster_ ? read_ / rings_cost : rings_cost / read_;
    explore_every_ = behind >= kFarBehind ? kExploreRarely : kExploreOften;
    if (rings == rings_faster_) return;
    ++switches_;
    rings_faster_ = rings;
    in_ = 0;  // copies in of an earlier stream through the rings say nothing of the next
    cold_samples_left_ = kColdInSamples;
  }

  double in_ = 0;
  double out_ = 0;
  unsigned cold_samples_left_ = 0;
  unsigned explore_every_ = kExploreOften;
  double read_ = 0;
  bool rings_faster_ = false;
  std::uint64_t switches_ = 0;
};

}  // namespace railmpi::device::shm
