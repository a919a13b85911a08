#include "core/reduce_op.hpp"

#include <cstdint>
#include <type_traits>

namespace railmpi::core {
namespace {

enum Op : unsigned { kMax = 1, kMin, kSum, kProd, kLand, kBand, kLor, kBor, kLxor, kBxor, kMinloc, kMaxloc };

template <class T, class F>
void apply(const void* in, void* inout, std::size_t n, F f) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = f(a[i], b[i]);
}

template <class T, unsigned O>
void reduce(const void* in, void* inout, std::size_t n) {
  if constexpr (O == kMax) apply<T>(in, inout, n, [](T a, T b) { return a > b ? a : b; });
  else if constexpr (O == kMin) apply<T>(in, inout, n, [](T a, T b) { return a < b ? a : b; });
  else if constexpr (O == kSum) apply<T>(in, inout, n, [](T a, T b) { return T(a + b); });
  else if constexpr (O == kProd) apply<T>(in, inout, n, [](T a, T b) { return T(a * b); });
  else if constexpr (O == kLand) apply<T>(in, inout, n, [](T a, T b) { return T(a && b); });
  else if constexpr (O == kLor) apply<T>(in, inout, n, [](T a, T b) { return T(a || b); });
  else if constexpr (O == kLxor) apply<T>(in, inout, n, [](T a, T b) { return T(!a != !b); });
  else if constexpr (O == kBand) apply<T>(in, inout, n, [](T a, T b) { return T(a & b); });
  else if constexpr (O == kBor) apply<T>(in, inout, n, [](T a, T b) { return T(a | b); });
  else if constexpr (O == kBxor) apply<T>(in, inout, n, [](T a, T b) { return T(a ^ b); });
}

// Value-index pairs for MINLOC/MAXLOC: on ties the lower index wins.
template <class V>
struct Pair {
  V value;
  int index;
};
template <class V, unsigned O>
void reduce_loc(const void* in, void* inout, std::size_t n) {
  const auto* a = static_cast<const Pair<V>*>(in);
  auto* b = static_cast<Pair<V>*>(inout);
  for (std::size_t i = 0; i < n; ++i) {
    const bool a_wins = O == kMaxloc ? a[i].value > b[i].value : a[i].value < b[i].value;
    if (a_wins) b[i] = a[i];
    else if (a[i].value == b[i].value && a[i].index < b[i].index) b[i].index = a[i].index;
  }
}

enum class Kind { integer, floating, logical, byte, none };

template <class T>
ReduceFn pick(unsigned op, Kind kind) {
  switch (op) {
    case kMax: return kind == Kind::integer || kind == Kind::floating ? &reduce<T, kMax> : nullptr;
    case kMin: return kind == Kind::integer || kind == Kind::floating ? &reduce<T, kMin> : nullptr;
    case kSum: return kind == Kind::integer || kind == Kind::floating ? &reduce<T, kSum> : nullptr;
    case kProd: return kind == Kind::integer || kind == Kind::floating ? &reduce<T, kProd> : nullptr;
    case kLand: return kind == Kind::integer || kind == Kind::logical ? &reduce<T, kLand> : nullptr;
    case kLor: return kind == Kind::integer || kind == Kind::logical ? &reduce<T, kLor> : nullptr;
    case kLxor: return kind == Kind::integer || kind == Kind::logical ? &reduce<T, kLxor> : nullptr;
    case kBand:
      if constexpr (std::is_integral_v<T>) return kind == Kind::integer || kind == Kind::byte ? &reduce<T, kBand> : nullptr;
      return nullptr;
    case kBor:
      if constexpr (std::is_integral_v<T>) return kind == Kind::integer || kind == Kind::byte ? &reduce<T, kBor> : nullptr;
      return nullptr;
    case kBxor:
      if constexpr (std::is_integral_v<T>) return kind == Kind::integer || kind == Kind::byte ? &reduce<T, kBxor> : nullptr;
      return nullptr;
    default: return nullptr;
  }
}

}  // namespace

