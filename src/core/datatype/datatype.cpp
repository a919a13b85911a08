// Derived datatypes: flattening, bounds, the handle table, pack/unpack and element counts.
#include "core/datatype/datatype.hpp"

#include "core/datatype/type_table.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/datatype.hpp"

namespace railmpi::core::dtype {
namespace {

// ---- predefined types --------------------------------------------------------------------------

// Index byte of builtin handles whose elements are pairs / complex numbers: swapped in halves.
bool is_pair_of_halves(std::uint32_t index) {
  switch (index) {
    case 0x16: case 0x1e: case 0x20: case 0x21: case 0x22: case 0x23: case 0x28: case 0x2a: case 0x2c:
    case 0x34: case 0x35: case 0x36: case 0x40: case 0x41: case 0x42:
      return true;
    default:
      return false;
  }
}

// Basic elements in one predefined element: 2 for the pair types (MPI_2INT, MPI_FLOAT_INT, ...).
std::size_t pair_factor(int handle) {
  const auto h = static_cast<std::uint32_t>(handle);
  if ((h & 0xfffffff8u) == 0x8c000000u) return 2;
  switch (h & 0xff) {
    case 0x16: case 0x20: case 0x21: case 0x23: return (h >> 30) == 1 ? 2 : 1;
    default: return 1;
  }
}

std::size_t builtin_align(int handle, std::size_t size) {
  const auto h = static_cast<std::uint32_t>(handle);
  switch (h) {
    case 0x8c000000u: case 0x8c000003u: return 4;  // FLOAT_INT, SHORT_INT
    case 0x8c000001u: case 0x8c000002u: return 8;  // DOUBLE_INT, LONG_INT
    case 0x8c000004u: return 16;                   // LONG_DOUBLE_INT
    default: break;
  }
  if (is_pair_of_halves(h & 0xff)) size /= 2;
  if (size == 0) return 1;
  return std::min<std::size_t>(size, 16);
}

// ---- flattening --------------------------------------------------------------------------------

void normalize(Segment& s) {
  if (s.count > 1 && s.stride == static_cast<std::ptrdiff_t>(s.length)) {
    s.length *= s.count;
    s.count = 1;
    s.stride = 0;
  }
  if (s.count == 1) s.stride = 0;
}

// Appends a segment, merging it into the last one when it continues it.
void append(std::vector<Segment>& segs, Segment s) {
  if (s.count == 0 || s.length == 0) return;
  normalize(s);
  if (!segs.empty()) {
    Segment& last = segs.back();
    if (last.basic == s.basic) {
      if (last.count == 1 && s.count == 1 && last.offset + static_cast<std::ptrdiff_t>(last.length) == s.offset) {
        last.length += s.length;
        return;
      }
      if (last.length == s.length) {
        if (last.count == 1 && s.count == 1) {
          last.stride = s.offset - last.offset;
          last.count = 2;
          return;
        }
        if (last.count > 1 && s.count == 1 && s.offset == last.offset + static_cast<std::ptrdiff_t>(last.count) * last.stride) {
          ++last.count;
          return;
        }
        if (s.count > 1 && (last.count == 1 || last.stride == s.stride) &&
            s.offset == last.offset + static_cast<std::ptrdiff_t>(last.count) * s.stride) {
          last.count += s.count;
          last.stride = s.stride;
          return;
        }
      }
    }
  }
  segs.push_back(s);
}

// Appends n copies of t (extent apart) at disp.
void append_copies(std::vector<Segment>& segs, const Datatype& t, std::ptrdiff_t disp, std::size_t n) {
  const std::ptrdiff_t ext = t.extent();
  if (t.segments.size() == 1) {
    const Segment& s = t.segments[0];
    if (s.count == 1) {
      append(segs, Segment{disp + s.offset, s.length, n, ext, s.basic});
      return;
    }
    if (static_cast<std::ptrdiff_t>(s.count) * s.stride == ext) {
      append(segs, Segment{disp + s.offset, s.length, s.count * n, s.stride, s.basic});
      return;
    }
  }
  for (std::size_t k = 0; k < n; ++k)
    for (const Segment& s : t.segments) {
      Segment c = s;
      c.offset += disp + static_cast<std::ptrdiff_t>(k) * ext;
      append(segs, c);
    }
}

void finish_layout(Datatype& t) {
  t.size = 0;
  t.elements = 0;
  bool any = false;
  std::ptrdiff_t lo = 0, hi = 0;
  for (const Segment& s : t.segments) {
    t.size += s.length * s.count;
    bool valid;
    const std::size_t bs = core::builtin_size(s.basic, valid);
    if (bs) t.elements += s.count * (s.length / bs) * pair_factor(s.basic);
    const std::ptrdiff_t first = s.offset;
    const std::ptrdiff_t last = s.offset + static_cast<std::ptrdiff_t>(s.count - 1) * s.stride;
    const std::ptrdiff_t a = std::min(first, last), b = std::max(first, last) + static_cast<std::ptrdiff_t>(s.length);
    if (!any) {
      lo = a;
      hi = b;
      any = true;
    } else {
      lo = std::min(lo, a);
      hi = std::max(hi, b);
    }
  }
  t.true_lb = any ? lo : 0;
  t.true_ub = any ? hi : 0;
  // Contiguous: the blocks follow each other in memory order from true_lb, and copies touch.
  bool contig = true;
  std::ptrdiff_t at = t.true_lb;
  for (const Segment& s : t.segments) {
    if (s.offset != at || (s.count > 1 && s.stride != static_cast<std::ptrdiff_t>(s.length))) {
      contig = false;
      break;
    }
    at += static_cast<std::ptrdiff_t>(s.length * s.count);
  }
  t.contiguous = contig && (t.size == 0 || t.extent() == static_cast<std::ptrdiff_t>(t.size));
}

}  // namespace

bool describe_builtin(int handle, Datatype& out) {
  out = Datatype{};
  out.handle = handle;
  if (handle == kLbMarker || handle == kUbMarker) {
    out.lb_marked = handle == kLbMarker;
    out.ub_marked = handle == kUbMarker;
    out.has_lb = out.lb_marked;
    out.has_ub = out.ub_marked;
    out.contiguous = true;
    return true;
  }
  bool valid = false;
  const std::size_t size = core::builtin_size(handle, valid);
  if (!valid || handle == 0x0c000000) return false;
  out.size = size;
  out.ub = out.true_ub = static_cast<std::ptrdiff_t>(size);
  out.align = builtin_align(handle, size);
  out.contiguous = true;
  out.committed = true;
  out.elements = size ? pair_factor(handle) : 0;
  if (size) out.segments.push_back(Segment{0, size, 1, 0, handle});
  return true;
}

const Datatype* lookup(const TypeTable& tb, int handle, Datatype& scratch, bool allow_freed) {
  if (Datatype* t = tb.find(handle, allow_freed)) return t;
  return describe_builtin(handle, scratch) ? &scratch : nullptr;
}

Datatype build(std::span<const Block> blocks, bool struct_padding) {
  Datatype t;
  bool lb_any = false, ub_any = false;
  for (const Block& b : blocks) {
    if (b.n == 0) continue;
    const Datatype& o = *b.type;
    const std::ptrdiff_t span = static_cast<std::ptrdiff_t>(b.n - 1) * o.extent();
    const std::ptrdiff_t lb = b.disp + o.lb + std::min<std::ptrdiff_t>(0, span);
    const std::ptrdiff_t ub = b.disp + o.ub + std::max<std::ptrdiff_t>(0, span);
    if (o.has_lb) {
      if (o.lb_marked && !t.lb_marked) {  // explicit bounds override data bounds
        t.lb = lb;
        t.lb_marked = true;
      } else if (o.lb_marked == t.lb_marked) {
        t.lb = lb_any ? std::min(t.lb, lb) : lb;
      }
      lb_any = true;
    }
    if (o.has_ub) {
      if (o.ub_marked && !t.ub_marked) {
        t.ub = ub;
        t.ub_marked = true;
      } else if (o.ub_marked == t.ub_marked) {
        t.ub = ub_any ? std::max(t.ub, ub) : ub;
      }
      ub_any = true;
    }
    t.align = std::max(t.align, o.align);
    append_copies(t.segments, o, b.disp, b.n);
  }
  if (!lb_any) t.lb = 0;
  if (!ub_any) t.ub = t.lb;
  if (t.ub < t.lb && !t.ub_marked && !t.lb_marked) t.ub = t.lb;
  if (struct_padding && !t.ub_marked && t.align > 1) {
    const auto a = static_cast<std::ptrdiff_t>(t.align);
    const std::ptrdiff_t ext = t.ub - t.lb;
    if (ext % a) t.ub += a - ext % a;
  }
  finish_layout(t);
  return t;
}

Datatype resize(const Datatype& old, std::ptrdiff_t lb, std::ptrdiff_t extent) {
  Datatype t;
  t.segments = old.segments;
  t.align = old.align;
  t.lb = lb;
  t.ub = lb + extent;
  t.lb_marked = t.ub_marked = true;
  finish_layout(t);
  return t;
}

Datatype array_type(std::span<const int> sizes, std::span<const std::vector<std::pair<long, long>>> runs,
                    bool order_c, const Datatype& old) {
  const std::size_t nd = sizes.size();
  const std::ptrdiff_t ext = old.extent();
  // Dimension order from the fastest varying one.
  std::vector<std::size_t> dims(nd);
  for (std::size_t i = 0; i < nd; ++i) dims[i] = order_c ? nd - 1 - i : i;
  Datatype cur = old;
  std::ptrdiff_t stride = ext;
  bool first = true;
  for (std::size_t d : dims) {
    std::vector<Block> blocks;
    if (first) {
      for (const auto& [start, len] : runs[d])
        blocks.push_back(Block{static_cast<std::ptrdiff_t>(start) * stride, static_cast<std::size_t>(len), &cur});
    } else {
      for (const auto& [start, len] : runs[d])
        for (long i = start; i < start + len; ++i)
          blocks.push_back(Block{static_cast<std::ptrdiff_t>(i) * stride, 1, &cur});
    }
    Datatype next = build(blocks, false);
    next.lb = 0;  // bounds of the partial array are set at the end
    next.ub = 0;
    next.lb_marked = next.ub_marked = false;
    cur = std::move(next);
    stride *= sizes[d];
    first = false;
  }
  return resize(cur, 0, stride);
}

int register_type(TypeTable& tb, Datatype t, int combiner, std::vector<int> integers,
                  std::vector<std::ptrdiff_t> addresses, std::vector<int> types) {
  auto obj = std::make_unique<Datatype>(std::move(t));
  obj->refs = 1;
  obj->committed = false;
  obj->user_freed = false;
  obj->combiner = combiner;
  obj->integers = std::move(integers);
  obj->addresses = std::move(addresses);
  obj->types = std::move(types);
  obj->name.clear();
  for (int h : obj->types) retain(tb, h);
  return tb.add(std::move(obj))->handle;
}

void commit(TypeTable& tb, int handle) {
  Datatype* t = tb.find(handle);
  if (!t) return;
  t->committed = true;
  t->layout_blocks.clear();
  for (const Segment& s : t->segments) t->layout_blocks.push_back({s.offset, s.length, s.count, s.stride});
}

void retain(TypeTable& tb, int handle) {
  if (Datatype* t = tb.find(handle, true)) ++t->refs;
}

void release(TypeTable& tb, int handle) {
  Datatype* t = tb.find(handle, true);
  if (!t || --t->refs > 0) return;
  const std::vector<int> inner = std::move(t->types);
  tb.remove(handle);
  for (int h : inner) release(tb, h);
}

void user_free(TypeTable& tb, int handle) {
  Datatype* t = tb.find(handle);
  if (!t) return;
  t->user_freed = true;
  release(tb, handle);
}

// ---- constructors ------------------------------------------------------------------------------

namespace {

const Datatype& get(const TypeTable& tb, int handle, Datatype& scratch) {
  static const Datatype empty{};
  const Datatype* t = lookup(tb, handle, scratch);
  return t ? *t : empty;
}

}  // namespace

int type_contiguous(TypeTable& tb, int count, int old) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  const Block b{0, static_cast<std::size_t>(count), &o};
  return register_type(tb, build({&b, 1}, false), kContiguous, {count}, {}, {old});
}

