// Datatype constructors: contiguous, vector, hvector, indexed, hindexed, indexed/hindexed block,
// struct, resized, subarray, darray (and the MPI-1 names).
#include <vector>

#include "api/datatype_util.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_blocklengths(const char* call, int count, const int* blocklengths) {
  if (int e = check_array_arg(call, count, blocklengths, "array_of_blocklengths")) return e;
  for (int i = 0; i < count; ++i)
    if (blocklengths[i] < 0)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "array_of_blocklengths[%d]=%d is negative", i,
                         blocklengths[i]);
  return MPI_SUCCESS;
}

int hvector(const char* call, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
            MPI_Datatype* newtype, int combiner) {
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklength(call, blocklength)) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_hvector(instance().types, count, blocklength, stride, oldtype, combiner);
  return MPI_SUCCESS;
}

int hindexed(const char* call, int count, const int blocklengths[], const MPI_Aint displacements[],
             MPI_Datatype oldtype, MPI_Datatype* newtype, int combiner) {
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklengths(call, count, blocklengths)) return e;
  if (int e = check_array_arg(call, count, displacements, "array_of_displacements")) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_hindexed(instance().types, count, blocklengths, displacements, oldtype, combiner);
  return MPI_SUCCESS;
}

int create_struct(const char* call, int count, const int blocklengths[], const MPI_Aint displacements[],
                  const MPI_Datatype types[], MPI_Datatype* newtype, int combiner) {
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklengths(call, count, blocklengths)) return e;
  if (int e = check_array_arg(call, count, displacements, "array_of_displacements")) return e;
  if (int e = check_array_arg(call, count, types, "array_of_types")) return e;
  for (int i = 0; i < count; ++i) {
    core::dtype::Datatype scratch;
    const core::dtype::Datatype* t;
    if (types[i] == MPI_DATATYPE_NULL || !(t = core::dtype::lookup(instance().types, types[i], scratch)))
      return raise_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "array_of_types[%d]=0x%x is not a valid datatype", i,
                         static_cast<unsigned>(types[i]));
  }
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_struct(instance().types, count, blocklengths, displacements, types, combiner);
  return MPI_SUCCESS;
}

int check_order(const char* call, int order) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "order=%d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
                       order);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_contiguous";
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_contiguous(instance().types, count, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_vector";
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklength(call, blocklength)) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_vector(instance().types, count, blocklength, stride, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_vector = PMPI_Type_vector

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return hvector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype, MPI_COMBINER_HVECTOR);
}
#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hvector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype, MPI_COMBINER_HVECTOR);
}
#pragma weak MPI_Type_hvector = PMPI_Type_hvector

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  const char* call = "MPI_Type_indexed";
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklengths(call, count, blocklengths)) return e;
  if (int e = check_array_arg(call, count, displacements, "array_of_displacements")) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_indexed(instance().types, count, blocklengths, displacements, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_indexed = PMPI_Type_indexed

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return hindexed("MPI_Type_create_hindexed", count, blocklengths, displacements, oldtype, newtype,
                  MPI_COMBINER_HINDEXED);
}
#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed

int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return hindexed("MPI_Type_hindexed", count, blocklengths, displacements, oldtype, newtype, MPI_COMBINER_HINDEXED);
}
#pragma weak MPI_Type_hindexed = PMPI_Type_hindexed

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_indexed_block";
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklength(call, blocklength)) return e;
  if (int e = check_array_arg(call, count, displacements, "array_of_displacements")) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_indexed_block(instance().types, count, blocklength, displacements, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_hindexed_block";
  require_running(call);
  if (int e = check_ctor_count(call, count)) return e;
  if (int e = check_blocklength(call, blocklength)) return e;
  if (int e = check_array_arg(call, count, displacements, "array_of_displacements")) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_hindexed_block(instance().types, count, blocklength, displacements, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct", count, blocklengths, displacements, types, newtype,
                       MPI_COMBINER_STRUCT);
}
#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct

