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
  EXPECT_EQ(bound_cpus(p), (std::vector<int>{1, 3}));
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
  EXPECT_TRUE(bound_cpus(p).empty());
  // One rank still fits the free CPU.
  EXPECT_EQ(plan_binding(BindMode::automatic, LauncherKind::fork, 1, {0, 1}, {0}).cpu_of_rank, (std::vector<int>{1}));
}

TEST(BindingPlan, CoreTakesTheHeldCpusLast) {
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 5, {0, 1, 2}, {1}).cpu_of_rank,
            (std::vector<int>{0, 2, 1, 0, 2}));
  EXPECT_EQ(plan_binding(BindMode::core, LauncherKind::fork, 3, {0, 1}, {0, 1}).cpu_of_rank,
            (std::vector<int>{0, 1, 0}));
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