ReduceFn find_reduce(int op_handle, int datatype) {
  const auto h = static_cast<std::uint32_t>(op_handle);
  if ((h & 0xffffff00u) != 0x58000000u) return nullptr;
  const unsigned op = h & 0xffu;
  const auto t = static_cast<std::uint32_t>(datatype);
  if (op == kMinloc || op == kMaxloc) {
    const bool max = op == kMaxloc;
    switch (t) {
      case 0x4c000816u: return max ? &reduce_loc<int, kMaxloc> : &reduce_loc<int, kMinloc>;                // 2INT
      case 0x8c000000u: return max ? &reduce_loc<float, kMaxloc> : &reduce_loc<float, kMinloc>;            // FLOAT_INT
      case 0x8c000001u: return max ? &reduce_loc<double, kMaxloc> : &reduce_loc<double, kMinloc>;          // DOUBLE_INT
      case 0x8c000002u: return max ? &reduce_loc<long, kMaxloc> : &reduce_loc<long, kMinloc>;              // LONG_INT
      case 0x8c000003u: return max ? &reduce_loc<short, kMaxloc> : &reduce_loc<short, kMinloc>;            // SHORT_INT
      case 0x8c000004u: return max ? &reduce_loc<long double, kMaxloc> : &reduce_loc<long double, kMinloc>;
      default: return nullptr;
    }
  }
  switch (t) {
    case 0x4c000101u: return pick<char>(op, Kind::integer);                // CHAR
    case 0x4c000118u: return pick<signed char>(op, Kind::integer);         // SIGNED_CHAR
    case 0x4c000102u: return pick<unsigned char>(op, Kind::integer);       // UNSIGNED_CHAR
    case 0x4c00010du: return pick<unsigned char>(op, Kind::byte);          // BYTE
    case 0x4c000203u: return pick<short>(op, Kind::integer);               // SHORT
    case 0x4c000204u: return pick<unsigned short>(op, Kind::integer);      // UNSIGNED_SHORT
    case 0x4c000405u: return pick<int>(op, Kind::integer);                 // INT
    case 0x4c000406u: return pick<unsigned>(op, Kind::integer);            // UNSIGNED
    case 0x4c000807u: return pick<long>(op, Kind::integer);                // LONG
    case 0x4c000808u: return pick<unsigned long>(op, Kind::integer);       // UNSIGNED_LONG
    case 0x4c000809u: return pick<long long>(op, Kind::integer);           // LONG_LONG
    case 0x4c000819u: return pick<unsigned long long>(op, Kind::integer);  // UNSIGNED_LONG_LONG
    case 0x4c000137u: return pick<std::int8_t>(op, Kind::integer);
    case 0x4c000238u: return pick<std::int16_t>(op, Kind::integer);
    case 0x4c000439u: return pick<std::int32_t>(op, Kind::integer);
    case 0x4c00083au: return pick<std::int64_t>(op, Kind::integer);
    case 0x4c00013bu: return pick<std::uint8_t>(op, Kind::integer);
    case 0x4c00023cu: return pick<std::uint16_t>(op, Kind::integer);
    case 0x4c00043du: return pick<std::uint32_t>(op, Kind::integer);
    case 0x4c00083eu: return pick<std::uint64_t>(op, Kind::integer);
    case 0x4c000843u: return pick<std::int64_t>(op, Kind::integer);        // AINT
    case 0x4c000844u: return pick<std::int64_t>(op, Kind::integer);        // OFFSET
    case 0x4c000845u: return pick<std::int64_t>(op, Kind::integer);        // COUNT
    case 0x4c00040eu: return pick<wchar_t>(op, Kind::integer);             // WCHAR
    case 0x4c00040au: return pick<float>(op, Kind::floating);              // FLOAT
    case 0x4c00080bu: return pick<double>(op, Kind::floating);             // DOUBLE
    case 0x4c00100cu: return pick<long double>(op, Kind::floating);        // LONG_DOUBLE
    case 0x4c00013fu: return pick<bool>(op, Kind::logical);                // C_BOOL
    case 0x4c000133u: return pick<bool>(op, Kind::logical);                // CXX_BOOL
    default: return nullptr;
  }
}

}  // namespace railmpi::core
