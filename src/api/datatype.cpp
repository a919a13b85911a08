// Datatype queries: sizes, extents, names, envelope/contents, commit/free/dup, addresses.
#include <cstring>
#include <span>

#include "api/checks.hpp"
#include "api/datatype_util.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

struct BuiltinName {
  std::uint32_t handle;
  const char* name;
};

constexpr BuiltinName kBuiltinNames[] = {
    {0x4c000101u, "MPI_CHAR"},
    {0x4c000102u, "MPI_UNSIGNED_CHAR"},
    {0x4c000203u, "MPI_SHORT"},
    {0x4c000204u, "MPI_UNSIGNED_SHORT"},
    {0x4c000405u, "MPI_INT"},
    {0x4c000406u, "MPI_UNSIGNED"},
    {0x4c000807u, "MPI_LONG"},
    {0x4c000808u, "MPI_UNSIGNED_LONG"},
    {0x4c000809u, "MPI_LONG_LONG_INT"},
    {0x4c00040au, "MPI_FLOAT"},
    {0x4c00080bu, "MPI_DOUBLE"},
    {0x4c00100cu, "MPI_LONG_DOUBLE"},
    {0x4c00010du, "MPI_BYTE"},
    {0x4c00040eu, "MPI_WCHAR"},
    {0x4c00010fu, "MPI_PACKED"},
    {0x4c000010u, "MPI_LB"},
    {0x4c000011u, "MPI_UB"},
    {0x4c000118u, "MPI_SIGNED_CHAR"},
    {0x4c000819u, "MPI_UNSIGNED_LONG_LONG"},
    {0x8c000000u, "MPI_FLOAT_INT"},
    {0x8c000001u, "MPI_DOUBLE_INT"},
    {0x8c000002u, "MPI_LONG_INT"},
    {0x8c000003u, "MPI_SHORT_INT"},
    {0x8c000004u, "MPI_LONG_DOUBLE_INT"},
    {0x4c000816u, "MPI_2INT"},
    {0x4c00011au, "MPI_CHARACTER"},
    {0x4c00041bu, "MPI_INTEGER"},
    {0x4c00041cu, "MPI_REAL"},
    {0x4c00041du, "MPI_LOGICAL"},
    {0x4c00081eu, "MPI_COMPLEX"},
    {0x4c00081fu, "MPI_DOUBLE_PRECISION"},
    {0x4c000820u, "MPI_2INTEGER"},
    {0x4c000821u, "MPI_2REAL"},
    {0x4c001022u, "MPI_DOUBLE_COMPLEX"},
    {0x4c001023u, "MPI_2DOUBLE_PRECISION"},
    {0x4c000427u, "MPI_REAL4"},
    {0x4c000828u, "MPI_COMPLEX8"},
    {0x4c000829u, "MPI_REAL8"},
    {0x4c00102au, "MPI_COMPLEX16"},
    {0x4c00102bu, "MPI_REAL16"},
    {0x4c00202cu, "MPI_COMPLEX32"},
    {0x4c00012du, "MPI_INTEGER1"},
    {0x4c00022fu, "MPI_INTEGER2"},
    {0x4c000430u, "MPI_INTEGER4"},
    {0x4c000831u, "MPI_INTEGER8"},
    {0x4c000133u, "MPI_CXX_BOOL"},
    {0x4c000834u, "MPI_CXX_FLOAT_COMPLEX"},
    {0x4c001035u, "MPI_CXX_DOUBLE_COMPLEX"},
    {0x4c002036u, "MPI_CXX_LONG_DOUBLE_COMPLEX"},
    {0x4c000137u, "MPI_INT8_T"},
    {0x4c000238u, "MPI_INT16_T"},
    {0x4c000439u, "MPI_INT32_T"},
    {0x4c00083au, "MPI_INT64_T"},
    {0x4c00013bu, "MPI_UINT8_T"},
    {0x4c00023cu, "MPI_UINT16_T"},
    {0x4c00043du, "MPI_UINT32_T"},
    {0x4c00083eu, "MPI_UINT64_T"},
    {0x4c00013fu, "MPI_C_BOOL"},
    {0x4c000840u, "MPI_C_FLOAT_COMPLEX"},
    {0x4c001041u, "MPI_C_DOUBLE_COMPLEX"},
    {0x4c002042u, "MPI_C_LONG_DOUBLE_COMPLEX"},
    {0x4c000843u, "MPI_AINT"},
    {0x4c000844u, "MPI_OFFSET"},
    {0x4c000845u, "MPI_COUNT"},
};

const char* builtin_name(MPI_Datatype type) {
  for (const BuiltinName& n : kBuiltinNames)
    if (n.handle == static_cast<std::uint32_t>(type)) return n.name;
  return "";
}

}  // namespace

