// core::cart_shift against shifting the coordinates themselves (core::cart_coords, cart_rank),
// for every rank, dimension and move of -7..7 on a 3 x 4 x 2 grid with mixed periodicity.
#include <gtest/gtest.h>

#include <vector>

#include "core/communicator.hpp"

using namespace railmpi::core;

namespace {

// The rank `disp` steps along `dim` from `rank`, by its coordinates.
int by_coordinates(const Topology& t, int rank, int dim, int disp) {
  std::vector<int> c(t.dims.size());
  cart_coords(t, rank, c.data());
  c[std::size_t(dim)] += disp;
  return cart_rank(t, c.data());
}

}  // namespace

TEST(CartShift, MatchesShiftingTheCoordinates) {
  for (const std::vector<int>& periods : {std::vector<int>{1, 0, 1}, std::vector<int>{0, 1, 0}}) {
    Topology t;
    t.kind = TopoKind::cart;
    t.dims = {3, 4, 2};
    t.periods = periods;
    for (int rank = 0; rank < 24; ++rank)
      for (int dim = 0; dim < 3; ++dim)
        for (int disp = -7; disp <= 7; ++disp) {
          int source = -2, dest = -2;
          cart_shift(t, rank, dim, disp, source, dest);
          EXPECT_EQ(dest, by_coordinates(t, rank, dim, disp)) << rank << " " << dim << " " << disp;
          EXPECT_EQ(source, by_coordinates(t, rank, dim, -disp)) << rank << " " << dim << " " << disp;
        }
  }
}

TEST(CartShift, NonPeriodicEdgesAreProcNull) {
  Topology t;
  t.kind = TopoKind::cart;
  t.dims = {5};
  t.periods = {0};
  int source = 0, dest = 0;
  cart_shift(t, 0, 0, 1, source, dest);
  EXPECT_EQ(source, kProcNull);
  EXPECT_EQ(dest, 1);
  cart_shift(t, 4, 0, 2, source, dest);
  EXPECT_EQ(source, 2);
  EXPECT_EQ(dest, kProcNull);
}
