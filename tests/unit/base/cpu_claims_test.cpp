// The machine-wide record of the CPUs running mpiexec jobs bound ranks to: other processes'
// records, removal of the records of processes that are gone, the lock that makes reading and
// writing one step.
#include "base/cpu_claims.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace railmpi::base {
namespace {

namespace fs = std::filesystem;

class CpuClaimsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/railmpi_claims_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    folder_ = tmpl;
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string record_of(int pid) const { return folder_ + "/" + CpuClaims::kPrefix + std::to_string(pid); }
  void write_record(int pid, unsigned long long started, const std::string& cpus) const {
    std::ofstream(record_of(pid)) << started << " " << cpus << "\n";
  }

  std::string folder_;
};

// A child that claims `cpus`, says so on a pipe, and keeps its record until the parent closes the
// other pipe.
struct ClaimingChild {
  pid_t pid = -1;
  int go_fd = -1;

  ClaimingChild(const std::string& folder, std::vector<int> cpus) {
    int ready[2], go[2];
    if (::pipe(ready) != 0 || ::pipe(go) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      ::close(ready[0]);
      ::close(go[1]);
      {
        CpuClaims claims(folder);
        claims.claim(cpus);
        char c = 1;
        if (::write(ready[1], &c, 1) != 1) ::_exit(3);
        if (::read(go[0], &c, 1) < 0) ::_exit(4);
      }  // the record goes with the object
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(go[0]);
    char c = 0;
    if (::read(ready[0], &c, 1) != 1) pid = -1;
    ::close(ready[0]);
    go_fd = go[1];
  }
  // Lets the child end; its exit status.
  int finish() {
    ::close(go_fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

TEST_F(CpuClaimsTest, AnotherJobsCpusAreHeldUntilItEnds) {
  ClaimingChild other(folder_, {3, 1});
  ASSERT_GT(other.pid, 0);
  EXPECT_TRUE(fs::exists(record_of(other.pid)));
  {
    CpuClaims mine(folder_);
    ASSERT_TRUE(mine.usable()) << mine.why_not();
    EXPECT_EQ(mine.held_by_others(), (std::vector<int>{1, 3}));
    mine.claim({0});
    EXPECT_TRUE(fs::exists(record_of(::getpid())));
    CpuClaims again(folder_);
    EXPECT_EQ(again.held_by_others(), (std::vector<int>{1, 3}));  // its own record is not another's
  }
  EXPECT_FALSE(fs::exists(record_of(::getpid())));
  EXPECT_EQ(other.finish(), 0);
  EXPECT_FALSE(fs::exists(record_of(other.pid)));
  CpuClaims after(folder_);
  EXPECT_TRUE(after.held_by_others().empty());
}

TEST_F(CpuClaimsTest, RecordsOfProcessesGoneAreRemoved) {
  const pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  write_record(gone, 12345, "0-1");
  unsigned long long parent_started = 0;
  ASSERT_TRUE(process_start_time(::getppid(), parent_started));
  write_record(::getppid(), parent_started + 1, "2");  // the pid now names a process started later
  const int init = ::getppid() == 1 ? 2 : 1;
  write_record(init, 0, "junk");  // no CPU list: not a record
  std::ofstream(folder_ + "/" + CpuClaims::kPrefix + "notapid") << "0 5\n";
  CpuClaims claims(folder_);
  EXPECT_TRUE(claims.held_by_others().empty());
  EXPECT_FALSE(fs::exists(record_of(gone)));
  EXPECT_FALSE(fs::exists(record_of(::getppid())));
  EXPECT_FALSE(fs::exists(record_of(init)));
  EXPECT_TRUE(fs::exists(folder_ + "/" + CpuClaims::kPrefix + "notapid"));  // not a record's name: left
}

TEST_F(CpuClaimsTest, ALiveProcesssRecordCounts) {
  unsigned long long parent_started = 0;
  ASSERT_TRUE(process_start_time(::getppid(), parent_started));
  write_record(::getppid(), parent_started, "4-6,9");
  CpuClaims claims(folder_);
  EXPECT_EQ(claims.held_by_others(), (std::vector<int>{4, 5, 6, 9}));
  EXPECT_TRUE(fs::exists(record_of(::getppid())));
}

// Oversubscribed jobs run several ranks a CPU: a record counts them, so the next job can start
// where the fewest run. A record without the counts (an earlier mpiexec's) has one rank a CPU.
TEST_F(CpuClaimsTest, RanksPerCpuAreCounted) {
  ClaimingChild other(folder_, {1, 0, 1, 0, 1});
  ASSERT_GT(other.pid, 0);
  std::ifstream in(record_of(other.pid));
  unsigned long long started = 0;
  std::string list, ranks;
  in >> started >> list >> ranks;
  EXPECT_EQ(list, "0-1");
  EXPECT_EQ(ranks, "2,3");
  unsigned long long parent_started = 0;
  ASSERT_TRUE(process_start_time(::getppid(), parent_started));
  write_record(::getppid(), parent_started, "1,4");  // no counts
  {
    CpuClaims claims(folder_);
    EXPECT_EQ(claims.held_by_others(), (std::vector<int>{0, 0, 1, 1, 1, 1, 4}));
  }
  EXPECT_EQ(other.finish(), 0);
  // Counts that do not match the list make no record.
  for (const char* bad : {"1,4 1", "1,4 1,2,3", "1,4 0,1", "1,4 x,1", "1,4 1,2,", "1,4 1,999999999"}) {
    write_record(::getppid(), parent_started, bad);
    CpuClaims claims(folder_);
    EXPECT_TRUE(claims.held_by_others().empty()) << bad;
    EXPECT_FALSE(fs::exists(record_of(::getppid()))) << bad;
  }
}

// A job that has read the others' records holds the lock until it wrote its own: one started at
// the same moment waits, then sees it.
TEST_F(CpuClaimsTest, ReadingAndClaimingIsOneStep) {
  int seen[2], locked[2];
  ASSERT_EQ(::pipe(seen), 0);
  ASSERT_EQ(::pipe(locked), 0);
  // The child starts before the parent takes the lock (a descriptor inherited by fork would share
  // the lock).
  const pid_t second = ::fork();
  if (second == 0) {
    ::close(seen[0]);
    ::close(locked[1]);
    char c = 0;
    if (::read(locked[0], &c, 1) != 1) ::_exit(4);
    CpuClaims claims(folder_);  // waits until the parent claimed
    const std::vector<int> held = claims.held_by_others();
    c = held == std::vector<int>{0} ? 'y' : 'n';
    ::_exit(::write(seen[1], &c, 1) == 1 ? 0 : 3);
  }
  ::close(seen[1]);
  ::close(locked[0]);
  CpuClaims first(folder_);
  ASSERT_TRUE(first.held_by_others().empty());
  char c = 1;
  ASSERT_EQ(::write(locked[1], &c, 1), 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  first.claim({0});
  c = 0;
  EXPECT_EQ(::read(seen[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  ::close(seen[0]);
  ::close(locked[1]);
  int status = 0;
  ::waitpid(second, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(CpuClaimsTest, NoneOrAMissingFolderRecordsNothing) {
  CpuClaims off("none");
  EXPECT_FALSE(off.usable());
  EXPECT_TRUE(off.held_by_others().empty());
  off.claim({0});
  CpuClaims missing(folder_ + "/missing");
  EXPECT_FALSE(missing.usable());
  EXPECT_NE(missing.why_not().find(folder_ + "/missing"), std::string::npos) << missing.why_not();
  missing.claim({0});
  EXPECT_TRUE(fs::is_empty(folder_));
}

// The folder is world-writable and mpiexec may run as root: links are not followed, and a FIFO
// where a record should be does not block.
TEST_F(CpuClaimsTest, LinksAndFifosInTheFolderAreNotFollowed) {
  const std::string target = folder_ + "/target";
  std::ofstream(target) << "secret\n";
  ASSERT_EQ(::chmod(target.c_str(), 0600), 0);
  const std::string lock = folder_ + "/" + CpuClaims::kPrefix + "lock";
  ASSERT_EQ(::symlink(target.c_str(), lock.c_str()), 0);
  {
    CpuClaims claims(folder_);
    EXPECT_FALSE(claims.usable());
  }
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // not made writable by all
  ASSERT_EQ(::unlink(lock.c_str()), 0);

  unsigned long long parent_started = 0;
  ASSERT_TRUE(process_start_time(::getppid(), parent_started));
  std::ofstream(target) << parent_started << " 7\n";  // a valid record, reached only through a link
  ASSERT_EQ(::symlink(target.c_str(), record_of(::getppid()).c_str()), 0);
  ASSERT_EQ(::mkfifo(record_of(1).c_str(), 0644), 0);
  CpuClaims claims(folder_);
  ASSERT_TRUE(claims.usable()) << claims.why_not();
  EXPECT_TRUE(claims.held_by_others().empty());
  EXPECT_FALSE(fs::exists(fs::symlink_status(record_of(::getppid()))));
  EXPECT_FALSE(fs::exists(fs::symlink_status(record_of(1))));
  EXPECT_TRUE(fs::exists(target));
}

TEST_F(CpuClaimsTest, TheLockIsSharedAcrossUsers) {
  { CpuClaims claims(folder_); }
  struct stat st {};
  ASSERT_EQ(::stat((folder_ + "/" + CpuClaims::kPrefix + "lock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0666u);
}

}  // namespace
}  // namespace railmpi::base
