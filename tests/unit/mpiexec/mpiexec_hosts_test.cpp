// mpiexec: -hosts / host file parsing, rank placement, launcher command lines.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "hosts.hpp"
#include "launcher.hpp"

namespace railmpi::mpiexec {
namespace {

std::vector<HostSpec> hosts(std::string_view list) {
  std::vector<HostSpec> out;
  std::string error;
  EXPECT_TRUE(parse_host_list(list, out, error)) << error;
  return out;
}

TEST(HostList, NamesAndSlots) {
  auto h = hosts("a,b:2, c ");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].name, "a");
  EXPECT_EQ(h[0].slots, 0);
  EXPECT_EQ(h[1].name, "b");
  EXPECT_EQ(h[1].slots, 2);
  EXPECT_EQ(h[2].name, "c");
}

TEST(HostList, RejectsBadEntries) {
  for (const char* bad : {"", "a,,b", "a:0", "a:x", "a:2x", "a b", ":3"}) {
    std::vector<HostSpec> out;
    std::string error;
    EXPECT_FALSE(parse_host_list(bad, out, error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

class HostFile : public ::testing::Test {
 protected:
  std::string path = ::testing::TempDir() + "/railmpi_hostfile_" + std::to_string(::getpid());
  void write(const std::string& text) { std::ofstream(path) << text; }
  void TearDown() override { std::remove(path.c_str()); }
};

TEST_F(HostFile, ThreeForms) {
  write("# cluster\nn0\nn1:3   # fat node\n\n  n2 slots=2\n");
  std::vector<HostSpec> out;
  std::string error;
  ASSERT_TRUE(read_hostfile(path, out, error)) << error;
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].name, "n0");
  EXPECT_EQ(out[0].slots, 0);
  EXPECT_EQ(out[1].slots, 3);
  EXPECT_EQ(out[2].name, "n2");
  EXPECT_EQ(out[2].slots, 2);
}

TEST_F(HostFile, ErrorsNameTheLine) {
  write("n0\nn1 cores=2\n");
  std::vector<HostSpec> out;
  std::string error;
  EXPECT_FALSE(read_hostfile(path, out, error));
  EXPECT_NE(error.find(":2:"), std::string::npos) << error;
  write("# nothing\n");
  out.clear();
  EXPECT_FALSE(read_hostfile(path, out, error));
  EXPECT_FALSE(read_hostfile(path + ".missing", out, error));
}

TEST(Placement, BlockEvenWithoutSlots) {
  EXPECT_EQ(place_ranks(hosts("a,b"), 4, 0), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(hosts("a,b"), 5, 0), (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(hosts("a,b,c"), 2, 0), (std::vector<int>{0, 1}));
}

TEST(Placement, PpnFillsInOrderAndCycles) {
  EXPECT_EQ(place_ranks(hosts("a,b"), 4, 2), (std::vector<int>{0, 0, 1, 1}));
  EXPECT_EQ(place_ranks(hosts("a,b"), 6, 2), (std::vector<int>{0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(place_ranks(hosts("a,b,c"), 3, 2), (std::vector<int>{0, 0, 1}));
}

TEST(Placement, SlotsWhenGiven) {
  EXPECT_EQ(place_ranks(hosts("a:1,b:3"), 4, 0), (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(place_ranks(hosts("a:2,b"), 5, 0), (std::vector<int>{0, 0, 1, 0, 0}));
  EXPECT_EQ(place_ranks(hosts("a:2,b:2"), 4, 1), (std::vector<int>{0, 1, 0, 1}));  // -ppn wins
  EXPECT_EQ(default_rank_count(hosts("a:2,b"), 0), 3);
  EXPECT_EQ(default_rank_count(hosts("a:2,b"), 4), 8);
}

TEST(Launcher, Names) {
  LauncherKind k{};
  EXPECT_TRUE(parse_launcher("netns", k));
  EXPECT_EQ(k, LauncherKind::netns);
  EXPECT_FALSE(parse_launcher("rsh", k));
  EXPECT_FALSE(inherits_pmi_fd(LauncherKind::ssh));
  EXPECT_TRUE(inherits_pmi_fd(LauncherKind::netns));
}

TEST(Launcher, ShellQuote) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
}

TEST(Launcher, Commands) {
  const std::vector<std::string> cmd{"./prog", "x y"};
  const std::vector<std::string> env{"PMI_ID=1", "PWD=/here", "A=it's"};
  LaunchCommand fork = launch_command(LauncherKind::fork, "", "h", "/bin/prog", cmd, env, "/w");
  EXPECT_EQ(fork.path, "/bin/prog");
  EXPECT_EQ(fork.argv, cmd);
  LaunchCommand netns = launch_command(LauncherKind::netns, "/sbin/ip", "h1", "/bin/prog", cmd, env, "/w");
  EXPECT_EQ(netns.path, "/sbin/ip");
  EXPECT_EQ(netns.argv, (std::vector<std::string>{"ip", "netns", "exec", "h1", "/bin/prog", "x y"}));
  LaunchCommand ssh = launch_command(LauncherKind::ssh, "/usr/bin/ssh", "h2", "/bin/prog", cmd, env, "/w d");
  EXPECT_EQ(ssh.path, "/usr/bin/ssh");
  ASSERT_EQ(ssh.argv.size(), 3u);
  EXPECT_EQ(ssh.argv[1], "h2");
  // PWD describes mpiexec's shell, not the job: the remote shell sets its own.
  EXPECT_EQ(ssh.argv[2], "cd '/w d' && exec env 'PMI_ID=1' 'A=it'\\''s' '/bin/prog' 'x y'");
}

}  // namespace
}  // namespace railmpi::mpiexec
