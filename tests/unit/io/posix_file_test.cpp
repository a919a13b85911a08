#include <gtest/gtest.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "io/posix_file.hpp"

using railmpi::io::PosixFile;

namespace {

std::string temp_path(const char* what) {
  return "/tmp/railmpi_io_test_" + std::to_string(::getpid()) + "_" + what;
}

std::span<const std::byte> bytes_of(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

}  // namespace

TEST(PosixFile, WritesAndReadsAtOffsets) {
  const std::string path = temp_path("rw");
  PosixFile f;
  ASSERT_EQ(f.open(path, {PosixFile::Access::read_write, true, false}), 0);
  std::size_t done = 0;
  ASSERT_EQ(f.write_at(10, bytes_of("hello"), done), 0);
  EXPECT_EQ(done, 5u);
  std::uint64_t size = 0;
  ASSERT_EQ(f.size(size), 0);
  EXPECT_EQ(size, 15u);
  std::vector<std::byte> in(8);
  ASSERT_EQ(f.read_at(8, in, done), 0);
  EXPECT_EQ(done, 7u);  // the end of the file ends the read
  EXPECT_EQ(std::memcmp(in.data() + 2, "hello", 5), 0);
  EXPECT_EQ(in[0], std::byte{0});  // the hole before offset 10 reads as zeros
  EXPECT_EQ(f.close(), 0);
  EXPECT_EQ(railmpi::io::remove_file(path), 0);
}

TEST(PosixFile, ExclusiveCreateFailsOnAnExistingFile) {
  const std::string path = temp_path("excl");
  PosixFile a, b;
  ASSERT_EQ(a.open(path, {PosixFile::Access::write, true, true}), 0);
  EXPECT_EQ(b.open(path, {PosixFile::Access::write, true, true}), EEXIST);
  EXPECT_FALSE(b.is_open());
  EXPECT_EQ(railmpi::io::remove_file(path), 0);
  EXPECT_EQ(railmpi::io::remove_file(path), ENOENT);
}

TEST(PosixFile, MissingFileWithoutCreate) {
  PosixFile f;
  EXPECT_EQ(f.open(temp_path("missing"), {PosixFile::Access::read, false, false}), ENOENT);
}

TEST(PosixFile, TruncateAndPreallocate) {
  const std::string path = temp_path("size");
  PosixFile f;
  ASSERT_EQ(f.open(path, {PosixFile::Access::read_write, true, false}), 0);
  std::uint64_t size = 0;
  ASSERT_EQ(f.preallocate(4096), 0);
  ASSERT_EQ(f.size(size), 0);
  EXPECT_EQ(size, 4096u);
  ASSERT_EQ(f.preallocate(100), 0);  // never shrinks
  ASSERT_EQ(f.size(size), 0);
  EXPECT_EQ(size, 4096u);
  ASSERT_EQ(f.truncate(10), 0);
  ASSERT_EQ(f.size(size), 0);
  EXPECT_EQ(size, 10u);
  EXPECT_EQ(f.sync(), 0);
  EXPECT_EQ(railmpi::io::remove_file(path), 0);
}

TEST(PosixFile, ReadOnlyRefusesWrites) {
  const std::string path = temp_path("ro");
  {
    PosixFile w;
    ASSERT_EQ(w.open(path, {PosixFile::Access::write, true, false}), 0);
  }
  PosixFile r;
  ASSERT_EQ(r.open(path, {PosixFile::Access::read, false, false}), 0);
  std::size_t done = 0;
  EXPECT_EQ(r.write_at(0, bytes_of("x"), done), EBADF);
  EXPECT_EQ(railmpi::io::remove_file(path), 0);
}