extern "C" {

// The Fortran-sized type of the class with that size (what SELECTED_REAL_KIND and friends lead to).
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* call = "MPI_Type_match_size";
  require_running(call);
  if (!datatype) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "datatype is NULL");
  static constexpr MPI_Datatype kReal[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
  static constexpr MPI_Datatype kInteger[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
  static constexpr MPI_Datatype kComplex[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
  std::span<const MPI_Datatype> candidates;
  switch (typeclass) {
    case MPI_TYPECLASS_REAL: candidates = kReal; break;
    case MPI_TYPECLASS_INTEGER: candidates = kInteger; break;
    case MPI_TYPECLASS_COMPLEX: candidates = kComplex; break;
    default:
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                         "typeclass=%d is not MPI_TYPECLASS_REAL, MPI_TYPECLASS_INTEGER or MPI_TYPECLASS_COMPLEX",
                         typeclass);
  }
  for (MPI_Datatype t : candidates) {
    std::size_t tsize = 0;
    if (check_type(call, MPI_COMM_WORLD, t, tsize) == MPI_SUCCESS && tsize == static_cast<std::size_t>(size)) {
      *datatype = t;
      return MPI_SUCCESS;
    }
  }
  return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no predefined type of typeclass %d has size=%d", typeclass,
                     size);
}
#pragma weak MPI_Type_match_size = PMPI_Type_match_size

