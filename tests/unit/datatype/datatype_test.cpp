// Derived datatypes in core: flattening into compact segments, bounds, pack/unpack round trips,
// partial unpack, element counts, reference counting.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "core/datatype.hpp"
#include "core/datatype/datatype.hpp"
#include "core/datatype/type_table.hpp"

using namespace railmpi::core;
namespace dt = railmpi::core::dtype;

namespace {

// The derived types of these tests (in the library, the runtime object holds the table).
dt::TypeTable tb;

constexpr int kInt = 0x4c000405;
constexpr int kChar = 0x4c000101;
constexpr int kDouble = 0x4c00080b;
constexpr int kLong = 0x4c000807;

const dt::Datatype& obj(int h) {
  const dt::Datatype* t = tb.find(h);
  EXPECT_NE(t, nullptr);
  return *t;
}

int committed(int h) {
  dt::commit(tb, h);
  return h;
}

// Packs `count` of `type` from `src`, unpacks into a zeroed buffer, and checks that exactly the
// bytes of the type map were copied (against `expected_offsets`, bytes relative to the buffer).
std::vector<std::byte> round_trip(int type, std::size_t count, std::size_t buf_bytes, std::ptrdiff_t base = 0) {
  std::vector<std::byte> src(buf_bytes), dst(buf_bytes);
  for (std::size_t i = 0; i < buf_bytes; ++i) src[i] = std::byte(i * 7 + 1);
  const TypeInfo ti = type_info(tb, type);
  std::vector<std::byte> packed(ti.size * count);
  pack(tb, src.data() + base, count, type, packed.data());
  unpack(tb, packed.data(), packed.size(), count, type, dst.data() + base);
  // Every non-zero byte of dst equals src.
  for (std::size_t i = 0; i < buf_bytes; ++i)
    if (dst[i] != std::byte(0)) {
      EXPECT_EQ(dst[i], src[i]) << "at " << i;
    }
  return dst;
}

}  // namespace

TEST(Datatype, BuiltinInfo) {
  const TypeInfo t = type_info(tb, kInt);
  EXPECT_TRUE(t.valid);
  EXPECT_TRUE(t.contiguous);
  EXPECT_FALSE(t.derived);
  EXPECT_EQ(t.size, 4u);
  EXPECT_FALSE(type_info(tb, 0x8c000010).valid);
}

TEST(Datatype, ContiguousIsOneSegmentAndContiguous) {
  const int h = dt::type_contiguous(tb, 100, kInt);
  EXPECT_FALSE(type_info(tb, h).valid) << "not committed yet";
  dt::commit(tb, h);
  const TypeInfo t = type_info(tb, h);
  EXPECT_TRUE(t.valid);
  EXPECT_TRUE(t.derived);
  EXPECT_TRUE(t.contiguous);
  EXPECT_EQ(t.size, 400u);
  EXPECT_EQ(t.extent, 400);
  EXPECT_EQ(obj(h).segments.size(), 1u);
  EXPECT_EQ((static_cast<std::uint32_t>(h) & 0xfc000000u), 0x8c000000u);
  EXPECT_GE(static_cast<std::uint32_t>(h) & 0x03ffffffu, 16u);
  dt::user_free(tb, h);
}

TEST(Datatype, VectorOf1000BlocksIsOneSegment) {
  const int h = committed(dt::type_vector(tb, 1000, 2, 5, kInt));
  const dt::Datatype& t = obj(h);
  ASSERT_EQ(t.segments.size(), 1u);
  EXPECT_EQ(t.segments[0].count, 1000u);
  EXPECT_EQ(t.segments[0].length, 8u);
  EXPECT_EQ(t.segments[0].stride, 20);
  EXPECT_EQ(t.size, 8000u);
  EXPECT_EQ(t.extent(), (999 * 5 + 2) * 4);
  EXPECT_FALSE(t.contiguous);
  EXPECT_EQ(t.elements, 2000u);
  round_trip(h, 2, 2 * 20000);
  // A vector whose blocks touch is contiguous.
  const int c = committed(dt::type_vector(tb, 10, 3, 3, kInt));
  EXPECT_TRUE(type_info(tb, c).contiguous);
  EXPECT_EQ(obj(c).segments.size(), 1u);
  dt::user_free(tb, h);
  dt::user_free(tb, c);
}

