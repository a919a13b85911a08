// mpiexec's binding plan: which CPU each rank gets for each launcher and RAILMPI_BIND mode.
#include <gtest/gtest.h>

#include "binding.hpp"

namespace railmpi::mpiexec {
namespace {

using base::BindMode;

TEST(BindingPlan, AutoBindsRoundRobinOverTheMaskWhenRanksFit) {
  const BindingPlan p = plan_binding(BindMode::automatic, LauncherKind::fork, 2, {3, 5});
  EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{3, 5}));
  EXPECT_EQ(p.machine_cpus, 2u);
}

TEST(BindingPlan, AutoBindsNothingWhenOversubscribed) {
  const BindingPlan p = plan_binding(BindMode::automatic, LauncherKind::fork, 3, {3, 5});
  EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(p.machine_cpus, 2u);  // the ranks still learn how many CPUs they share
  EXPECT_NE(p.summary.find("3 ranks on this machine > 2 CPUs"), std::string::npos) << p.summary;
  // ... and bind themselves at MPI_Init, in blocks over the mask: what mpiexec records.
  EXPECT_EQ(p.self_bind_cpu_of_rank, (std::vector<int>{3, 3, 5}));
  EXPECT_NE(p.summary.find("each binds itself at MPI_Init, in blocks over CPUs 3,5"), std::string::npos)
      << p.summary;
  EXPECT_EQ(claimed_cpus(p), (std::vector<int>{3, 3, 5}));
  // Nothing to bind itself to on one CPU; nor with `core` (mpiexec binds) or `none`.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 3, {3}).self_bind_cpu_of_rank,
            (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 3, {3, 5}).self_bind_cpu_of_rank,
            (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(plan_binding(BindMode::none, LauncherKind::fork, 3, {3, 5}).self_bind_cpu_of_rank,
            (std::vector<int>{-1, -1, -1}));
}

// Two oversubscribed jobs on one machine: the second job's ranks start on the CPUs where the
// first runs the fewest ranks, instead of stacking their first ranks on the first CPU (two 3-rank
// jobs on 2 CPUs: 3 and 3 ranks a CPU, not 4 and 2).
TEST(BindingPlan, OversubscribedRanksStartWhereOtherJobsRunFewest) {
  const BindingPlan first = plan_binding(BindMode::automatic, LauncherKind::fork, 3, {0, 1});
  EXPECT_EQ(first.self_bind_cpu_of_rank, (std::vector<int>{0, 0, 1}));
  const BindingPlan second = plan_binding(BindMode::automatic, LauncherKind::fork, 3, {0, 1}, claimed_cpus(first));
  EXPECT_EQ(second.self_bind_cpu_of_rank, (std::vector<int>{1, 1, 0}));
  EXPECT_NE(second.summary.find("in blocks over CPUs 1,0 (other RailMPI jobs' ranks hold CPUs 0-1: those with the fewest"), std::string::npos)
      << second.summary;
  // Loads 3,3 then: a third job goes back to mask order. Unsorted `held` is counted the same.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 3, {0, 1}, {1, 0, 1, 0, 0, 1}).self_bind_cpu_of_rank,
            (std::vector<int>{0, 0, 1}));
  // 4 CPUs, other jobs' ranks 2 on CPU 0, 1 on CPU 2: 1 and 3 first, then 2, then 0.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 6, {0, 1, 2, 3}, {2, 0, 0}).self_bind_cpu_of_rank,
            (std::vector<int>{1, 1, 3, 3, 2, 0}));
  // 8 ranks on 2 free CPUs: pairs of consecutive ranks, dealt round robin (base::block_position).
  const BindingPlan eight = plan_binding(BindMode::automatic, LauncherKind::fork, 8, {0, 1});
  EXPECT_EQ(eight.self_bind_cpu_of_rank, (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1}));
  EXPECT_NE(eight.summary.find("each binds itself at MPI_Init, in pairs over CPUs 0-1"), std::string::npos)
      << eight.summary;
  // 6 ranks on 2: 3 consecutive ranks on each.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 6, {0, 1}).self_bind_cpu_of_rank,
            (std::vector<int>{0, 0, 0, 1, 1, 1}));
}

TEST(BindingPlan, CoreAlwaysNoneNever) {
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 5, {0, 1}).cpu_of_rank,
            (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(plan_binding(BindMode::none, LauncherKind::fork, 2, {0, 1}).cpu_of_rank, (std::vector<int>{-1, -1}));
}

// Test hosts are namespaces of this machine: the index is job-wide, so one rank per host still
// takes one CPU each.
TEST(BindingPlan, NetnsHostsShareTheMachine) {
  const BindingPlan p = plan_binding(BindMode::automatic, LauncherKind::netns, 4, {0, 1, 2, 3});
  EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::netns, 4, {0, 1}).cpu_of_rank,
            (std::vector<int>{-1, -1, -1, -1}));
}

// CPUs other running jobs bound ranks to (base::CpuClaims): the ranks take the others.
TEST(BindingPlan, RanksTakeTheCpusNoOtherJobHolds) {
  const BindingPlan p = plan_binding(BindMode::automatic, LauncherKind::fork, 2, {0, 1, 2, 3}, {0, 2});
  EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{1, 3}));
  EXPECT_EQ(p.machine_cpus, 4u);
  EXPECT_NE(p.summary.find("other RailMPI jobs' ranks hold CPUs 0,2"), std::string::npos) << p.summary;
  EXPECT_EQ(claimed_cpus(p), (std::vector<int>{1, 3}));
  // Held CPUs outside the mask change nothing.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 2, {4, 5}, {0, 1}).cpu_of_rank,
            (std::vector<int>{4, 5}));
}

TEST(BindingPlan, AutoBindsNothingWhenTooFewCpusAreFree) {
  const BindingPlan p = plan_binding(BindMode::automatic, LauncherKind::fork, 2, {0, 1}, {1});
  EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{-1, -1}));
  EXPECT_EQ(p.machine_cpus, 2u);  // the ranks fit the machine: not oversubscribed
  EXPECT_NE(p.summary.find("ranks not bound"), std::string::npos) << p.summary;
  EXPECT_NE(p.summary.find("hold CPUs 1 of the 2"), std::string::npos) << p.summary;
  EXPECT_TRUE(claimed_cpus(p).empty());
  // One rank still fits the free CPU.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 1, {0, 1}, {0}).cpu_of_rank, (std::vector<int>{1}));
}

TEST(BindingPlan, CoreTakesTheHeldCpusLast) {
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 5, {0, 1, 2}, {1}).cpu_of_rank,
            (std::vector<int>{0, 2, 1, 0, 2}));
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 3, {0, 1}, {0, 1}).cpu_of_rank,
            (std::vector<int>{0, 1, 0}));
  // The one with the fewest of the other jobs' ranks first, whatever order `held` comes in.
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 3, {0, 1, 2}, {0, 1, 0, 2, 0, 2}).cpu_of_rank,
            (std::vector<int>{1, 2, 0}));
  EXPECT_EQ(plan_binding(BindMode::none, LauncherKind::fork, 2, {0, 1}, {0}).cpu_of_rank, (std::vector<int>{-1, -1}));
}

TEST(BindingPlan, SshRanksAreNeverBound) {
  for (BindMode m : {BindMode::automatic, BindMode::core}) {
    const BindingPlan p = plan_binding(m, LauncherKind::ssh, 2, {0, 1});
    EXPECT_EQ(p.cpu_of_rank, (std::vector<int>{-1, -1}));
    EXPECT_EQ(p.machine_cpus, 0u);
  }
}

}  // namespace
}  // namespace railmpi::mpiexec
