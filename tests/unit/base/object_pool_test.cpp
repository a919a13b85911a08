#include "base/object_pool.hpp"

#include <gtest/gtest.h>

namespace railmpi::base {
namespace {

struct Item {
  int set_ups = 0;
  int value = 0;
};

TEST(ObjectPool, SetsUpANewObjectOnceAndLendsAGivenOneAgain) {
  ObjectPool<Item> pool;
  auto set_up = [](Item& i) { ++i.set_ups; };
  Item* a = pool.take(set_up);
  Item* b = pool.take(set_up);
  ASSERT_NE(a, b);
  EXPECT_EQ(a->set_ups, 1);
  EXPECT_EQ(b->set_ups, 1);
  a->value = 7;
  pool.give(a);
  Item* again = pool.take(set_up);
  EXPECT_EQ(again, a);
  EXPECT_EQ(again->set_ups, 1);  // not set up a second time
  EXPECT_EQ(again->value, 7);    // kept as it was given back
}

TEST(ObjectPool, LendsTheLastGivenFirstAndKeepsAddressesWhileGrowing) {
  ObjectPool<Item> pool;
  auto none = [](Item&) {};
  Item* first = pool.take(none);
  first->value = 1;
  for (int i = 0; i < 1000; ++i) pool.take(none);  // storage grows; `first` stays where it is
  EXPECT_EQ(first->value, 1);
  Item* x = pool.take(none);
  Item* y = pool.take(none);
  pool.give(x);
  pool.give(y);
  EXPECT_EQ(pool.take(none), y);
  EXPECT_EQ(pool.take(none), x);
}

}  // namespace
}  // namespace railmpi::base