TEST(Datatype, VectorPackOrder) {
  const int h = committed(dt::type_vector(tb, 3, 1, 4, kInt));
  int src[12];
  std::iota(src, src + 12, 0);
  int packed[3];
  pack(tb, src, 1, h, reinterpret_cast<std::byte*>(packed));
  EXPECT_EQ(packed[0], 0);
  EXPECT_EQ(packed[1], 4);
  EXPECT_EQ(packed[2], 8);
  // Two copies: the second starts one extent ((2*4+1) ints) later.
  int packed2[6];
  int big[24];
  std::iota(big, big + 24, 0);
  pack(tb, big, 2, h, reinterpret_cast<std::byte*>(packed2));
  EXPECT_EQ(packed2[3], 9);
  EXPECT_EQ(packed2[5], 17);
  dt::user_free(tb, h);
}

TEST(Datatype, HvectorIndexedHindexedBlocks) {
  const int hv = committed(dt::type_hvector(tb, 4, 1, 12, kDouble));
  EXPECT_EQ(obj(hv).segments.size(), 1u);
  EXPECT_EQ(obj(hv).extent(), 3 * 12 + 8);
  round_trip(hv, 3, 400);

  const int bl[3] = {2, 1, 3};
  const int disp[3] = {0, 5, 10};
  const int ix = committed(dt::type_indexed(tb, 3, bl, disp, kInt));
  EXPECT_EQ(obj(ix).size, 24u);
  EXPECT_EQ(obj(ix).extent(), 13 * 4);
  int src[40], dst[40] = {};
  std::iota(src, src + 40, 100);
  int packed[12];
  pack(tb, src, 2, ix, reinterpret_cast<std::byte*>(packed));
  EXPECT_EQ(packed[0], 100);
  EXPECT_EQ(packed[2], 105);
  EXPECT_EQ(packed[3], 110);
  EXPECT_EQ(packed[6], 113);  // second copy starts at extent 13 ints
  unpack(tb, reinterpret_cast<std::byte*>(packed), sizeof packed, 2, ix, dst);
  EXPECT_EQ(dst[12], 112);
  EXPECT_EQ(dst[3], 0);

  const std::ptrdiff_t hdisp[2] = {16, 0};
  const int hbl[2] = {1, 2};
  const int hx = committed(dt::type_hindexed(tb, 2, hbl, hdisp, kInt));
  EXPECT_EQ(obj(hx).lb, 0);
  EXPECT_EQ(obj(hx).ub, 20);
  int out[3];
  pack(tb, src, 1, hx, reinterpret_cast<std::byte*>(out));
  EXPECT_EQ(out[0], 104);
  EXPECT_EQ(out[1], 100);
  EXPECT_EQ(out[2], 101);

  const int ibd[4] = {0, 3, 6, 9};
  const int ib = committed(dt::type_indexed_block(tb, 4, 2, ibd, kInt));
  EXPECT_EQ(obj(ib).segments.size(), 1u) << "regular displacements merge into one strided segment";
  round_trip(ib, 2, 200);

  const std::ptrdiff_t hbd[3] = {0, 100, 40};
  const int hb = committed(dt::type_hindexed_block(tb, 3, 1, hbd, kDouble));
  EXPECT_EQ(obj(hb).extent(), 108);
  round_trip(hb, 1, 200);
  for (int h : {hv, ix, hx, ib, hb}) dt::user_free(tb, h);
}

