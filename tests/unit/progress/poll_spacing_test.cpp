// PollSpacing: how many PAUSEs a spinning wait makes after an empty poll, from the stretches
// between wait ends that it times in the epochs that measure each spacing.
#include "progress/poll_spacing.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace railmpi::progress {
namespace {

constexpr std::uint64_t kEpoch = std::uint64_t{1} << PollSpacing::kEpochShift;
constexpr std::uint64_t kCycle = kEpoch * PollSpacing::kMeasureEvery * PollSpacing::kChoices;
constexpr unsigned kFirst = PollSpacing::kFirstPauses;
static_assert(kFirst > 1 && kFirst <= PollSpacing::kChoices);

// A ping-pong whose round (from one wait's end to the next's) takes cost[pauses - 1] ticks with
// the spacing in use; `polls` for every wait.
struct PingPong {
  PollSpacing s;
  std::uint64_t now = 0;
  std::array<std::uint64_t, PollSpacing::kChoices> cost{};
  std::uint32_t polls = 4;
  void wait() {
    now += cost[s.pauses() - 1];
    if (s.time_next()) s.end_of_wait(now, polls);
  }
  void run_for(std::uint64_t ticks) {
    const std::uint64_t until = now + ticks;
    while (now < until) wait();
  }
};

TEST(PollSpacing, EveryEpochMeasuresOneUntilAllAreMeasured) {
  PingPong p;
  // The first spacing mid-way, 1 PAUSE (measured last) the cheapest.
  p.cost = {200, 400, 400, 500};
  p.cost[kFirst - 1] = 300;
  EXPECT_EQ(p.s.pauses(), kFirst);
  EXPECT_EQ(p.s.best_pauses(), kFirst);
  // Epoch e measures (e + 1) mod kChoices + 1 PAUSEs: three epochs measure 2, 3 and 4, not 1;
  // the best stays the first until 1 is measured too.
  p.run_for(3 * kEpoch);
  EXPECT_EQ(p.s.best_pauses(), kFirst);
  EXPECT_EQ(p.s.changes(), 0u);
  EXPECT_EQ(p.s.average_ticks(1), 0);
  for (unsigned k = 2; k <= PollSpacing::kChoices; ++k) EXPECT_DOUBLE_EQ(p.s.average_ticks(k), p.cost[k - 1]);
  // The fourth epoch measures 1: all four within kChoices epochs (0.4 ms), not kMeasureEvery *
  // kChoices, and the cheapest serves from then on.
  p.run_for(kEpoch);
  EXPECT_DOUBLE_EQ(p.s.average_ticks(1), p.cost[0]);
  EXPECT_EQ(p.s.best_pauses(), 1u);
  EXPECT_EQ(p.s.changes(), 1u);
  // Then only one epoch in kMeasureEvery measures: the rest of the cycle's waits use the best.
  unsigned other = 0, waits = 0;
  const std::uint64_t until = p.now + (PollSpacing::kMeasureEvery - 6) * kEpoch;
  while (p.now < until) {
    p.wait();
    ++waits;
    other += p.s.pauses() != 1u;
  }
  EXPECT_EQ(other, 0u) << "of " << waits;
}

// Waits that never time a stretch (each goes on past kMaxTimedPolls) measure nothing: the
// spacings keep taking turns an epoch each, none chosen.
TEST(PollSpacing, UnmeasuredSpacingsTakeTurnsAnEpochEach) {
  PingPong p;
  p.cost = {300, 400, 200, 500};
  p.polls = PollSpacing::kMaxTimedPolls + 1;
  std::array<unsigned, PollSpacing::kChoices> used{};
  const std::uint64_t until = p.now + 2 * PollSpacing::kChoices * kEpoch;
  while (p.now < until) {
    p.wait();
    ++used[p.s.pauses() - 1];
  }
  for (unsigned k = 1; k <= PollSpacing::kChoices; ++k) EXPECT_GT(used[k - 1], 0u) << k << " PAUSEs";
  EXPECT_EQ(p.s.changes(), 0u);
  EXPECT_EQ(p.s.best_pauses(), kFirst);
}

TEST(PollSpacing, TheCheapestSpacingServesOnceAllAreMeasured) {
  PingPong p;
  const unsigned cheapest = kFirst % PollSpacing::kChoices + 1;  // another than the first
  p.cost = {300, 400, 350, 500};
  p.cost[cheapest - 1] = 200;
  p.run_for(2 * kCycle);
  EXPECT_EQ(p.s.best_pauses(), cheapest);
  EXPECT_EQ(p.s.changes(), 1u);
  // Each spacing's average is its round's cost: the stretch between two wait ends.
  for (unsigned k = 1; k <= PollSpacing::kChoices; ++k) EXPECT_DOUBLE_EQ(p.s.average_ticks(k), p.cost[k - 1]);
  // Outside the measuring epochs every wait uses it.
  p.now = (p.now / kEpoch / PollSpacing::kMeasureEvery + 1) * kEpoch * PollSpacing::kMeasureEvery;  // an epoch's start
  for (int i = 0; i < 100; ++i) p.wait();
  EXPECT_EQ(p.s.pauses(), cheapest);
}

// One timed wait in kTimeEvery marks a stretch, the next (not counted among the kTimeEvery) ends
// it; no other wait reads the clock.
TEST(PollSpacing, OneWaitInKTimeEveryAndTheOneAfterItAreTimed) {
  PollSpacing s;
  int timed = 0;
  std::uint64_t now = 0;
  for (unsigned i = 0; i < 10 * (PollSpacing::kTimeEvery + 1); ++i) {
    if (s.time_next()) {
      ++timed;
      s.end_of_wait(now += 100, 3);
    }
  }
  EXPECT_EQ(timed, 20);
}

// The spacing in use changes only at a marked wait, and the first stretch of a measuring epoch
// does not count (the peer may not have switched yet): a measuring epoch with a single marked
// wait measures nothing.
TEST(PollSpacing, TheFirstStretchOfAMeasuringEpochDoesNotCount) {
  PollSpacing s;
  const std::uint64_t measuring = (PollSpacing::kMeasureEvery - 1) * kEpoch;  // the first measuring epoch: 1 PAUSE
  while (!s.time_next()) {
  }
  s.end_of_wait(measuring + 10, 3);  // marks, switches to 1 PAUSE
  EXPECT_EQ(s.pauses(), 1u);
  ASSERT_TRUE(s.time_next());
  s.end_of_wait(measuring + 500, 3);  // ends the stretch: not settled
  EXPECT_EQ(s.average_ticks(1), 0);
  while (!s.time_next()) {
  }
  s.end_of_wait(measuring + 1000, 3);  // marks again, settled
  ASSERT_TRUE(s.time_next());
  s.end_of_wait(measuring + 1400, 3);
  EXPECT_DOUBLE_EQ(s.average_ticks(1), 400);
}

TEST(PollSpacing, LongWaitsAndAbandonedOnesDoNotCount) {
  PingPong p;
  p.cost = {300, 400, 200, 500};
  p.polls = PollSpacing::kMaxTimedPolls + 1;
  p.run_for(2 * kCycle);
  for (unsigned k = 1; k <= PollSpacing::kChoices; ++k) EXPECT_EQ(p.s.average_ticks(k), 0);
  p.polls = PollSpacing::kMaxTimedPolls;
  p.run_for(2 * kCycle);
  EXPECT_EQ(p.s.best_pauses(), 3u);

  // A wait that went on to yield or sleep ends no stretch: the next timed wait marks anew.
  PollSpacing s;
  const std::uint64_t measuring = (PollSpacing::kMeasureEvery - 1) * kEpoch;
  for (int marks = 0; marks < 2;) {
    if (s.time_next()) {
      s.end_of_wait(measuring + 100 * ++marks, 3);
      ASSERT_TRUE(s.time_next());
      if (marks == 2) break;
      s.end_of_wait(measuring + 100 * marks + 50, 3);
    }
  }
  s.abandon();
  EXPECT_FALSE(s.time_next());
  const double before = s.average_ticks(1);
  while (!s.time_next()) {
  }
  s.end_of_wait(measuring + 100000, 3);  // marks
  EXPECT_EQ(s.average_ticks(1), before);
}

// A spacing within kSwitchMargin of the one in use does not take over; the machine changing
// (the round costs move) moves the choice.
TEST(PollSpacing, CloseSpacingsDoNotTakeTurnsAndTheChoiceFollowsTheMachine) {
  static_assert(kFirst == 3, "the costs below put the first spacing at 3 PAUSEs");
  PingPong p;
  p.cost = {290, 400, 300, 500};  // 1 PAUSE 3% cheaper than the first, 3
  p.run_for(2 * kCycle);
  EXPECT_EQ(p.s.best_pauses(), 3u);
  EXPECT_EQ(p.s.changes(), 0u);
  p.cost = {300, 400, 600, 250};  // 3 PAUSEs now slow
  p.run_for(60 * kCycle);
  EXPECT_EQ(p.s.best_pauses(), 4u);
  p.cost = {200, 400, 600, 250};
  p.run_for(60 * kCycle);
  EXPECT_EQ(p.s.best_pauses(), 1u);
}

// A sample counts as at most twice its spacing's average: an interruption does not make a
// spacing look slow.
TEST(PollSpacing, AnOutlierCountsAsTwiceTheAverage) {
  PingPong p;
  p.cost = {300, 200, 300, 300};
  p.run_for(2 * kCycle);
  ASSERT_DOUBLE_EQ(p.s.average_ticks(2), 200);
  // One stretch of 2 PAUSEs in a measuring epoch that takes 100x as long.
  const std::uint64_t measuring_two = (p.now / kCycle + 1) * kCycle + (2 * PollSpacing::kMeasureEvery - 1) * kEpoch;
  p.now = measuring_two;
  for (int i = 0; i < 3 * int(PollSpacing::kTimeEvery); ++i) p.wait();  // settled on 2
  ASSERT_EQ(p.s.pauses(), 2u);
  while (!p.s.time_next()) p.now += 200;
  p.s.end_of_wait(p.now += 200, 3);  // marks
  ASSERT_TRUE(p.s.time_next());
  p.s.end_of_wait(p.now += 20000, 3);
  EXPECT_DOUBLE_EQ(p.s.average_ticks(2), 200 + (400 - 200) / PollSpacing::kWeight);
  EXPECT_EQ(p.s.best_pauses(), 2u);
}

}  // namespace
}  // namespace railmpi::progress

namespace railmpi::progress {
namespace {

// RAILMPI_SPIN_PAUSES set: that spacing for every wait, no clock read, nothing measured.
TEST(PollSpacing, ASetSpacingHoldsAndReadsNoClock) {
  for (unsigned set : {0u, 1u, 7u}) {
    PollSpacing s(set);
    for (int i = 0; i < 1000; ++i) {
      EXPECT_FALSE(s.time_next());
      EXPECT_EQ(s.pauses(), set);
    }
    EXPECT_TRUE(s.fixed());
    EXPECT_EQ(s.best_pauses(), set);
  }
}

}  // namespace
}  // namespace railmpi::progress