int type_vector(TypeTable& tb, int count, int blocklength, int stride, int old) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    blocks[std::size_t(i)] = Block{static_cast<std::ptrdiff_t>(i) * stride * o.extent(), std::size_t(blocklength), &o};
  return register_type(tb, build(blocks, false), kVector, {count, blocklength, stride}, {}, {old});
}

int type_hvector(TypeTable& tb, int count, int blocklength, std::ptrdiff_t stride, int old, int combiner) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    blocks[std::size_t(i)] = Block{static_cast<std::ptrdiff_t>(i) * stride, std::size_t(blocklength), &o};
  return register_type(tb, build(blocks, false), combiner, {count, blocklength}, {stride}, {old});
}

int type_indexed(TypeTable& tb, int count, const int* blocklengths, const int* displacements, int old) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  std::vector<int> ints{count};
  for (int i = 0; i < count; ++i) {
    blocks[std::size_t(i)] = Block{static_cast<std::ptrdiff_t>(displacements[i]) * o.extent(),
                                   std::size_t(blocklengths[i]), &o};
    ints.push_back(blocklengths[i]);
  }
  ints.insert(ints.end(), displacements, displacements + count);
  return register_type(tb, build(blocks, false), kIndexed, std::move(ints), {}, {old});
}

int type_hindexed(TypeTable& tb, int count, const int* blocklengths, const std::ptrdiff_t* displacements, int old, int combiner) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  std::vector<int> ints{count};
  for (int i = 0; i < count; ++i) {
    blocks[std::size_t(i)] = Block{displacements[i], std::size_t(blocklengths[i]), &o};
    ints.push_back(blocklengths[i]);
  }
  return register_type(tb, build(blocks, false), combiner, std::move(ints),
                       std::vector<std::ptrdiff_t>(displacements, displacements + count), {old});
}