int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                     MPI_Datatype* newtype) {
  return create_struct("MPI_Type_struct", count, blocklengths, displacements, types, newtype, MPI_COMBINER_STRUCT);
}
#pragma weak MPI_Type_struct = PMPI_Type_struct

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_resized";
  require_running(call);
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_resized(instance().types, oldtype, lb, extent);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_subarray";
  require_running(call);
  if (ndims <= 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ndims=%d is not positive", ndims);
  if (!sizes || !subsizes || !starts)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_sizes, _subsizes or _starts is NULL");
  for (int d = 0; d < ndims; ++d) {
    if (sizes[d] <= 0)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_sizes[%d]=%d is not positive", d, sizes[d]);
    if (subsizes[d] < 0 || subsizes[d] > sizes[d])
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_subsizes[%d]=%d is outside [0, %d]", d,
                         subsizes[d], sizes[d]);
    if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_starts[%d]=%d is outside [0, %d]", d, starts[d],
                         sizes[d] - subsizes[d]);
  }
  if (int e = check_order(call, order)) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  *newtype = core::dtype::type_subarray(instance().types, ndims, sizes, subsizes, starts, order == MPI_ORDER_C, oldtype);
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_darray";
  require_running(call);
  if (size <= 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size=%d is not positive", size);
  if (rank < 0 || rank >= size)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_RANK, call, "rank=%d is outside [0, %d)", rank, size);
  if (ndims <= 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ndims=%d is not positive", ndims);
  if (!gsizes || !distribs || !dargs || !psizes)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "an array argument is NULL");
  long procs = 1;
  std::vector<int> kinds(static_cast<std::size_t>(ndims));
  for (int d = 0; d < ndims; ++d) {
    if (gsizes[d] <= 0)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_gsizes[%d]=%d is not positive", d, gsizes[d]);
    if (psizes[d] <= 0)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_psizes[%d]=%d is not positive", d, psizes[d]);
    procs *= psizes[d];
    if (dargs[d] != MPI_DISTRIBUTE_DFLT_DARG && dargs[d] <= 0)
      return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_dargs[%d]=%d is not positive", d, dargs[d]);
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_BLOCK:
        kinds[std::size_t(d)] = 0;
        if (dargs[d] != MPI_DISTRIBUTE_DFLT_DARG && long(dargs[d]) * psizes[d] < gsizes[d])
          return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "array_of_dargs[%d]=%d times array_of_psizes[%d]=%d does not cover gsize %d", d,
                             dargs[d], d, psizes[d], gsizes[d]);
        break;
      case MPI_DISTRIBUTE_CYCLIC: kinds[std::size_t(d)] = 1; break;
      case MPI_DISTRIBUTE_NONE:
        kinds[std::size_t(d)] = 2;
        if (psizes[d] != 1)
          return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                             "array_of_psizes[%d]=%d must be 1 with MPI_DISTRIBUTE_NONE", d, psizes[d]);
        break;
      default:
        return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "array_of_distribs[%d]=%d is not a distribution", d,
                           distribs[d]);
    }
  }
  if (procs != size)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "the process grid has %ld processes, not size=%d", procs,
                       size);
  if (int e = check_order(call, order)) return e;
  if (int e = check_old_type(call, oldtype)) return e;
  if (int e = check_newtype(call, newtype)) return e;
  std::vector<int> core_dargs(dargs, dargs + ndims);
  for (int& a : core_dargs)
    if (a == MPI_DISTRIBUTE_DFLT_DARG) a = -1;
  *newtype = core::dtype::type_darray(instance().types, size, rank, ndims, gsizes, kinds.data(), core_dargs.data(), psizes,
                                      order == MPI_ORDER_C, oldtype);
  // The contents report the arguments as given (MPI constants), not the internal codes.
  core::dtype::Datatype* t = instance().types.find(*newtype);
  for (int d = 0; d < ndims; ++d) {
    t->integers[std::size_t(3 + ndims + d)] = distribs[d];
    t->integers[std::size_t(3 + 2 * ndims + d)] = dargs[d];
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray

}  // extern "C"

namespace {

// The predefined type of a Fortran kind with at least `p` decimal digits and a decimal exponent
// range of at least `r` (MPI_UNDEFINED: no demand), as gfortran's SELECTED_REAL_KIND and
// SELECTED_INT_KIND choose on this platform; MPI_DATATYPE_NULL when no kind has them.
MPI_Datatype f90_base(int combiner, int p, int r) {
  const int pp = p == MPI_UNDEFINED ? 0 : p, rr = r == MPI_UNDEFINED ? 0 : r;
  if (combiner == MPI_COMBINER_F90_INTEGER) {
    if (rr <= 2) return MPI_INTEGER1;
    if (rr <= 4) return MPI_INTEGER2;
    if (rr <= 9) return MPI_INTEGER4;
    if (rr <= 18) return MPI_INTEGER8;
    return MPI_DATATYPE_NULL;
  }
  const bool real = combiner == MPI_COMBINER_F90_REAL;
  if (pp <= 6 && rr <= 37) return real ? MPI_REAL4 : MPI_COMPLEX8;
  if (pp <= 15 && rr <= 307) return real ? MPI_REAL8 : MPI_COMPLEX16;
  if (pp <= 33 && rr <= 4931) return real ? MPI_REAL16 : MPI_COMPLEX32;
  return MPI_DATATYPE_NULL;
}

int f90_type(const char* call, int combiner, int p, int r, MPI_Datatype* newtype) {
  require_running(call);
  if (int e = check_newtype(call, newtype)) return e;
  const bool integer = combiner == MPI_COMBINER_F90_INTEGER;
  if (integer ? r == MPI_UNDEFINED : (p == MPI_UNDEFINED && r == MPI_UNDEFINED))
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                       integer ? "r is MPI_UNDEFINED" : "p and r are both MPI_UNDEFINED");
  const MPI_Datatype base = f90_base(combiner, p, r);
  if (base == MPI_DATATYPE_NULL && integer)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "no integer kind has a decimal exponent range of r=%d", r);
  if (base == MPI_DATATYPE_NULL)
    return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call,
                       "no kind has p=%d decimal digits and a decimal exponent range of r=%d", p, r);
  Instance& in = instance();
  for (const Instance::F90Type& t : in.f90_types)
    if (t.combiner == combiner && t.p == p && t.r == r) {
      *newtype = t.handle;
      return MPI_SUCCESS;
    }
  std::vector<int> integers = integer ? std::vector<int>{r} : std::vector<int>{p, r};
  const MPI_Datatype h = core::dtype::type_f90(in.types, base, combiner, std::move(integers));
  in.f90_types.push_back({combiner, p, r, h});
  *newtype = h;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, newtype);
}
#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, newtype);
}
#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex

int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return f90_type("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, newtype);
}
#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer

}  // extern "C"
