// Predefined reduction operations: which (op, datatype) pairs exist (MPI-4.1 section 6.9.2), the
// value each one computes, MINLOC/MAXLOC ties, and the user operation table.
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/reduce_op.hpp"

using railmpi::core::find_reduce;

namespace {

enum Op : int {
  kMax = 0x58000001, kMin, kSum, kProd, kLand, kBand, kLor, kBor, kLxor, kBxor, kMinloc, kMaxloc, kReplace, kNoOp
};
const int kOps[] = {kMax, kMin, kSum, kProd, kLand, kBand, kLor, kBor, kLxor, kBxor, kMinloc, kMaxloc};

enum class Kind { c_int, f_int, floating, logical, complex, byte };

struct Type {
  const char* name;
  int handle;
  Kind kind;
};

const Type kTypes[] = {
    {"CHAR", 0x4c000101, Kind::c_int},          {"SIGNED_CHAR", 0x4c000118, Kind::c_int},
    {"UNSIGNED_CHAR", 0x4c000102, Kind::c_int}, {"SHORT", 0x4c000203, Kind::c_int},
    {"UNSIGNED_SHORT", 0x4c000204, Kind::c_int}, {"INT", 0x4c000405, Kind::c_int},
    {"UNSIGNED", 0x4c000406, Kind::c_int},      {"LONG", 0x4c000807, Kind::c_int},
    {"UNSIGNED_LONG", 0x4c000808, Kind::c_int}, {"LONG_LONG", 0x4c000809, Kind::c_int},
    {"UNSIGNED_LONG_LONG", 0x4c000819, Kind::c_int}, {"INT8_T", 0x4c000137, Kind::c_int},
    {"INT16_T", 0x4c000238, Kind::c_int},       {"INT32_T", 0x4c000439, Kind::c_int},
    {"INT64_T", 0x4c00083a, Kind::c_int},       {"UINT8_T", 0x4c00013b, Kind::c_int},
    {"UINT16_T", 0x4c00023c, Kind::c_int},      {"UINT32_T", 0x4c00043d, Kind::c_int},
    {"UINT64_T", 0x4c00083e, Kind::c_int},      {"AINT", 0x4c000843, Kind::c_int},
    {"OFFSET", 0x4c000844, Kind::c_int},        {"COUNT", 0x4c000845, Kind::c_int},
    {"INTEGER", 0x4c00041b, Kind::f_int},       {"INTEGER1", 0x4c00012d, Kind::f_int},
    {"INTEGER2", 0x4c00022f, Kind::f_int},      {"INTEGER4", 0x4c000430, Kind::f_int},
    {"INTEGER8", 0x4c000831, Kind::f_int},
    {"FLOAT", 0x4c00040a, Kind::floating},      {"DOUBLE", 0x4c00080b, Kind::floating},
    {"LONG_DOUBLE", 0x4c00100c, Kind::floating}, {"REAL", 0x4c00041c, Kind::floating},
    {"DOUBLE_PRECISION", 0x4c00081f, Kind::floating}, {"REAL4", 0x4c000427, Kind::floating},
    {"REAL8", 0x4c000829, Kind::floating},      {"REAL16", 0x4c00102b, Kind::floating},
    {"C_BOOL", 0x4c00013f, Kind::logical},      {"CXX_BOOL", 0x4c000133, Kind::logical},
    {"LOGICAL", 0x4c00041d, Kind::logical},
    {"C_FLOAT_COMPLEX", 0x4c000840, Kind::complex}, {"C_DOUBLE_COMPLEX", 0x4c001041, Kind::complex},
    {"C_LONG_DOUBLE_COMPLEX", 0x4c002042, Kind::complex}, {"CXX_FLOAT_COMPLEX", 0x4c000834, Kind::complex},
    {"CXX_DOUBLE_COMPLEX", 0x4c001035, Kind::complex}, {"CXX_LONG_DOUBLE_COMPLEX", 0x4c002036, Kind::complex},
    {"COMPLEX", 0x4c00081e, Kind::complex},     {"DOUBLE_COMPLEX", 0x4c001022, Kind::complex},
    {"COMPLEX8", 0x4c000828, Kind::complex},    {"COMPLEX16", 0x4c00102a, Kind::complex},
    {"COMPLEX32", 0x4c00202c, Kind::complex},
    {"BYTE", 0x4c00010d, Kind::byte},
};

bool defined(int op, Kind k) {
  const bool integer = k == Kind::c_int || k == Kind::f_int;
  switch (op) {
    case kMax: case kMin: return integer || k == Kind::floating;
    case kSum: case kProd: return integer || k == Kind::floating || k == Kind::complex;
    case kLand: case kLor: case kLxor: return k == Kind::c_int || k == Kind::logical || k == Kind::f_int;
    case kBand: case kBor: case kBxor: return integer || k == Kind::byte;
    default: return false;  // MINLOC/MAXLOC: pair types only
  }
}

TEST(ReduceOp, EveryOpOnEveryTypeIsDefinedExactlyWhereTheStandardSays) {
  for (const Type& t : kTypes)
    for (int op : kOps) {
      // Fortran LOGICAL ops are only for LOGICAL, but C integers accept them; Fortran integers do
      // not in the standard's table (logical ops: C integer, logical). Accept either for f_int.
      if (t.kind == Kind::f_int && (op == kLand || op == kLor || op == kLxor)) continue;
      EXPECT_EQ(find_reduce(op, t.handle) != nullptr, defined(op, t.kind))
          << t.name << " op=0x" << std::hex << op;
    }
}

template <class T>
T run(int op, int type, T in, T inout) {
  auto fn = find_reduce(op, type);
  EXPECT_NE(fn, nullptr);
  if (fn) fn(&in, &inout, 1);
  return inout;
}

template <class T>
void check_integer(int type, const char* name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(run<T>(kMax, type, 6, 3), T(6));
  EXPECT_EQ(run<T>(kMin, type, 6, 3), T(3));
  EXPECT_EQ(run<T>(kSum, type, 6, 3), T(9));
  EXPECT_EQ(run<T>(kProd, type, 6, 3), T(18));
  EXPECT_EQ(run<T>(kBand, type, 6, 3), T(2));
  EXPECT_EQ(run<T>(kBor, type, 6, 3), T(7));
  EXPECT_EQ(run<T>(kBxor, type, 6, 3), T(5));
  if (find_reduce(kLand, type)) {
    EXPECT_EQ(run<T>(kLand, type, 6, 0), T(0));
    EXPECT_EQ(run<T>(kLor, type, 6, 0), T(1));
    EXPECT_EQ(run<T>(kLxor, type, 6, 3), T(0));
  }
}

template <class T>
void check_float(int type, const char* name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(run<T>(kMax, type, 1.5, -2), T(1.5));
  EXPECT_EQ(run<T>(kMin, type, 1.5, -2), T(-2));
  EXPECT_EQ(run<T>(kSum, type, 1.5, -2), T(-0.5));
  EXPECT_EQ(run<T>(kProd, type, 1.5, -2), T(-3));
}

template <class T>
void check_complex(int type, const char* name) {
  SCOPED_TRACE(name);
  using C = std::complex<T>;
  EXPECT_EQ(run<C>(kSum, type, C(1, 2), C(3, 4)), C(4, 6));
  EXPECT_EQ(run<C>(kProd, type, C(1, 2), C(3, 4)), C(-5, 10));
}

TEST(ReduceOp, IntegerValues) {
  check_integer<char>(0x4c000101, "CHAR");
  check_integer<signed char>(0x4c000118, "SIGNED_CHAR");
  check_integer<unsigned char>(0x4c000102, "UNSIGNED_CHAR");
  check_integer<short>(0x4c000203, "SHORT");
  check_integer<unsigned short>(0x4c000204, "UNSIGNED_SHORT");
  check_integer<int>(0x4c000405, "INT");
  check_integer<unsigned>(0x4c000406, "UNSIGNED");
  check_integer<long>(0x4c000807, "LONG");
  check_integer<unsigned long>(0x4c000808, "UNSIGNED_LONG");
  check_integer<long long>(0x4c000809, "LONG_LONG");
  check_integer<unsigned long long>(0x4c000819, "UNSIGNED_LONG_LONG");
  check_integer<std::int8_t>(0x4c000137, "INT8_T");
  check_integer<std::int16_t>(0x4c000238, "INT16_T");
  check_integer<std::int32_t>(0x4c000439, "INT32_T");
  check_integer<std::int64_t>(0x4c00083a, "INT64_T");
  check_integer<std::uint8_t>(0x4c00013b, "UINT8_T");
  check_integer<std::uint16_t>(0x4c00023c, "UINT16_T");
  check_integer<std::uint32_t>(0x4c00043d, "UINT32_T");
  check_integer<std::uint64_t>(0x4c00083e, "UINT64_T");
  check_integer<std::int64_t>(0x4c000843, "AINT");
  check_integer<std::int32_t>(0x4c00041b, "INTEGER");
  check_integer<std::int8_t>(0x4c00012d, "INTEGER1");
  check_integer<std::int16_t>(0x4c00022f, "INTEGER2");
  check_integer<std::int64_t>(0x4c000831, "INTEGER8");
}

TEST(ReduceOp, FloatingValues) {
  check_float<float>(0x4c00040a, "FLOAT");
  check_float<double>(0x4c00080b, "DOUBLE");
  check_float<long double>(0x4c00100c, "LONG_DOUBLE");
  check_float<float>(0x4c00041c, "REAL");
  check_float<double>(0x4c00081f, "DOUBLE_PRECISION");
  check_float<long double>(0x4c00102b, "REAL16");
}

TEST(ReduceOp, ComplexValues) {
  check_complex<float>(0x4c000840, "C_FLOAT_COMPLEX");
  check_complex<double>(0x4c001041, "C_DOUBLE_COMPLEX");
  check_complex<long double>(0x4c002042, "C_LONG_DOUBLE_COMPLEX");
  check_complex<float>(0x4c00081e, "COMPLEX");
  check_complex<double>(0x4c001022, "DOUBLE_COMPLEX");
}

TEST(ReduceOp, LogicalAndByteValues) {
  EXPECT_EQ(run<bool>(kLand, 0x4c00013f, true, false), false);
  EXPECT_EQ(run<bool>(kLor, 0x4c00013f, true, false), true);
  EXPECT_EQ(run<bool>(kLxor, 0x4c00013f, true, true), false);
  EXPECT_EQ(run<std::int32_t>(kLxor, 0x4c00041d, 1, 0), 1);  // Fortran LOGICAL
  EXPECT_EQ(run<unsigned char>(kBxor, 0x4c00010d, 0xf0, 0xff), 0x0f);
  EXPECT_EQ(find_reduce(kSum, 0x4c00010d), nullptr);  // no arithmetic on MPI_BYTE
  EXPECT_EQ(find_reduce(kSum, 0x4c00040e), nullptr);  // nor on MPI_WCHAR (character data)
  EXPECT_EQ(find_reduce(kMax, 0x4c00010f), nullptr);  // nor on MPI_PACKED
}

template <class V, class I>
struct Pair {
  V v;
  I i;
};

template <class V, class I = int>
void check_loc(int type, const char* name) {
  SCOPED_TRACE(name);
  using P = Pair<V, I>;
  P in[3] = {{V(5), I(7)}, {V(2), I(9)}, {V(4), I(3)}};
  P io[3] = {{V(5), I(2)}, {V(3), I(1)}, {V(1), I(0)}};
  auto minloc = find_reduce(kMinloc, type), maxloc = find_reduce(kMaxloc, type);
  ASSERT_NE(minloc, nullptr);
  ASSERT_NE(maxloc, nullptr);
  P a[3], b[3];
  std::memcpy(a, io, sizeof io);
  minloc(in, a, 3);
  EXPECT_EQ(a[0].v, V(5)); EXPECT_EQ(a[0].i, I(2));  // tie: lower index
  EXPECT_EQ(a[1].v, V(2)); EXPECT_EQ(a[1].i, I(9));
  EXPECT_EQ(a[2].v, V(1)); EXPECT_EQ(a[2].i, I(0));
  std::memcpy(b, io, sizeof io);
  maxloc(in, b, 3);
  EXPECT_EQ(b[0].v, V(5)); EXPECT_EQ(b[0].i, I(2));  // tie: lower index
  EXPECT_EQ(b[1].v, V(3)); EXPECT_EQ(b[1].i, I(1));
  EXPECT_EQ(b[2].v, V(4)); EXPECT_EQ(b[2].i, I(3));
  // Ties where `in` has the lower index.
  P t_in{V(1), I(0)}, t_io{V(1), I(4)};
  minloc(&t_in, &t_io, 1);
  EXPECT_EQ(t_io.i, I(0));
}

TEST(ReduceOp, MinlocMaxlocOnEveryPairType) {
  check_loc<int>(0x4c000816, "2INT");
  check_loc<float>(0x8c000000, "FLOAT_INT");
  check_loc<double>(0x8c000001, "DOUBLE_INT");
  check_loc<long>(0x8c000002, "LONG_INT");
  check_loc<short>(0x8c000003, "SHORT_INT");
  check_loc<long double>(0x8c000004, "LONG_DOUBLE_INT");
  check_loc<std::int32_t, std::int32_t>(0x4c000820, "2INTEGER");
  check_loc<float, float>(0x4c000821, "2REAL");
  check_loc<double, double>(0x4c001023, "2DOUBLE_PRECISION");
  EXPECT_EQ(find_reduce(kMinloc, 0x4c000405), nullptr);  // MINLOC on a plain INT
  EXPECT_EQ(find_reduce(kSum, 0x4c000816), nullptr);     // SUM on a pair type
}

TEST(ReduceOp, InvalidHandles) {
  EXPECT_EQ(find_reduce(0x18000000, 0x4c000405), nullptr);  // MPI_OP_NULL
  EXPECT_EQ(find_reduce(kSum, 0x0c000000), nullptr);        // MPI_DATATYPE_NULL
  EXPECT_EQ(find_reduce(0x5800000f, 0x4c000405), nullptr);
  EXPECT_TRUE(railmpi::core::is_accumulate_only_op(kReplace));
  EXPECT_TRUE(railmpi::core::is_accumulate_only_op(kNoOp));
  EXPECT_FALSE(railmpi::core::is_accumulate_only_op(kSum));
  EXPECT_TRUE(railmpi::core::is_predefined_op(kMaxloc));
  EXPECT_FALSE(railmpi::core::is_predefined_op(0x98000000));
}

void user_fn(void*, void*, int*, int*) {}

TEST(OpTable, CreateFindFreeReuse) {
  railmpi::core::OpTable t;
  const int a = t.create(&user_fn, true), b = t.create(&user_fn, false);
  EXPECT_EQ(static_cast<unsigned>(a) & 0xfc000000u, 0x98000000u);
  ASSERT_NE(t.find(a), nullptr);
  ASSERT_NE(t.find(b), nullptr);
  EXPECT_TRUE(t.find(a)->commutative);
  EXPECT_FALSE(t.find(b)->commutative);
  EXPECT_TRUE(t.free(a));
  EXPECT_EQ(t.find(a), nullptr);
  EXPECT_FALSE(t.free(a));
  EXPECT_EQ(t.create(&user_fn, true), a);  // slot reused
  EXPECT_EQ(t.find(kSum), nullptr);
}

}  // namespace
