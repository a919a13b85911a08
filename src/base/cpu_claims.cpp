#include "base/cpu_claims.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/cpus.hpp"

namespace railmpi::base {
namespace {

std::string record_name(int pid) { return std::string(CpuClaims::kPrefix) + std::to_string(pid); }

// The pid a record's file name carries; false for the lock, temporary files and anything else.
bool record_pid(const char* name, int& pid) {
  const std::size_t prefix = std::strlen(CpuClaims::kPrefix);
  if (std::strncmp(name, CpuClaims::kPrefix, prefix) != 0) return false;
  const char* digits = name + prefix;
  if (*digits == '\0' || std::strspn(digits, "0123456789") != std::strlen(digits) || std::strlen(digits) > 9)
    return false;
  pid = std::atoi(digits);
  return pid > 0;
}

// The folder is world-writable (/dev/shm) and mpiexec may run as root: no file in it is followed
// through a symbolic link, and only regular files count (a FIFO would block the open).
constexpr int kNoSurprises = O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

bool regular_file(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

// The lock file, created readable and writable by every user (other users' jobs lock it too; the
// umask took bits away) or opened as it is. O_CLOEXEC: a rank must not inherit the lock (flock
// holds while any descriptor of the open file is open).
int open_lock(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | kNoSurprises, 0666);
  if (fd >= 0) {
    ::fchmod(fd, 0666);
  } else if (errno == EEXIST) {
    fd = ::open(path.c_str(), O_RDWR | kNoSurprises);
  }
  if (fd >= 0 && !regular_file(fd)) {
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

// A record's text: "START CPULIST RANKS", RANKS the number of ranks on each CPU of the list in
// its order ("1,3"). `cpus`: one entry per rank, in increasing order.
std::string record_text(unsigned long long started, const std::vector<int>& cpus) {
  std::vector<int> distinct = cpus;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::string ranks;
  for (int c : distinct) {
    if (!ranks.empty()) ranks += ',';
    ranks += std::to_string(std::count(cpus.begin(), cpus.end(), c));
  }
  return std::to_string(started) + " " + cpu_list_text(distinct) + " " + ranks + "\n";
}

constexpr std::size_t kMostRanks = 1 << 16;

// A record's start time and its ranks' CPUs (one entry per rank); false when it is not a regular
// file holding one. A record without RANKS (written by an earlier mpiexec) has one rank a CPU.
bool read_record(const std::string& path, unsigned long long& started, std::vector<int>& cpus) {
  const int fd = ::open(path.c_str(), O_RDONLY | kNoSurprises);
  if (fd < 0) return false;
  char text[4096] = {};
  const ssize_t n = regular_file(fd) ? ::read(fd, text, sizeof text - 1) : -1;
  ::close(fd);
  if (n <= 0) return false;
  std::istringstream in(std::string(text, static_cast<std::size_t>(n)));
  std::string list, ranks;
  std::vector<int> distinct;
  if (!(in >> started >> list) || !parse_cpu_list(list, distinct)) return false;
  if (!(in >> ranks)) {
    cpus = distinct;
    return true;
  }
  if (std::count(ranks.begin(), ranks.end(), ',') + 1 != static_cast<std::ptrdiff_t>(distinct.size())) return false;
  const char* next = ranks.c_str();
  for (int c : distinct) {
    char* end = nullptr;
    const long k = std::strtol(next, &end, 10);
    // Anyone may write in the folder: a record of more ranks than kMostRanks is not one.
    if (end == next || (*end != ',' && *end != '\0') || k < 1 || cpus.size() + std::size_t(k) > kMostRanks)
      return false;
    cpus.insert(cpus.end(), static_cast<std::size_t>(k), c);
    next = *end ? end + 1 : end;
  }
  return true;
}

// Writes `text` to a new file `path` (none may be there: a stale one is removed first).
bool write_new_file(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | kNoSurprises, 0644);
  if (fd < 0 && errno == EEXIST && ::unlink(path.c_str()) == 0)
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | kNoSurprises, 0644);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return ::close(fd) == 0 && written;
}

}  // namespace

bool process_start_time(int pid, unsigned long long& out) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return false;
  const std::size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 1));
  std::string field;
  for (int n = 3; n <= 22; ++n) {
    if (!(fields >> field)) return false;
  }
  char* end = nullptr;
  out = std::strtoull(field.c_str(), &end, 10);
  return end != field.c_str() && *end == '\0';
}

CpuClaims::CpuClaims(const std::string& folder) : folder_(folder) {
  if (folder.empty() || folder == "none") {
    why_not_ = "RAILMPI_CPU_CLAIMS=" + folder;
    return;
  }
  const std::string lock = folder + "/" + kPrefix + "lock";
  lock_fd_ = open_lock(lock);
  if (lock_fd_ < 0) {
    why_not_ = "cannot open " + lock + ": " + std::strerror(errno);
    return;
  }
  while (::flock(lock_fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    why_not_ = "cannot lock " + lock + ": " + std::strerror(errno);
    ::close(lock_fd_);
    lock_fd_ = -1;
    return;
  }
}

CpuClaims::~CpuClaims() {
  unlock();
  if (claimed_) ::unlink((folder_ + "/" + record_name(::getpid())).c_str());
}

void CpuClaims::unlock() {
  if (lock_fd_ < 0) return;
  ::close(lock_fd_);  // releases the flock
  lock_fd_ = -1;
}

std::vector<int> CpuClaims::held_by_others() {
  std::vector<int> held;
  if (lock_fd_ < 0) return held;
  DIR* dir = ::opendir(folder_.c_str());
  if (!dir) return held;
  const int self = ::getpid();
  while (const dirent* e = ::readdir(dir)) {
    int pid = 0;
    if (!record_pid(e->d_name, pid) || pid == self) continue;
    const std::string path = folder_ + "/" + e->d_name;
    unsigned long long started = 0, now_started = 0;
    std::vector<int> cpus;
    if (!read_record(path, started, cpus) || !process_start_time(pid, now_started) || now_started != started) {
      ::unlink(path.c_str());  // the job is gone (or the file is not a record); another user's stays
      continue;
    }
    held.insert(held.end(), cpus.begin(), cpus.end());
  }
  ::closedir(dir);
  std::sort(held.begin(), held.end());
  return held;
}

void CpuClaims::claim(const std::vector<int>& cpus) {
  if (lock_fd_ < 0 || claimed_) {
    unlock();
    return;
  }
  unsigned long long started = 0;
  if (!cpus.empty() && process_start_time(::getpid(), started)) {
    const std::string path = folder_ + "/" + record_name(::getpid());
    const std::string tmp = path + ".tmp";
    std::vector<int> sorted = cpus;
    std::sort(sorted.begin(), sorted.end());
    claimed_ = write_new_file(tmp, record_text(started, sorted)) &&
               ::rename(tmp.c_str(), path.c_str()) == 0;
    if (!claimed_) ::unlink(tmp.c_str());
  }
  unlock();
}

}  // namespace railmpi::base