int type_indexed_block(TypeTable& tb, int count, int blocklength, const int* displacements, int old) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  std::vector<int> ints{count, blocklength};
  for (int i = 0; i < count; ++i)
    blocks[std::size_t(i)] = Block{static_cast<std::ptrdiff_t>(displacements[i]) * o.extent(), std::size_t(blocklength), &o};
  ints.insert(ints.end(), displacements, displacements + count);
  return register_type(tb, build(blocks, false), kIndexedBlock, std::move(ints), {}, {old});
}

int type_hindexed_block(TypeTable& tb, int count, int blocklength, const std::ptrdiff_t* displacements, int old) {
  Datatype s;
  const Datatype& o = get(tb, old, s);
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) blocks[std::size_t(i)] = Block{displacements[i], std::size_t(blocklength), &o};
  return register_type(tb, build(blocks, false), kHindexedBlock, {count, blocklength},
                       std::vector<std::ptrdiff_t>(displacements, displacements + count), {old});
}

int type_struct(TypeTable& tb, int count, const int* blocklengths, const std::ptrdiff_t* displacements, const int* types,
                int combiner) {
  std::vector<Datatype> scratch(static_cast<std::size_t>(count));
  std::vector<Block> blocks(static_cast<std::size_t>(count));
  std::vector<int> ints{count};
  for (int i = 0; i < count; ++i) {
    blocks[std::size_t(i)] = Block{displacements[i], std::size_t(blocklengths[i]), &get(tb, types[i], scratch[std::size_t(i)])};
    ints.push_back(blocklengths[i]);
  }
  return register_type(tb, build(blocks, true), combiner, std::move(ints),
                       std::vector<std::ptrdiff_t>(displacements, displacements + count),
                       std::vector<int>(types, types + count));
}

