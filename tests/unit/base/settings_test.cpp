#include <gtest/gtest.h>
#include <cstdlib>

#include "base/settings.hpp"

using railmpi::base::parse_size;
using railmpi::base::Settings;

TEST(ParseSize, AcceptsPlainAndSuffixed) {
  std::size_t v = 0;
  EXPECT_TRUE(parse_size("4096", v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(parse_size("64K", v));
  EXPECT_EQ(v, 65536u);
  EXPECT_TRUE(parse_size("2m", v));
  EXPECT_EQ(v, 2u << 20);
  EXPECT_TRUE(parse_size("1G", v));
  EXPECT_EQ(v, 1u << 30);
}

TEST(ParseSize, RejectsGarbage) {
  std::size_t v = 7;
  EXPECT_FALSE(parse_size("", v));
  EXPECT_FALSE(parse_size("K", v));
  EXPECT_FALSE(parse_size("12Q", v));
  EXPECT_FALSE(parse_size("12KB", v));
  EXPECT_EQ(v, 7u);
}

TEST(Settings, EnvironmentOverridesDefault) {
  setenv("RAILMPI_SHM_EAGER_LIMIT", "8K", 1);
  setenv("RAILMPI_DEVICES", "tcp", 1);
  Settings s = Settings::from_environment();
  EXPECT_EQ(s.shm_eager_limit, 8192u);
  EXPECT_EQ(s.devices, "tcp");
  EXPECT_EQ(s.value_text("RAILMPI_DEVICES"), "tcp");
  unsetenv("RAILMPI_SHM_EAGER_LIMIT");
  unsetenv("RAILMPI_DEVICES");
  s = Settings::from_environment();
  EXPECT_EQ(s.shm_eager_limit, Settings::kAutomatic);  // empty: the device chooses
  EXPECT_EQ(s.value_text("RAILMPI_SHM_EAGER_LIMIT"), "");
  EXPECT_EQ(s.shm_cma_min, Settings::kAutomatic);
  setenv("RAILMPI_SHM_CMA_MIN", "1M", 1);
  EXPECT_EQ(Settings::from_environment().shm_cma_min, 1u << 20);
  EXPECT_EQ(Settings::from_environment().value_text("RAILMPI_SHM_CMA_MIN"), "1048576");
  unsetenv("RAILMPI_SHM_CMA_MIN");
}

TEST(Settings, EveryDeclaredSettingHasAValue) {
  Settings s = Settings::from_environment();
  for (const auto& spec : railmpi::base::setting_specs()) {
    EXPECT_TRUE(spec.name.starts_with("RAILMPI_"));
    EXPECT_FALSE(spec.meaning.empty());
    if (!spec.default_value.empty()) {
      EXPECT_FALSE(s.value_text(spec.name).empty()) << spec.name;
    }
  }
}

TEST(Settings, SelfBindCpuIsEmptyUnlessGiven) {
  unsetenv("RAILMPI_SELF_BIND_CPU");
  Settings s = Settings::from_environment();
  EXPECT_EQ(s.self_bind_cpu, -1);
  EXPECT_EQ(s.value_text("RAILMPI_SELF_BIND_CPU"), "");
  setenv("RAILMPI_SELF_BIND_CPU", "3", 1);
  s = Settings::from_environment();
  EXPECT_EQ(s.self_bind_cpu, 3);
  EXPECT_EQ(s.value_text("RAILMPI_SELF_BIND_CPU"), "3");
  setenv("RAILMPI_SELF_BIND_CPU", "0", 1);
  EXPECT_EQ(Settings::from_environment().self_bind_cpu, 0);
  setenv("RAILMPI_SELF_BIND_CPU", "first", 1);  // malformed: reported, the rank's index decides
  EXPECT_EQ(Settings::from_environment().self_bind_cpu, -1);
  unsetenv("RAILMPI_SELF_BIND_CPU");
}

// RAILMPI_SPIN_PAUSES: empty measures (kAutomatic); a number holds, at most 64; garbage is
// reported and measures.
TEST(Settings, SpinPausesAreMeasuredUnlessGiven) {
  unsetenv("RAILMPI_SPIN_PAUSES");
  Settings s = Settings::from_environment();
  EXPECT_EQ(s.spin_pauses, Settings::kAutomatic);
  EXPECT_EQ(s.value_text("RAILMPI_SPIN_PAUSES"), "");
  setenv("RAILMPI_SPIN_PAUSES", "0", 1);
  EXPECT_EQ(Settings::from_environment().spin_pauses, 0u);
  setenv("RAILMPI_SPIN_PAUSES", "3", 1);
  s = Settings::from_environment();
  EXPECT_EQ(s.spin_pauses, 3u);
  EXPECT_EQ(s.value_text("RAILMPI_SPIN_PAUSES"), "3");
  setenv("RAILMPI_SPIN_PAUSES", "1000", 1);
  EXPECT_EQ(Settings::from_environment().spin_pauses, 64u);
  setenv("RAILMPI_SPIN_PAUSES", "some", 1);
  EXPECT_EQ(Settings::from_environment().spin_pauses, Settings::kAutomatic);
  unsetenv("RAILMPI_SPIN_PAUSES");
}

TEST(Settings, RingBytesAndLocalSizeAreEmptyUnlessGiven) {
  unsetenv("RAILMPI_SHM_RING_BYTES");
  unsetenv("RAILMPI_LOCAL_SIZE");
  Settings s = Settings::from_environment();
  EXPECT_EQ(s.shm_ring_bytes, Settings::kAutomatic);  // the device sizes the rings by the node's ranks
  EXPECT_EQ(s.value_text("RAILMPI_SHM_RING_BYTES"), "");
  EXPECT_EQ(s.local_size, 0u);
  setenv("RAILMPI_SHM_RING_BYTES", "2M", 1);
  setenv("RAILMPI_LOCAL_SIZE", "6", 1);
  s = Settings::from_environment();
  EXPECT_EQ(s.shm_ring_bytes, 2u << 20);
  EXPECT_EQ(s.local_size, 6u);
  EXPECT_EQ(s.value_text("RAILMPI_LOCAL_SIZE"), "6");
  setenv("RAILMPI_SHM_RING_BYTES", "lots", 1);  // malformed: reported, left to the device
  setenv("RAILMPI_LOCAL_SIZE", "x", 1);
  s = Settings::from_environment();
  EXPECT_EQ(s.shm_ring_bytes, Settings::kAutomatic);
  EXPECT_EQ(s.local_size, 0u);
  unsetenv("RAILMPI_SHM_RING_BYTES");
  unsetenv("RAILMPI_LOCAL_SIZE");
}
