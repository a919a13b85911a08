// RAILMPI_BIND parsing and decision, CPU lists, and the machine's CPU count a bound rank uses.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <string>

#include "base/binding.hpp"
#include "base/cpus.hpp"
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
  const std::string report = binding_report(BindMode::automatic, 2, machine_cpus(), false);
  EXPECT_EQ(report.rfind("bound to CPU ", 0), 0u) << report;
  EXPECT_NE(report.find("2 ranks on this machine, 2 CPUs: not oversubscribed"), std::string::npos) << report;
  unsetenv("RAILMPI_MACHINE_CPUS");
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
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
