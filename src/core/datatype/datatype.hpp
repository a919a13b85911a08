// Derived datatypes: the Datatype object, its flattened form, and the constructors (the handle table: type_table.hpp).
//
// A datatype is flattened once, when it is created, into a compact list of segments: `count` blocks
// of `length` bytes, the first at `offset`, the next ones `stride` bytes apart, all made of one
// basic type. Adjacent segments are merged as they are appended (a vector of 1000 blocks of ints
// is one segment; a contiguous run of ints is one segment of count 1). Pack, unpack and element
// counting walk this list.
//
// Handles: direct kind, object type datatype, 0x8c000000 | index with index >= 16 (0..4 are the
// predefined pair types MPI_FLOAT_INT.., which stay predefined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/layout.hpp"

namespace railmpi::core::dtype {

// Combiner values (MPI_COMBINER_* of the ABI).
enum Combiner : int {
  kNamed = 1, kDup = 2, kContiguous = 3, kVector = 4, kHvectorInteger = 5, kHvector = 6, kIndexed = 7,
  kHindexedInteger = 8, kHindexed = 9, kIndexedBlock = 10, kStructInteger = 11, kStruct = 12, kSubarray = 13,
  kDarray = 14, kF90Real = 15, kF90Complex = 16, kF90Integer = 17, kResized = 18, kHindexedBlock = 19,
};

inline constexpr std::uint32_t kHandlePrefix = 0x8c000000u;
inline constexpr std::uint32_t kFirstIndex = 16;
inline constexpr int kLbMarker = 0x4c000010;  // MPI_LB
inline constexpr int kUbMarker = 0x4c000011;  // MPI_UB

class TypeTable;  // core/datatype/type_table.hpp

struct Segment {
  std::ptrdiff_t offset = 0;
  std::size_t length = 0;  // bytes per block
  std::size_t count = 1;   // blocks
  std::ptrdiff_t stride = 0;
  int basic = 0;           // predefined type of every element of the block
};

struct Datatype {
  int handle = 0;
  int refs = 0;             // user handle + types built on it + pending operations
  bool committed = false;
  bool user_freed = false;
  std::size_t size = 0;
  std::ptrdiff_t lb = 0, ub = 0;
  std::ptrdiff_t true_lb = 0, true_ub = 0;
  bool lb_marked = false, ub_marked = false;  // explicit MPI_LB / MPI_UB / resized bounds
  bool has_lb = true, has_ub = true;          // false only for the MPI_LB / MPI_UB markers
  std::size_t align = 1;                      // largest alignment of its basic types
  bool contiguous = false;                    // count copies are size*count bytes from true_lb
  std::size_t elements = 0;                   // basic elements in one copy
  std::vector<Segment> segments;
  std::vector<base::Strided> layout_blocks;   // the segments without their basic types (at commit)
  // Envelope / contents.
  int combiner = kNamed;
  std::vector<int> integers;
  std::vector<std::ptrdiff_t> addresses;
  std::vector<int> types;
  std::string name;

  std::ptrdiff_t extent() const { return ub - lb; }
};

// One piece of a new type: `n` copies of `type` (consecutive, extent apart) at byte displacement `disp`.
struct Block {
  std::ptrdiff_t disp = 0;
  std::size_t n = 0;
  const Datatype* type = nullptr;
};

// Description of a predefined type (a one-segment Datatype). valid=false for anything else.
bool describe_builtin(int handle, Datatype& out);

// The Datatype behind a handle (predefined: filled into `scratch`), nullptr when the handle is
// neither predefined nor a live derived type. `allow_freed` also returns types the user freed that
// are still kept alive by references.
const Datatype* lookup(const TypeTable& tb, int handle, Datatype& scratch, bool allow_freed = false);

// Building blocks of the constructors (pure: no handle is created).
Datatype build(std::span<const Block> blocks, bool struct_padding);
Datatype resize(const Datatype& old, std::ptrdiff_t lb, std::ptrdiff_t extent);
// An n-dimensional array type: per dimension the runs (start index, length) of the indices kept,
// `order_c` true for row-major; the result is resized to the whole array (lb 0).
Datatype array_type(std::span<const int> sizes, std::span<const std::vector<std::pair<long, long>>> runs,
                    bool order_c, const Datatype& old);

// Registers a new derived type and returns its handle; retains the derived types in `types`.
int register_type(TypeTable& tb, Datatype t, int combiner, std::vector<int> integers, std::vector<std::ptrdiff_t> addresses,
                  std::vector<int> types);

// Constructors (arguments already checked by the caller; old types must be valid). Return the handle.
int type_contiguous(TypeTable& tb, int count, int old);
int type_vector(TypeTable& tb, int count, int blocklength, int stride, int old);
int type_hvector(TypeTable& tb, int count, int blocklength, std::ptrdiff_t stride, int old, int combiner = kHvector);
int type_indexed(TypeTable& tb, int count, const int* blocklengths, const int* displacements, int old);
int type_hindexed(TypeTable& tb, int count, const int* blocklengths, const std::ptrdiff_t* displacements, int old,
                  int combiner = kHindexed);
int type_indexed_block(TypeTable& tb, int count, int blocklength, const int* displacements, int old);
int type_hindexed_block(TypeTable& tb, int count, int blocklength, const std::ptrdiff_t* displacements, int old);
int type_struct(TypeTable& tb, int count, const int* blocklengths, const std::ptrdiff_t* displacements, const int* types,
                int combiner = kStruct);
int type_resized(TypeTable& tb, int old, std::ptrdiff_t lb, std::ptrdiff_t extent);
int type_dup(TypeTable& tb, int old);
// order_c: MPI_ORDER_C. Returns 0 if the arguments describe nothing valid.
int type_subarray(TypeTable& tb, int ndims, const int* sizes, const int* subsizes, const int* starts, bool order_c, int old);
// distribs: 0 block, 1 cyclic, 2 none; dargs: -1 default.
int type_darray(TypeTable& tb, int size, int rank, int ndims, const int* gsizes, const int* distribs, const int* dargs,
                const int* psizes, bool order_c, int old);

// MPI_Type_create_f90_*: a committed copy of the predefined type `base` whose envelope is
// `combiner` (kF90Real, kF90Complex, kF90Integer) with `integers` ({p, r} or {r}) and no types.
int type_f90(TypeTable& tb, int base, int combiner, std::vector<int> integers);

// A new derived type object equal to `handle` (same envelope and contents): what
// MPI_Type_get_contents returns for the derived types a type was built from.
int type_clone(TypeTable& tb, int handle);

void commit(TypeTable& tb, int handle);
// Reference counting: a pending operation or another type keeps a type alive.
void retain(TypeTable& tb, int handle);
void release(TypeTable& tb, int handle);
// MPI_Type_free: the handle becomes unusable; the object lives while referenced.
void user_free(TypeTable& tb, int handle);

// Size of a predefined type in the "external32" representation and the unit its bytes are swapped
// in (0: no conversion, copied as is).
std::size_t external32_size(int basic);

}  // namespace railmpi::core::dtype