int type_resized(TypeTable& tb, int old, std::ptrdiff_t lb, std::ptrdiff_t extent) {
  Datatype s;
  return register_type(tb, resize(get(tb, old, s), lb, extent), kResized, {}, {lb, extent}, {old});
}

int type_dup(TypeTable& tb, int old) {
  Datatype s;
  Datatype t = get(tb, old, s);
  const bool committed = t.committed;
  const int h = register_type(tb, std::move(t), kDup, {}, {}, {old});
  if (committed) commit(tb, h);
  return h;
}

int type_f90(TypeTable& tb, int base, int combiner, std::vector<int> integers) {
  Datatype s;
  const int h = register_type(tb, get(tb, base, s), combiner, std::move(integers), {}, {});
  commit(tb, h);
  return h;
}

int type_clone(TypeTable& tb, int handle) {
  const Datatype* t = tb.find(handle, true);
  if (!t) return 0;
  Datatype copy = *t;
  const bool committed = copy.committed;
  const int combiner = copy.combiner;
  auto ints = copy.integers;
  auto addrs = copy.addresses;
  auto types = copy.types;
  const int h = register_type(tb, std::move(copy), combiner, std::move(ints), std::move(addrs), std::move(types));
  if (committed) commit(tb, h);
  return h;
}

int type_subarray(TypeTable& tb, int ndims, const int* sizes, const int* subsizes, const int* starts, bool order_c, int old) {
  Datatype s;
  std::vector<std::vector<std::pair<long, long>>> runs(static_cast<std::size_t>(ndims));
  for (int d = 0; d < ndims; ++d) runs[std::size_t(d)].push_back({starts[d], subsizes[d]});
  Datatype t = array_type({sizes, std::size_t(ndims)}, runs, order_c, get(tb, old, s));
  std::vector<int> ints{ndims};
  ints.insert(ints.end(), sizes, sizes + ndims);
  ints.insert(ints.end(), subsizes, subsizes + ndims);
  ints.insert(ints.end(), starts, starts + ndims);
  ints.push_back(order_c ? 56 : 57);
  return register_type(tb, std::move(t), kSubarray, std::move(ints), {}, {old});
}

