// The runnable count of /proc/loadavg, and reading it.
#include "base/runnable_tasks.hpp"

#include <gtest/gtest.h>

namespace railmpi::base {
namespace {

TEST(RunnableTasks, ParsesTheRunnableField) {
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 3/245 12345\n"), 3);
  EXPECT_EQ(runnable_tasks_of("10.00 9.50 8.25 17/1024 99"), 17);
  EXPECT_EQ(runnable_tasks_of("0.00 0.00 0.00 0/1 1"), 0);
}

TEST(RunnableTasks, RejectsOtherText) {
  EXPECT_EQ(runnable_tasks_of(""), -1);
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59"), -1);
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 "), -1);
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 3"), -1);       // no "/T"
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 x/245 1"), -1);
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 -3/245 1"), -1);
  EXPECT_EQ(runnable_tasks_of("0.52 0.58 0.59 99999999999/245 1"), -1);  // does not fit
}

TEST(RunnableTasks, ReadsThisMachinesCount) {
  RunnableTasks tasks;
  const int n = tasks.count();
  EXPECT_GE(n, 1) << "this test runs";
  EXPECT_GE(tasks.count(), 1) << "a second read of the same descriptor";
}

TEST(RunnableTasks, UnknownWithoutTheFile) {
  RunnableTasks tasks("/nonexistent/loadavg");
  EXPECT_EQ(tasks.count(), -1);
}

}  // namespace
}  // namespace railmpi::base
