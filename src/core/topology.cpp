#include "core/topology.hpp"

#include <algorithm>
#include <vector>

#include "core/communicator.hpp"

namespace railmpi::core {

void cart_coords(const Topology& t, int rank, int* coords) {
  for (int d = static_cast<int>(t.dims.size()) - 1; d >= 0; --d) {
    const int extent = t.dims[static_cast<std::size_t>(d)];
    coords[d] = rank % extent;
    rank /= extent;
  }
}

int cart_rank(const Topology& t, const int* coords) {
  int rank = 0;
  for (std::size_t d = 0; d < t.dims.size(); ++d) {
    const int extent = t.dims[d];
    int c = coords[d];
    if (c < 0 || c >= extent) {
      if (!t.periods[d]) return kProcNull;
      c %= extent;
      if (c < 0) c += extent;
    }
    rank = rank * extent + c;
  }
  return rank;
}

void cart_shift(const Topology& t, int rank, int dim, int disp, int& source, int& dest) {
  // Only the coordinate of `dim` moves: the rank moves by its stride (row-major order, the last
  // dimension fastest) times the move, with no coordinates written out (no allocation).
  int stride = 1;
  for (int d = static_cast<int>(t.dims.size()) - 1; d > dim; --d) stride *= t.dims[static_cast<std::size_t>(d)];
  const int extent = t.dims[static_cast<std::size_t>(dim)];
  const int mine = rank / stride % extent;
  const auto moved = [&](int c) {
    if (c < 0 || c >= extent) {
      if (!t.periods[static_cast<std::size_t>(dim)]) return kProcNull;
      c %= extent;
      if (c < 0) c += extent;
    }
    return rank + (c - mine) * stride;
  };
  dest = moved(mine + disp);
  source = moved(mine - disp);
}

bool neighbors(const Communicator& c, std::vector<int>& sources, std::vector<int>& destinations) {
  sources.clear();
  destinations.clear();
  if (!c.topo) return false;
  const Topology& t = *c.topo;
  switch (t.kind) {
    case TopoKind::cart:
      for (std::size_t d = 0; d < t.dims.size(); ++d) {
        int src, dst;
        cart_shift(t, c.rank, static_cast<int>(d), 1, src, dst);
        sources.push_back(src);  // the -1 neighbour
        sources.push_back(dst);  // the +1 neighbour
      }
      destinations = sources;
      return true;
    case TopoKind::graph: {
      const int begin = c.rank == 0 ? 0 : t.index[static_cast<std::size_t>(c.rank - 1)];
      const int end = t.index[static_cast<std::size_t>(c.rank)];
      sources.assign(t.edges.begin() + begin, t.edges.begin() + end);
      destinations = sources;
      return true;
    }
    case TopoKind::dist_graph:
      sources = t.sources;
      destinations = t.destinations;
      return true;
    case TopoKind::none: break;
  }
  return false;
}

std::string dims_create(int nnodes, int ndims, int* dims) {
  if (nnodes <= 0) return "nnodes=" + std::to_string(nnodes) + " is not positive";
  if (ndims < 0) return "ndims=" + std::to_string(ndims) + " is negative";
  long long fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return "dims[" + std::to_string(i) + "]=" + std::to_string(dims[i]) + " is negative";
    if (dims[i] == 0)
      ++free_dims;
    else
      fixed *= dims[i];
  }
  if (nnodes % fixed != 0)
    return "nnodes=" + std::to_string(nnodes) + " is not a multiple of the fixed dims' product " +
           std::to_string(fixed);
  int rest = static_cast<int>(nnodes / fixed);
  if (free_dims == 0) {
    if (rest != 1)
      return "the dims' product " + std::to_string(fixed) + " differs from nnodes=" + std::to_string(nnodes);
    return {};
  }
  // Prime factors, largest first, each given to the currently smallest dimension: this yields
  // factors as balanced as the greedy split allows, then sorted non-increasing.
  std::vector<int> factors;
  for (int p = 2; static_cast<long long>(p) * p <= rest; ++p)
    while (rest % p == 0) {
      factors.push_back(p);
      rest /= p;
    }
  if (rest > 1) factors.push_back(rest);
  std::sort(factors.rbegin(), factors.rend());
  std::vector<long long> out(static_cast<std::size_t>(free_dims), 1);
  for (int f : factors) *std::min_element(out.begin(), out.end()) *= f;
  std::sort(out.rbegin(), out.rend());
  std::size_t k = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = static_cast<int>(out[k++]);
  return {};
}

}  // namespace railmpi::core