int type_darray(TypeTable& tb, int size, int rank, int ndims, const int* gsizes, const int* distribs, const int* dargs,
                const int* psizes, bool order_c, int old) {
  Datatype s;
  // Process coordinates: the process grid is row-major whatever the array order.
  std::vector<int> coords(static_cast<std::size_t>(ndims));
  int r = rank;
  for (int d = ndims - 1; d >= 0; --d) {
    coords[std::size_t(d)] = r % psizes[d];
    r /= psizes[d];
  }
  std::vector<std::vector<std::pair<long, long>>> runs(static_cast<std::size_t>(ndims));
  for (int d = 0; d < ndims; ++d) {
    auto& rd = runs[std::size_t(d)];
    const long g = gsizes[d], p = psizes[d], c = coords[std::size_t(d)];
    if (distribs[d] == 2) {  // none
      rd.push_back({0, g});
    } else if (distribs[d] == 0) {  // block
      const long b = dargs[d] < 0 ? (g + p - 1) / p : dargs[d];
      const long lo = std::min(g, c * b), hi = std::min(g, (c + 1) * b);
      if (hi > lo) rd.push_back({lo, hi - lo});
    } else {  // cyclic
      const long k = dargs[d] < 0 ? 1 : dargs[d];
      for (long lo = c * k; lo < g; lo += p * k) rd.push_back({lo, std::min(k, g - lo)});
    }
  }
  Datatype t = array_type({gsizes, std::size_t(ndims)}, runs, order_c, get(tb, old, s));
  std::vector<int> ints{size, rank, ndims};
  ints.insert(ints.end(), gsizes, gsizes + ndims);
  ints.insert(ints.end(), distribs, distribs + ndims);
  ints.insert(ints.end(), dargs, dargs + ndims);
  ints.insert(ints.end(), psizes, psizes + ndims);
  ints.push_back(order_c ? 56 : 57);
  return register_type(tb, std::move(t), kDarray, std::move(ints), {}, {old});
}

std::size_t external32_size(int basic) {
  switch (static_cast<std::uint32_t>(basic)) {
    case 0x4c000807u: case 0x4c000808u: return 4;  // MPI_LONG, MPI_UNSIGNED_LONG
    case 0x4c00040eu: return 2;                    // MPI_WCHAR
    default: break;
  }
  bool valid;
  return core::builtin_size(basic, valid);
}

}  // namespace railmpi::core::dtype

// ---- the interface of core/datatype.hpp --------------------------------------------------------

namespace railmpi::core {
namespace {

using dtype::Datatype;
using dtype::Segment;

// Calls f(offset, length, basic) for every block of `count` copies in type-map order; stops when f
// returns false.
template <class F>
void walk(const Datatype& t, std::size_t count, F&& f) {
  const std::ptrdiff_t ext = t.extent();
  for (std::size_t i = 0; i < count; ++i) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(i) * ext;
    for (const Segment& s : t.segments) {
      std::ptrdiff_t off = base + s.offset;
      for (std::size_t k = 0; k < s.count; ++k, off += s.stride)
        if (!f(off, s.length, s.basic)) return;
    }
  }
}

// Bytes in one element of `type` when it is a predefined datatype (true), which is one run of
// bytes: the callers then need no Datatype described (dtype::lookup() writes a predefined type's
// segment into a vector, an allocation in every MPI_Pack of MPI_INT).
inline bool predefined(int type, std::size_t& size) {
  bool valid;
  size = builtin_size(type, valid);
  return valid;
}

inline std::byte* at(void* buf, std::ptrdiff_t off) {
  return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(off));
}

