// RAILMPI_BIND parsing and decision, CPU lists, and the machine's CPU count a bound rank uses.
#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "base/binding.hpp"
#include "base/cpus.hpp"
#include "base/self_binding.hpp"
#include "base/settings.hpp"

namespace railmpi::base {
namespace {

TEST(BindMode, ParsesTheThreeModesOnly) {
  BindMode m = BindMode::none;
  EXPECT_TRUE(parse_bind_mode("auto", m));
  EXPECT_EQ(m, BindMode::automatic);
  EXPECT_TRUE(parse_bind_mode("core", m));
  EXPECT_EQ(m, BindMode::core);
  EXPECT_TRUE(parse_bind_mode("none", m));
  EXPECT_EQ(m, BindMode::none);
  for (const char* bad : {"", "Auto", "cores", "yes", "1", "core "}) {
    m = BindMode::core;
    EXPECT_FALSE(parse_bind_mode(bad, m)) << bad;
    EXPECT_EQ(m, BindMode::core) << bad;
  }
  EXPECT_STREQ(bind_mode_name(BindMode::automatic), "auto");
}

TEST(BindMode, AutoBindsExactlyWhenTheRanksFitTheCpus) {
  std::string why;
  EXPECT_TRUE(binds_ranks(BindMode::automatic, 1, 2, why));
  EXPECT_TRUE(binds_ranks(BindMode::automatic, 2, 2, why));
  EXPECT_FALSE(binds_ranks(BindMode::automatic, 3, 2, why));
  EXPECT_NE(why.find("3 ranks on this machine > 2 CPUs"), std::string::npos) << why;
  EXPECT_FALSE(binds_ranks(BindMode::automatic, 8, 2, why));
  EXPECT_TRUE(binds_ranks(BindMode::automatic, 8, 8, why));
}

TEST(BindMode, CoreAlwaysNoneNever) {
  std::string why;
  EXPECT_TRUE(binds_ranks(BindMode::core, 8, 2, why));
  EXPECT_TRUE(binds_ranks(BindMode::core, 1, 1, why));
  EXPECT_FALSE(binds_ranks(BindMode::none, 1, 2, why));
  EXPECT_EQ(why, "RAILMPI_BIND=none");
  EXPECT_FALSE(binds_ranks(BindMode::core, 2, 0, why));  // mask unknown
}

TEST(CpuList, WritesRanges) {
  EXPECT_EQ(cpu_list_text({}), "none");
  EXPECT_EQ(cpu_list_text({3}), "3");
  EXPECT_EQ(cpu_list_text({0, 1}), "0-1");
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

TEST(CpuList, ReadsWhatItWritesAndRefusesTheRest) {
  std::vector<int> cpus;
  ASSERT_TRUE(parse_cpu_list("0-3,6,8-9", cpus));
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 6, 8, 9}));
  ASSERT_TRUE(parse_cpu_list("5", cpus));
  EXPECT_EQ(cpus, std::vector<int>{5});
  ASSERT_TRUE(parse_cpu_list("3,1-2,2", cpus));  // any order, repeats once
  EXPECT_EQ(cpus, (std::vector<int>{1, 2, 3}));
  for (const std::vector<int>& list : {std::vector<int>{0}, std::vector<int>{1, 2, 4, 7, 8, 9, 63}}) {
    ASSERT_TRUE(parse_cpu_list(cpu_list_text(list), cpus));
    EXPECT_EQ(cpus, list);
  }
  ASSERT_TRUE(parse_cpu_list(std::to_string(CPU_SETSIZE - 1), cpus));
  EXPECT_EQ(cpus, std::vector<int>{CPU_SETSIZE - 1});
  cpus = {42};
  for (const char* bad : {"", "none", "-1", "3-", "3-1", "1,", ",1", "1,,2", "a", "1 2", "0-3x"}) {
    EXPECT_FALSE(parse_cpu_list(bad, cpus)) << '"' << bad << '"';
  }
  EXPECT_FALSE(parse_cpu_list(std::to_string(CPU_SETSIZE), cpus));
  EXPECT_FALSE(parse_cpu_list("99999999999999999999", cpus));
  EXPECT_EQ(cpus, std::vector<int>{42}) << "a refused list changed the output";
}

TEST(MachineCpus, FromTheVariableElseTheOwnMask) {
  unsetenv("RAILMPI_MACHINE_CPUS");
  const std::size_t own = affinity_cpus().size();
  ASSERT_GT(own, 0u);
  EXPECT_EQ(machine_cpus(), own);
  setenv("RAILMPI_MACHINE_CPUS", "7", 1);
  EXPECT_EQ(machine_cpus(), 7u);
  EXPECT_EQ(Settings::from_environment().machine_cpus, 7u);
  EXPECT_EQ(Settings::from_environment().value_text("RAILMPI_MACHINE_CPUS"), "7");
  for (const char* bad : {"0", "two", "", "-1"}) {
    setenv("RAILMPI_MACHINE_CPUS", bad, 1);
    EXPECT_EQ(machine_cpus(), own) << bad;
  }
  unsetenv("RAILMPI_MACHINE_CPUS");
}