int PMPI_Type_size(MPI_Datatype type, int* size) {
  require_running("MPI_Type_size");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_size", type, scratch, t)) return e;
  if (!size) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
  *size = t->size > 0x7fffffffu ? MPI_UNDEFINED : static_cast<int>(t->size);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_size = PMPI_Type_size

int PMPI_Type_size_x(MPI_Datatype type, MPI_Count* size) {
  require_running("MPI_Type_size_x");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_size_x", type, scratch, t)) return e;
  if (!size) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size_x", "size is NULL");
  *size = static_cast<MPI_Count>(t->size);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_size_x = PMPI_Type_size_x

int PMPI_Type_get_extent(MPI_Datatype type, MPI_Aint* lb, MPI_Aint* extent) {
  require_running("MPI_Type_get_extent");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_extent", type, scratch, t)) return e;
  if (!lb || !extent) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_extent", "lb or extent is NULL");
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent

int PMPI_Type_get_extent_x(MPI_Datatype type, MPI_Count* lb, MPI_Count* extent) {
  require_running("MPI_Type_get_extent_x");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_extent_x", type, scratch, t)) return e;
  if (!lb || !extent)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_extent_x", "lb or extent is NULL");
  *lb = t->lb;
  *extent = t->extent();
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x

int PMPI_Type_get_true_extent(MPI_Datatype type, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  require_running("MPI_Type_get_true_extent");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_true_extent", type, scratch, t)) return e;
  if (!true_lb || !true_extent)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_true_extent", "true_lb or true_extent is NULL");
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent

int PMPI_Type_get_true_extent_x(MPI_Datatype type, MPI_Count* true_lb, MPI_Count* true_extent) {
  require_running("MPI_Type_get_true_extent_x");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_true_extent_x", type, scratch, t)) return e;
  if (!true_lb || !true_extent)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_true_extent_x", "true_lb or true_extent is NULL");
  *true_lb = t->true_lb;
  *true_extent = t->true_ub - t->true_lb;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x

int PMPI_Type_extent(MPI_Datatype type, MPI_Aint* extent) {
  require_running("MPI_Type_extent");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_extent", type, scratch, t)) return e;
  if (!extent) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_extent", "extent is NULL");
  *extent = t->extent();
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_extent = PMPI_Type_extent

int PMPI_Type_lb(MPI_Datatype type, MPI_Aint* displacement) {
  require_running("MPI_Type_lb");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_lb", type, scratch, t)) return e;
  if (!displacement) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_lb", "displacement is NULL");
  *displacement = t->lb;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_lb = PMPI_Type_lb

int PMPI_Type_ub(MPI_Datatype type, MPI_Aint* displacement) {
  require_running("MPI_Type_ub");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_ub", type, scratch, t)) return e;
  if (!displacement) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_ub", "displacement is NULL");
  *displacement = t->ub;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_ub = PMPI_Type_ub

int PMPI_Type_commit(MPI_Datatype* type) {
  require_running("MPI_Type_commit");
  if (!type) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_commit", "datatype is NULL");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_commit", *type, scratch, t)) return e;
  core::dtype::commit(instance().types, *type);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_commit = PMPI_Type_commit

int PMPI_Type_free(MPI_Datatype* type) {
  require_running("MPI_Type_free");
  if (!type) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_free", "datatype is NULL");
  for (const Instance::F90Type& t : instance().f90_types)
    if (t.handle == *type)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
                         "datatype=0x%x comes from MPI_Type_create_f90_*: predefined, it cannot be freed",
                         static_cast<unsigned>(*type));
  if (!instance().types.find(*type)) {
    bool builtin = false;
    core::builtin_size(*type, builtin);
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_free",
                       builtin ? "datatype=0x%x is predefined and cannot be freed" : "datatype=0x%x is not a valid datatype",
                       static_cast<unsigned>(*type));
  }
  // Attributes go first: their delete callbacks may still look at the type.
  if (int e = instance().attributes.remove_all(*type))
    return raise_error(MPI_COMM_WORLD, e, "MPI_Type_free", "an attribute delete callback failed with %d", e);
  core::dtype::user_free(instance().types, *type);
  *type = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_free = PMPI_Type_free

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  require_running("MPI_Type_dup");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_dup", oldtype, scratch, t)) return e;
  if (!newtype) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_dup", "newtype is NULL");
  *newtype = core::dtype::type_dup(instance().types, oldtype);
  if (int e = instance().attributes.copy_all(oldtype, *newtype))
    return raise_error(MPI_COMM_WORLD, e, "MPI_Type_dup", "an attribute copy callback failed with %d", e);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_dup = PMPI_Type_dup

int PMPI_Type_get_envelope(MPI_Datatype type, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  require_running("MPI_Type_get_envelope");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_envelope", type, scratch, t)) return e;
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_envelope", "an output argument is NULL");
  *num_integers = static_cast<int>(t->integers.size());
  *num_addresses = static_cast<int>(t->addresses.size());
  *num_datatypes = static_cast<int>(t->types.size());
  *combiner = t->combiner;
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope

int PMPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents";
  require_running(call);
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type(call, type, scratch, t)) return e;
  if (t->combiner == MPI_COMBINER_NAMED)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "datatype=0x%x is predefined (combiner MPI_COMBINER_NAMED)",
                       static_cast<unsigned>(type));
  if (max_integers < static_cast<int>(t->integers.size()) || max_addresses < static_cast<int>(t->addresses.size()) ||
      max_datatypes < static_cast<int>(t->types.size()))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                       "max_integers=%d, max_addresses=%d or max_datatypes=%d is smaller than the envelope (%zu, %zu, %zu)",
                       max_integers, max_addresses, max_datatypes, t->integers.size(), t->addresses.size(),
                       t->types.size());
  if ((!t->integers.empty() && !array_of_integers) || (!t->addresses.empty() && !array_of_addresses) ||
      (!t->types.empty() && !array_of_datatypes))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "an output array is NULL");
  std::copy(t->integers.begin(), t->integers.end(), array_of_integers);
  std::copy(t->addresses.begin(), t->addresses.end(), array_of_addresses);
  for (std::size_t i = 0; i < t->types.size(); ++i) {
    // Derived types come back as new objects the caller frees; predefined ones as they are.
    const int h = t->types[i];
    array_of_datatypes[i] = instance().types.find(h, true) ? core::dtype::type_clone(instance().types, h) : h;
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents

int PMPI_Type_get_name(MPI_Datatype type, char* type_name, int* resultlen) {
  require_running("MPI_Type_get_name");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_get_name", type, scratch, t)) return e;
  if (!type_name || !resultlen)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_name", "type_name or resultlen is NULL");
  const char* name = t->combiner == MPI_COMBINER_NAMED ? builtin_name(type) : t->name.c_str();
  const std::size_t n = std::min<std::size_t>(std::strlen(name), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, name, n);
  type_name[n] = 0;
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_get_name = PMPI_Type_get_name

int PMPI_Type_set_name(MPI_Datatype type, const char* type_name) {
  require_running("MPI_Type_set_name");
  core::dtype::Datatype scratch;
  const core::dtype::Datatype* t;
  if (int e = query_type("MPI_Type_set_name", type, scratch, t)) return e;
  if (!type_name) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_set_name", "type_name is NULL");
  core::dtype::Datatype* d = instance().types.find(type);
  if (!d)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_set_name",
                       "datatype=0x%x is predefined: its name cannot be changed", static_cast<unsigned>(type));
  d->name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_set_name = PMPI_Type_set_name

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  if (!address) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_address", "address is NULL");
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}
#pragma weak MPI_Get_address = PMPI_Get_address

int PMPI_Address(void* location, MPI_Aint* address) {
  if (!address) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Address", "address is NULL");
  *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
  return MPI_SUCCESS;
}
#pragma weak MPI_Address = PMPI_Address

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}
#pragma weak MPI_Aint_add = PMPI_Aint_add

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}
#pragma weak MPI_Aint_diff = PMPI_Aint_diff

}  // extern "C"