TEST(Datatype, StructPaddingAndElements) {
  struct S {
    double d;
    char c;
  };
  const int bl[2] = {1, 1};
  const std::ptrdiff_t disp[2] = {0, 8};
  const int types[2] = {kDouble, kChar};
  const int h = committed(dt::type_struct(tb, 2, bl, disp, types));
  EXPECT_EQ(obj(h).size, 9u);
  EXPECT_EQ(obj(h).extent(), static_cast<std::ptrdiff_t>(sizeof(S)));
  EXPECT_EQ(obj(h).elements, 2u);
  S a[3] = {{1.5, 'a'}, {2.5, 'b'}, {3.5, 'c'}}, b[3] = {};
  std::byte packed[27];
  pack(tb, a, 3, h, packed);
  unpack(tb, packed, sizeof packed, 3, h, b);
  EXPECT_EQ(b[2].d, 3.5);
  EXPECT_EQ(b[2].c, 'c');
  // Element counts: 9 bytes per copy = 2 elements; 8 bytes = the double; a partial basic element
  // of a derived type does not count.
  EXPECT_EQ(count_elements(tb, h, 27), 6u);
  EXPECT_EQ(count_elements(tb, h, 17), 3u);
  EXPECT_EQ(count_elements(tb, h, 8), 1u);
  EXPECT_EQ(count_elements(tb, h, 4), 0u);
  EXPECT_EQ(count_elements(tb, h, 13), 2u);
  EXPECT_EQ(count_elements(tb, kInt, 12), 3u);
  EXPECT_EQ(count_elements(tb, kInt, 13), kNotWholeElements);
  dt::user_free(tb, h);
}

TEST(Datatype, LbUbMarkersAndResized) {
  // struct { MPI_LB at -4, int at 0, MPI_UB at 12 }
  const int bl[3] = {1, 1, 1};
  const std::ptrdiff_t disp[3] = {-4, 0, 12};
  const int types[3] = {dt::kLbMarker, kInt, dt::kUbMarker};
  const int h = committed(dt::type_struct(tb, 3, bl, disp, types));
  EXPECT_EQ(obj(h).lb, -4);
  EXPECT_EQ(obj(h).ub, 12);
  EXPECT_EQ(obj(h).true_lb, 0);
  EXPECT_EQ(obj(h).true_ub, 4);
  EXPECT_EQ(obj(h).size, 4u);
  const TypeInfo ti = type_info(tb, h);
  EXPECT_FALSE(ti.contiguous);

  const int r = committed(dt::type_resized(tb, kInt, -8, 32));
  EXPECT_EQ(obj(r).lb, -8);
  EXPECT_EQ(obj(r).extent(), 32);
  EXPECT_EQ(obj(r).true_lb, 0);
  EXPECT_EQ(obj(r).true_ub - obj(r).true_lb, 4);
  // Contiguous of a resized int: ints 32 bytes apart, one strided segment.
  const int c = committed(dt::type_contiguous(tb, 5, r));
  EXPECT_EQ(obj(c).segments.size(), 1u);
  EXPECT_EQ(obj(c).segments[0].stride, 32);
  EXPECT_EQ(obj(c).lb, -8);
  EXPECT_EQ(obj(c).extent(), 160);
  round_trip(c, 2, 600, 100);
  // A resized type whose extent equals its size stays contiguous.
  const int v = dt::type_vector(tb, 2, 1, 2, kInt);
  const int rv = committed(dt::type_resized(tb, v, 0, 4));
  EXPECT_FALSE(type_info(tb, rv).contiguous);
  for (int x : {h, r, c, v, rv}) dt::user_free(tb, x);
}

TEST(Datatype, NestedVectorOfVector) {
  const int inner = dt::type_vector(tb, 3, 1, 2, kInt);      // 3 ints, 8 bytes apart; extent 20
  const int outer = committed(dt::type_hvector(tb, 4, 1, 64, inner));
  EXPECT_EQ(obj(outer).size, 48u);
  EXPECT_LE(obj(outer).segments.size(), 4u);
  round_trip(outer, 2, 1024);
  const int cont = committed(dt::type_contiguous(tb, 4, inner));
  EXPECT_EQ(obj(cont).size, 48u);
  round_trip(cont, 3, 1024);
  dt::user_free(tb, inner);
  dt::user_free(tb, outer);
  dt::user_free(tb, cont);
}