// Big-endian external32 conversion of one block of basic elements.
void to_external(const std::byte* in, std::size_t len, int basic, std::byte* out) {
  bool valid;
  const std::size_t n = core::builtin_size(basic, valid);
  const std::size_t e = dtype::external32_size(basic);
  const auto h = static_cast<std::uint32_t>(basic);
  std::size_t unit = (h >> 30) == 1 && dtype::external32_size(basic) == n ? n : 0;
  if ((h >> 30) == 1) {
    const std::uint32_t idx = h & 0xff;
    if (idx == 0x16 || idx == 0x1e || idx == 0x20 || idx == 0x21 || idx == 0x22 || idx == 0x23 || idx == 0x28 ||
        idx == 0x2a || idx == 0x2c || idx == 0x34 || idx == 0x35 || idx == 0x36 || idx == 0x40 || idx == 0x41 ||
        idx == 0x42)
      unit = n / 2;
  } else {
    unit = 4;  // pair types: converted in 4-byte units (approximation)
  }
  if (n == 0) return;
  const std::size_t elems = len / n;
  if (e < n) {  // narrower external size (MPI_LONG: 4 bytes): low-order bytes, big-endian
    for (std::size_t i = 0; i < elems; ++i)
      for (std::size_t b = 0; b < e; ++b) out[i * e + b] = in[i * n + (e - 1 - b)];
    return;
  }
  if (unit <= 1) {
    std::memcpy(out, in, len);
    return;
  }
  for (std::size_t i = 0; i < len; i += unit)
    for (std::size_t b = 0; b < unit; ++b) out[i + b] = in[i + unit - 1 - b];
}

void from_external(const std::byte* in, std::size_t len, int basic, std::byte* out) {
  bool valid;
  const std::size_t n = core::builtin_size(basic, valid);
  const std::size_t e = dtype::external32_size(basic);
  if (n == 0) return;
  if (e < n) {
    const bool is_signed = static_cast<std::uint32_t>(basic) == 0x4c000807u;
    const std::size_t elems = len / n;
    for (std::size_t i = 0; i < elems; ++i) {
      const bool neg = is_signed && (std::to_integer<unsigned>(in[i * e]) & 0x80);
      for (std::size_t b = 0; b < n; ++b) out[i * n + b] = b < e ? in[i * e + (e - 1 - b)] : std::byte(neg ? 0xff : 0);
    }
    return;
  }
  to_external(in, len, basic, out);  // byte swapping is its own inverse
}

}  // namespace

TypeInfo derived_type_info(const dtype::TypeTable& tb, int handle) {
  TypeInfo t;
  const Datatype* d = tb.find(handle);
  if (!d || !d->committed) return t;
  t.valid = true;
  t.derived = true;
  t.contiguous = d->contiguous;
  t.size = d->size;
  t.lb = d->lb;
  t.extent = d->extent();
  t.true_lb = d->true_lb;
  t.true_extent = d->true_ub - d->true_lb;
  return t;
}

bool layout_of(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, base::Layout& out) {
  if (std::size_t size; predefined(type, size)) return false;
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t || t->contiguous || !t->committed) return false;
  out.base = static_cast<std::byte*>(const_cast<void*>(buf));
  out.blocks = t->layout_blocks;
  out.repeat = count;
  out.extent = t->extent();
  out.bytes_per_copy = t->size;
  return true;
}

void pack(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, std::byte* out) {
  if (std::size_t size; predefined(type, size)) {
    if (size && count) std::memcpy(out, buf, size * count);
    return;
  }
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t || count == 0) return;
  if (t->contiguous) {
    if (t->size) std::memcpy(out, at(const_cast<void*>(buf), t->true_lb), t->size * count);
    return;
  }
  walk(*t, count, [&](std::ptrdiff_t off, std::size_t len, int) {
    std::memcpy(out, at(const_cast<void*>(buf), off), len);
    out += len;
    return true;
  });
}