// A process bound to one CPU still counts the CPUs mpiexec passed on.
TEST(MachineCpus, BindingDoesNotShrinkTheCount) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(affinity_cpus().front(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  setenv("RAILMPI_MACHINE_CPUS", "2", 1);
  EXPECT_EQ(affinity_cpus().size(), 1u);
  EXPECT_EQ(machine_cpus(), 2u);
  EXPECT_FALSE(oversubscribed(2, machine_cpus()));
  EXPECT_TRUE(oversubscribed(8, machine_cpus()));
  const std::string report = binding_report(BindMode::automatic, 2, machine_cpus(), false, false);
  EXPECT_EQ(report.rfind("bound to CPU ", 0), 0u) << report;
  EXPECT_NE(report.find("2 ranks on this machine, 2 CPUs: not oversubscribed"), std::string::npos) << report;
  unsetenv("RAILMPI_MACHINE_CPUS");
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
}

TEST(BindMode, RanksBindThemselvesOnlyWhenAutoAndOversubscribed) {
  EXPECT_TRUE(binds_itself(BindMode::automatic, 3, 2));
  EXPECT_TRUE(binds_itself(BindMode::automatic, 8, 2));
  EXPECT_FALSE(binds_itself(BindMode::automatic, 2, 2));  // mpiexec binds them
  EXPECT_FALSE(binds_itself(BindMode::automatic, 1, 1));
  EXPECT_FALSE(binds_itself(BindMode::core, 8, 2));  // mpiexec binds them
  EXPECT_FALSE(binds_itself(BindMode::none, 8, 2));
}

// Restores the test process's affinity mask, whatever a test did to it.
class SavedMask {
 public:
  SavedMask() { sched_getaffinity(0, sizeof saved_, &saved_); }
  ~SavedMask() { sched_setaffinity(0, sizeof saved_, &saved_); }

 private:
  cpu_set_t saved_;
};

// Ranks in blocks with round robin's counts: consecutive ranks share a CPU, the first ranks % cpus
// CPUs take one more; when each CPU gets the same even number of 4 or more, pairs dealt round robin.
TEST(BlockPosition, ConsecutiveRanksShareACpuWithRoundRobinsCounts) {
  auto positions = [](int ranks, int cpus) {
    std::vector<int> p;
    for (int i = 0; i < ranks; ++i) p.push_back(block_position(i, ranks, cpus));
    return p;
  };
  EXPECT_EQ(positions(8, 2), (std::vector<int>{0, 0, 1, 1, 0, 0, 1, 1}));  // pairs
  EXPECT_EQ(positions(16, 4), (std::vector<int>{0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3}));
  EXPECT_EQ(positions(4, 2), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(positions(6, 2), (std::vector<int>{0, 0, 0, 1, 1, 1}));  // 3 a CPU: blocks
  EXPECT_EQ(positions(10, 2), (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(positions(9, 2), (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1}));  // not the same count
  EXPECT_EQ(positions(3, 2), (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(positions(5, 2), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(positions(7, 3), (std::vector<int>{0, 0, 0, 1, 1, 2, 2}));
  EXPECT_EQ(positions(6, 4), (std::vector<int>{0, 0, 1, 1, 2, 3}));
  EXPECT_EQ(positions(2, 4), (std::vector<int>{0, 1}));  // fewer ranks than CPUs: one each
  for (int ranks = 1; ranks <= 24; ++ranks) {
    for (int cpus = 1; cpus <= 6; ++cpus) {
      const bool pairs = ranks % cpus == 0 && ranks / cpus >= 4 && ranks / cpus % 2 == 0;
      std::vector<int> count(std::size_t(cpus), 0);
      int last = 0;
      for (int i = 0; i < ranks; ++i) {
        const int p = block_position(i, ranks, cpus);
        if (pairs) {
          ASSERT_EQ(p, block_position(i ^ 1, ranks, cpus)) << i << " of " << ranks << " on " << cpus;
          ASSERT_EQ(p, i / 2 % cpus) << i << " of " << ranks << " on " << cpus;
        } else {
          ASSERT_GE(p, last) << i << " of " << ranks << " on " << cpus;  // blocks: never back
        }
        ASSERT_GE(p, 0);
        ASSERT_LT(p, cpus);
        last = p;
        ++count[std::size_t(p)];
      }
      for (int c = 0; c < cpus; ++c) {  // round robin's counts
        EXPECT_EQ(count[std::size_t(c)], ranks / cpus + (c < ranks % cpus ? 1 : 0)) << ranks << " on " << cpus;
      }
    }
  }
  EXPECT_EQ(block_position(-1, 8, 2), 0);
  EXPECT_EQ(block_position(3, 8, 0), 0);
}

TEST(SelfBinding, TakesTheIndexThCpuInBlocksAndLetsGoBackToTheMask) {
  SavedMask saved;
  const std::vector<int> mask = affinity_cpus();
  if (mask.size() < 2) GTEST_SKIP() << "binding needs a mask of 2 CPUs at least";
  const int ranks = 18;
  for (int index : {0, 1, 5, 17}) {
    SelfBinding b;
    EXPECT_FALSE(b.bound());
    EXPECT_FALSE(b.release());  // nothing to let go of
    ASSERT_TRUE(b.bind(index, ranks)) << index;
    const int want = mask[std::size_t(block_position(index, ranks, int(mask.size())))];
    EXPECT_TRUE(b.bound());
    EXPECT_EQ(b.cpu(), want);
    EXPECT_EQ(affinity_cpus(), std::vector<int>{want});
    EXPECT_EQ(b.mask(), mask);
    EXPECT_FALSE(b.bind(index + 1, ranks));  // bound already: unchanged
    EXPECT_EQ(affinity_cpus(), std::vector<int>{want});
    const std::string report = binding_report(BindMode::automatic, 8, 2, true, true);
    EXPECT_EQ(report.rfind("bound to CPU " + std::to_string(want) + " by itself (RAILMPI_BIND=auto and 8 ranks", 0), 0u)
        << report;
    EXPECT_TRUE(b.release());
    EXPECT_FALSE(b.bound());
    EXPECT_EQ(affinity_cpus(), mask);
    EXPECT_FALSE(b.release());  // once
  }
}

// A thread started after bind() (an OpenMP team) inherits the one CPU and gets the mask back on
// release(), called from another thread.
TEST(SelfBinding, ReleaseFreesThreadsThatInheritedTheCpu) {
  SavedMask saved;
  const std::vector<int> mask = affinity_cpus();
  if (mask.size() < 2) GTEST_SKIP() << "binding needs a mask of 2 CPUs at least";
  SelfBinding b;
  ASSERT_TRUE(b.bind(1, 2));
  std::atomic<int> step{0};
  std::vector<int> inherited, after;
  std::thread worker([&] {
    inherited = affinity_cpus();
    step = 1;
    while (step.load() != 2) std::this_thread::yield();
    after = affinity_cpus();
  });
  while (step.load() != 1) std::this_thread::yield();
  EXPECT_TRUE(b.release());
  step = 2;
  worker.join();
  EXPECT_EQ(inherited, std::vector<int>{mask[1]});
  EXPECT_EQ(after, mask);
  EXPECT_EQ(affinity_cpus(), mask);
}

// mpiexec plans each oversubscribed rank's CPU (RAILMPI_SELF_BIND_CPU); a CPU outside the mask
// falls back to the index.
TEST(SelfBinding, TakesThePlannedCpuWhenTheMaskHoldsIt) {
  SavedMask saved;
  const std::vector<int> mask = affinity_cpus();
  if (mask.size() < 2) GTEST_SKIP() << "binding needs a mask of 2 CPUs at least";
  {
    SelfBinding b;
    ASSERT_TRUE(b.bind(0, 8, mask.back()));
    EXPECT_EQ(b.cpu(), mask.back());
    EXPECT_EQ(affinity_cpus(), std::vector<int>{mask.back()});
    EXPECT_TRUE(b.release());
  }
  EXPECT_EQ(affinity_cpus(), mask);
  const int outside = mask.back() + 1;
  SelfBinding b;
  ASSERT_TRUE(b.bind(1, 2, outside));
  EXPECT_EQ(b.cpu(), mask[1]);
  EXPECT_TRUE(b.release());
  EXPECT_EQ(affinity_cpus(), mask);
}

TEST(SelfBinding, AOneCpuMaskOrANegativeIndexBindsNothing) {
  SavedMask saved;
  const std::vector<int> mask = affinity_cpus();
  SelfBinding b;
  EXPECT_FALSE(b.bind(-1, 2));
  EXPECT_EQ(affinity_cpus(), mask);
  ASSERT_TRUE(set_affinity_cpus({&mask.back(), 1}));
  EXPECT_FALSE(b.bind(1, 2));
  EXPECT_FALSE(b.bound());
  EXPECT_EQ(affinity_cpus(), std::vector<int>{mask.back()});
  EXPECT_FALSE(set_affinity_cpus({}));  // an empty mask is refused, not applied
  EXPECT_EQ(affinity_cpus(), std::vector<int>{mask.back()});
}

TEST(Settings, BadBindValueFallsBackToAuto) {
  setenv("RAILMPI_BIND", "sometimes", 1);
  testing::internal::CaptureStderr();
  const Settings s = Settings::from_environment();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(s.bind, BindMode::automatic);
  EXPECT_NE(err.find("RAILMPI_BIND=sometimes is not a binding mode (auto, core or none)"), std::string::npos) << err;
  setenv("RAILMPI_BIND", "none", 1);
  EXPECT_EQ(Settings::from_environment().bind, BindMode::none);
  EXPECT_EQ(Settings::from_environment().value_text("RAILMPI_BIND"), "none");
  unsetenv("RAILMPI_BIND");
  EXPECT_EQ(Settings::from_environment().bind, BindMode::automatic);
}

}  // namespace
}  // namespace railmpi::base