TEST(Datatype, SubarrayColumnAndBlock) {
  // 2-D 6x8 array of ints (C order); subarray 4 rows x 3 columns from (1, 2).
  const int sizes[2] = {6, 8}, sub[2] = {4, 3}, starts[2] = {1, 2};
  const int h = committed(dt::type_subarray(tb, 2, sizes, sub, starts, true, kInt));
  EXPECT_EQ(obj(h).size, 48u);
  EXPECT_EQ(obj(h).lb, 0);
  EXPECT_EQ(obj(h).extent(), 6 * 8 * 4);
  EXPECT_EQ(obj(h).segments.size(), 1u);
  EXPECT_EQ(obj(h).true_lb, (1 * 8 + 2) * 4);
  int a[48], p[12];
  std::iota(a, a + 48, 0);
  pack(tb, a, 1, h, reinterpret_cast<std::byte*>(p));
  EXPECT_EQ(p[0], 10);
  EXPECT_EQ(p[2], 12);
  EXPECT_EQ(p[3], 18);
  EXPECT_EQ(p[11], 36);
  // Fortran order: the first index varies fastest.
  const int f = committed(dt::type_subarray(tb, 2, sizes, sub, starts, false, kInt));
  pack(tb, a, 1, f, reinterpret_cast<std::byte*>(p));
  EXPECT_EQ(p[0], 2 * 6 + 1);
  EXPECT_EQ(p[1], 2 * 6 + 2);
  EXPECT_EQ(p[4], 3 * 6 + 1);
  // 3-D.
  const int s3[3] = {4, 5, 6}, sub3[3] = {2, 3, 4}, st3[3] = {1, 1, 1};
  const int h3 = committed(dt::type_subarray(tb, 3, s3, sub3, st3, true, kDouble));
  EXPECT_EQ(obj(h3).size, 24u * 8);
  EXPECT_LE(obj(h3).segments.size(), 2u);
  round_trip(h3, 1, 120 * 8);
  for (int x : {h, f, h3}) dt::user_free(tb, x);
}

TEST(Datatype, DarrayBlockAndCyclic) {
  // 8x6 array over a 2x2 grid: block rows, cyclic columns; union over ranks covers everything once.
  const int g[2] = {8, 6}, distrib[2] = {0, 1}, dargs[2] = {-1, -1}, ps[2] = {2, 2};
  std::vector<int> owner(48, -1);
  std::size_t total = 0;
  for (int r = 0; r < 4; ++r) {
    const int h = committed(dt::type_darray(tb, 4, r, 2, g, distrib, dargs, ps, true, kInt));
    EXPECT_EQ(obj(h).extent(), 48 * 4);
    int a[48], p[48];
    std::iota(a, a + 48, 0);
    pack(tb, a, 1, h, reinterpret_cast<std::byte*>(p));
    const std::size_t n = obj(h).size / 4;
    total += n;
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_EQ(owner[std::size_t(p[i])], -1);
      owner[std::size_t(p[i])] = r;
      const int row = p[i] / 6, col = p[i] % 6;
      EXPECT_EQ(row / 4, r / 2);
      EXPECT_EQ(col % 2, r % 2);
      if (i) {
        EXPECT_LT(p[i - 1], p[i]);
      }
    }
    round_trip(h, 2, 2 * 48 * 4);
    dt::user_free(tb, h);
  }
  EXPECT_EQ(total, 48u);
}

TEST(Datatype, PartialUnpack) {
  const int h = committed(dt::type_vector(tb, 4, 2, 3, kInt));
  int src[12], dst[12] = {};
  std::iota(src, src + 12, 1);
  std::byte packed[32];
  pack(tb, src, 1, h, packed);
  unpack(tb, packed, 12, 1, h, dst);  // 3 ints arrive
  EXPECT_EQ(dst[0], 1);
  EXPECT_EQ(dst[1], 2);
  EXPECT_EQ(dst[3], 4);
  EXPECT_EQ(dst[4], 0);
  EXPECT_EQ(count_elements(tb, h, 12), 3u);
  EXPECT_EQ(count_elements(tb, h, 32 + 8), 10u);
  dt::user_free(tb, h);
}