void unpack(const dtype::TypeTable& tb, const std::byte* in, std::size_t bytes, std::size_t count, int type, void* buf) {
  if (std::size_t size; predefined(type, size)) {
    const std::size_t n = std::min(bytes, size * count);
    if (n) std::memcpy(buf, in, n);
    return;
  }
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t || count == 0) return;
  if (t->contiguous) {
    const std::size_t n = std::min(bytes, t->size * count);
    if (n) std::memcpy(at(buf, t->true_lb), in, n);
    return;
  }
  std::size_t left = std::min(bytes, t->size * count);
  if (left == 0) return;
  walk(*t, count, [&](std::ptrdiff_t off, std::size_t len, int) {
    const std::size_t n = std::min(len, left);
    std::memcpy(at(buf, off), in, n);
    in += n;
    left -= n;
    return left > 0;
  });
}

std::size_t count_elements(const dtype::TypeTable& tb, int type, std::size_t bytes) {
  if (std::size_t size; predefined(type, size)) {
    if (size == 0) return 0;
    return bytes % size ? kNotWholeElements : bytes / size * dtype::pair_factor(type);
  }
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t || t->size == 0) return 0;
  std::size_t elements = (bytes / t->size) * t->elements;
  std::size_t left = bytes % t->size;
  if (left == 0) return elements;
  if (t->combiner == dtype::kNamed) return kNotWholeElements;  // a predefined type: a partial element
  // A derived type: the whole basic elements of the partial copy (a trailing partial basic element
  // does not count, as in MPICH).
  walk(*t, 1, [&](std::ptrdiff_t, std::size_t len, int basic) {
    bool valid;
    const std::size_t bs = builtin_size(basic, valid);
    const std::size_t n = std::min(len, left);
    elements += n / bs * dtype::pair_factor(basic);
    left -= n;
    return left > 0;
  });
  return elements;
}

std::size_t bytes_of_elements(const dtype::TypeTable& tb, int type, std::size_t elements) {
  if (std::size_t size; predefined(type, size)) {
    // Whole elements only (a pair type's lone basic element adds nothing, as below).
    return size ? elements / dtype::pair_factor(type) * size : 0;
  }
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t || t->size == 0 || t->elements == 0) return 0;
  std::size_t bytes = (elements / t->elements) * t->size;
  std::size_t left = elements % t->elements;  // basic elements into one more copy of the type
  walk(*t, 1, [&](std::ptrdiff_t, std::size_t len, int basic) {
    if (left == 0) return false;
    bool valid;
    const std::size_t bs = builtin_size(basic, valid);
    const std::size_t per = dtype::pair_factor(basic);
    const std::size_t run = len / bs * per;  // basic elements in this run
    if (left >= run) {
      bytes += len;
      left -= run;
    } else {
      bytes += left / per * bs;
      left = 0;
    }
    return left > 0;
  });
  return bytes;
}

std::size_t external32_size(const dtype::TypeTable& tb, std::size_t count, int type) {
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t) return 0;
  std::size_t one = 0;
  for (const Segment& s : t->segments) {
    bool valid;
    const std::size_t bs = builtin_size(s.basic, valid);
    if (bs) one += s.count * (s.length / bs) * dtype::external32_size(s.basic);
  }
  return one * count;
}

void pack_external32(const dtype::TypeTable& tb, const void* buf, std::size_t count, int type, std::byte* out) {
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t) return;
  walk(*t, count, [&](std::ptrdiff_t off, std::size_t len, int basic) {
    bool valid;
    const std::size_t bs = builtin_size(basic, valid);
    to_external(at(const_cast<void*>(buf), off), len, basic, out);
    out += len / bs * dtype::external32_size(basic);
    return true;
  });
}

void unpack_external32(const dtype::TypeTable& tb, const std::byte* in, std::size_t count, int type, void* buf) {
  Datatype scratch;
  const Datatype* t = dtype::lookup(tb, type, scratch, true);
  if (!t) return;
  walk(*t, count, [&](std::ptrdiff_t off, std::size_t len, int basic) {
    bool valid;
    const std::size_t bs = builtin_size(basic, valid);
    from_external(in, len, basic, at(buf, off));
    in += len / bs * dtype::external32_size(basic);
    return true;
  });
}

}  // namespace railmpi::core