TEST(Datatype, External32) {
  const int h = committed(dt::type_vector(tb, 2, 1, 2, kInt));
  int src[4] = {0x01020304, 0, 0x0a0b0c0d, 0};
  EXPECT_EQ(external32_size(tb, 1, h), 8u);
  std::byte out[8];
  pack_external32(tb, src, 1, h, out);
  EXPECT_EQ(out[0], std::byte(1));
  EXPECT_EQ(out[3], std::byte(4));
  EXPECT_EQ(out[4], std::byte(0x0a));
  int back[4] = {};
  unpack_external32(tb, out, 1, h, back);
  EXPECT_EQ(back[0], 0x01020304);
  EXPECT_EQ(back[2], 0x0a0b0c0d);
  long l = -5, l2 = 0;
  EXPECT_EQ(external32_size(tb, 1, kLong), 4u);
  pack_external32(tb, &l, 1, kLong, out);
  EXPECT_EQ(out[0], std::byte(0xff));
  EXPECT_EQ(out[3], std::byte(0xfb));
  unpack_external32(tb, out, 1, kLong, &l2);
  EXPECT_EQ(l2, -5);
  dt::user_free(tb, h);
}

TEST(Datatype, ReferenceCounting) {
  const std::size_t before = tb.live();
  const int inner = dt::type_contiguous(tb, 2, kInt);
  const int outer = committed(dt::type_vector(tb, 3, 1, 2, inner));
  dt::user_free(tb, inner);
  EXPECT_EQ(tb.find(inner), nullptr) << "freed handle is unusable";
  EXPECT_NE(tb.find(inner, true), nullptr) << "but kept alive by outer";
  dt::retain(tb, outer);  // a pending operation
  dt::user_free(tb, outer);
  EXPECT_FALSE(type_info(tb, outer).valid);
  int src[20], dst[20] = {};
  std::iota(src, src + 20, 0);
  std::byte packed[24];
  pack(tb, src, 1, outer, packed);  // still usable by the operation
  unpack(tb, packed, 24, 1, outer, dst);
  EXPECT_EQ(dst[9], 9);
  dt::release(tb, outer);
  EXPECT_EQ(tb.live(), before);
}

TEST(Datatype, DupAndClone) {
  const int v = committed(dt::type_vector(tb, 3, 1, 2, kInt));
  const int d = dt::type_dup(tb, v);
  EXPECT_TRUE(type_info(tb, d).valid) << "dup of a committed type is committed";
  EXPECT_EQ(obj(d).combiner, dt::kDup);
  const int c = dt::type_clone(tb, v);
  EXPECT_EQ(obj(c).combiner, dt::kVector);
  EXPECT_EQ(obj(c).integers, (std::vector<int>{3, 1, 2}));
  for (int x : {v, d, c}) dt::user_free(tb, x);
}

TEST(PredefinedTypeInfo, FillWritesEveryMemberOverWhatWasThere) {
  TypeInfo t;
  // What a derived type's info leaves in a TypeInfo that is filled again (checks reuse one).
  t.valid = true;
  t.contiguous = false;
  t.size = 99;
  t.lb = -7;
  t.extent = 123;
  t.true_lb = 5;
  t.true_extent = 77;
  t.derived = true;
  ASSERT_TRUE(fill_predefined_type_info(kDouble, t));
  EXPECT_TRUE(t.valid);
  EXPECT_TRUE(t.contiguous);
  EXPECT_EQ(t.size, 8u);
  EXPECT_EQ(t.lb, 0);
  EXPECT_EQ(t.extent, 8);
  EXPECT_EQ(t.true_lb, 0);
  EXPECT_EQ(t.true_extent, 8);
  EXPECT_FALSE(t.derived);
  const TypeInfo v = predefined_type_info(kChar);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.size, 1u);
  EXPECT_EQ(v.extent, 1);
  // Not a predefined handle: invalid, and nothing of the old contents is left to be trusted.
  t.derived = true;
  EXPECT_FALSE(fill_predefined_type_info(0x12345678, t));
  EXPECT_FALSE(t.valid);
  EXPECT_FALSE(t.contiguous);
  EXPECT_FALSE(t.derived);
  EXPECT_FALSE(predefined_type_info(0).valid);
}
