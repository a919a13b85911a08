// Process topologies: Cartesian, graph and distributed graph communicators and their queries.
// The topology lives in core::Communicator::topo; core::neighbors() gives the neighbour lists.
// Reordering is never done (reorder is accepted and ignored: rank i stays rank i).
#include <cstring>

#include "api/checks.hpp"
#include "api/comm_ops.hpp"
#include "core/topology.hpp"

using namespace railmpi;
using namespace railmpi::api;

namespace {

int check_intra_comm(const char* call, MPI_Comm comm, core::Communicator*& c) {
  if (int e = check_comm(call, comm, c)) return e;
  if (c->is_inter())
    return raise_error(comm, MPI_ERR_COMM, call, "comm=0x%x is an intercommunicator", static_cast<unsigned>(comm));
  return MPI_SUCCESS;
}

int check_topo(const char* call, MPI_Comm comm, core::Communicator*& c, core::TopoKind kind, const char* what) {
  require_running(call);
  if (int e = check_comm(call, comm, c)) return e;
  if (!c->topo || c->topo->kind != kind)
    return raise_error(comm, MPI_ERR_TOPOLOGY, call, "comm=0x%x has no %s topology", static_cast<unsigned>(comm), what);
  return MPI_SUCCESS;
}

// New communicator of the first `n` ranks of `c` (others: MPI_COMM_NULL) carrying `topo`.
int make_topo_comm(const char* call, core::Communicator* c, int n, std::shared_ptr<core::Topology> topo,
                   MPI_Comm* out) {
  MPI_Comm nc = MPI_COMM_NULL;
  if (int e = PMPI_Comm_split(c->handle, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &nc)) return e;
  (void)call;
  if (nc != MPI_COMM_NULL) find_comm(nc)->topo = std::move(topo);
  *out = nc;
  return MPI_SUCCESS;
}

int check_dims(const char* call, MPI_Comm comm, int ndims, const int dims[], const int periods[], long long& product) {
  if (ndims < 0) return raise_error(comm, MPI_ERR_DIMS, call, "ndims=%d is negative", ndims);
  if (ndims > 0 && (!dims || !periods)) return raise_error(comm, MPI_ERR_ARG, call, "dims or periods is NULL");
  product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return raise_error(comm, MPI_ERR_DIMS, call, "dims[%d]=%d is not positive", i, dims[i]);
    product *= dims[i];
    if (product > 0x7fffffff) return raise_error(comm, MPI_ERR_DIMS, call, "the product of dims overflows");
  }
  return MPI_SUCCESS;
}

int check_graph(const char* call, MPI_Comm comm, int nnodes, const int index[], const int edges[], int comm_size) {
  if (nnodes < 0) return raise_error(comm, MPI_ERR_ARG, call, "nnodes=%d is negative", nnodes);
  if (nnodes > comm_size)
    return raise_error(comm, MPI_ERR_ARG, call, "nnodes=%d exceeds the communicator size %d", nnodes, comm_size);
  if (nnodes > 0 && (!index || (index[nnodes - 1] > 0 && !edges)))
    return raise_error(comm, MPI_ERR_ARG, call, "index or edges is NULL");
  for (int i = 0; i < nnodes; ++i)
    if (index[i] < 0 || (i > 0 && index[i] < index[i - 1]))
      return raise_error(comm, MPI_ERR_ARG, call, "index[%d]=%d is negative or decreasing", i, index[i]);
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  for (int i = 0; i < nedges; ++i)
    if (edges[i] < 0 || edges[i] >= nnodes)
      return raise_error(comm, MPI_ERR_ARG, call, "edges[%d]=%d is not a node of a graph of %d nodes", i, edges[i],
                         nnodes);
  return MPI_SUCCESS;
}

int check_neighbor_ranks(const char* call, MPI_Comm comm, int n, const int ranks[], int size, const char* what) {
  if (n < 0) return raise_error(comm, MPI_ERR_ARG, call, "%s degree %d is negative", what, n);
  if (n > 0 && !ranks) return raise_error(comm, MPI_ERR_ARG, call, "%s is NULL with degree %d", what, n);
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return raise_error(comm, MPI_ERR_RANK, call, "%s[%d]=%d is not a rank of a communicator of size %d", what, i,
                         ranks[i], size);
  return MPI_SUCCESS;
}

bool unweighted(const int* w) { return w == MPI_UNWEIGHTED; }

}  // namespace

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* call = "MPI_Dims_create";
  require_running(call);
  if (ndims < 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "ndims=%d is negative", ndims);
  if (ndims > 0 && !dims) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "dims is NULL");
  if (nnodes <= 0) return raise_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "nnodes=%d is not positive", nnodes);
  const std::string bad = core::dims_create(nnodes, ndims, dims);
  if (!bad.empty()) return raise_error(MPI_COMM_WORLD, MPI_ERR_DIMS, call, "%s", bad.c_str());
  return MPI_SUCCESS;
}
#pragma weak MPI_Dims_create = PMPI_Dims_create

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm* comm_cart) {
  const char* call = "MPI_Cart_create";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm_old, c)) return e;
  long long product;
  if (int e = check_dims(call, comm_old, ndims, dims, periods, product)) return e;
  if (product > c->size())
    return raise_error(comm_old, MPI_ERR_ARG, call, "the grid has %lld processes, more than the size %d",
                       product, c->size());
  if (!comm_cart) return raise_error(comm_old, MPI_ERR_ARG, call, "comm_cart is NULL");
  (void)reorder;
  auto topo = std::make_shared<core::Topology>();
  topo->kind = core::TopoKind::cart;
  topo->dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) topo->periods.push_back(periods[i] ? 1 : 0);
  return make_topo_comm(call, c, static_cast<int>(product), std::move(topo), comm_cart);
}
#pragma weak MPI_Cart_create = PMPI_Cart_create

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* call = "MPI_Cart_sub";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::cart, "Cartesian")) return e;
  const core::Topology& t = *c->topo;
  if (!t.dims.empty() && !remain_dims) return raise_error(comm, MPI_ERR_ARG, call, "remain_dims is NULL");
  if (!newcomm) return raise_error(comm, MPI_ERR_ARG, call, "newcomm is NULL");
  std::vector<int> coords(t.dims.size());
  core::cart_coords(t, c->rank, coords.data());
  // Colour: the coordinates along the dropped dimensions; key: the rank (row-major order).
  int color = 0;
  auto topo = std::make_shared<core::Topology>();
  topo->kind = core::TopoKind::cart;
  for (std::size_t d = 0; d < t.dims.size(); ++d) {
    if (remain_dims[d]) {
      topo->dims.push_back(t.dims[d]);
      topo->periods.push_back(t.periods[d]);
    } else {
      color = color * t.dims[d] + coords[d];
    }
  }
  MPI_Comm nc;
  if (int e = PMPI_Comm_split(comm, color, c->rank, &nc)) return e;
  find_comm(nc)->topo = std::move(topo);
  *newcomm = nc;
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_sub = PMPI_Cart_sub

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  core::Communicator* c;
  if (int e = check_topo("MPI_Cartdim_get", comm, c, core::TopoKind::cart, "Cartesian")) return e;
  if (!ndims) return raise_error(comm, MPI_ERR_ARG, "MPI_Cartdim_get", "ndims is NULL");
  *ndims = static_cast<int>(c->topo->dims.size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Cartdim_get = PMPI_Cartdim_get

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* call = "MPI_Cart_get";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::cart, "Cartesian")) return e;
  const core::Topology& t = *c->topo;
  const int n = static_cast<int>(t.dims.size());
  if (maxdims < n) return raise_error(comm, MPI_ERR_ARG, call, "maxdims=%d is less than ndims=%d", maxdims, n);
  if (n > 0 && (!dims || !periods || !coords))
    return raise_error(comm, MPI_ERR_ARG, call, "dims, periods or coords is NULL");
  for (int i = 0; i < n; ++i) {
    dims[i] = t.dims[static_cast<std::size_t>(i)];
    periods[i] = t.periods[static_cast<std::size_t>(i)];
  }
  core::cart_coords(t, c->rank, coords);
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_get = PMPI_Cart_get

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* call = "MPI_Cart_coords";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::cart, "Cartesian")) return e;
  const int n = static_cast<int>(c->topo->dims.size());
  if (rank < 0 || rank >= c->size())
    return raise_error(comm, MPI_ERR_RANK, call, "rank=%d is not a rank of a communicator of size %d", rank,
                       c->size());
  if (maxdims < n) return raise_error(comm, MPI_ERR_ARG, call, "maxdims=%d is less than ndims=%d", maxdims, n);
  if (n > 0 && !coords) return raise_error(comm, MPI_ERR_ARG, call, "coords is NULL");
  core::cart_coords(*c->topo, rank, coords);
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_coords = PMPI_Cart_coords

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* call = "MPI_Cart_rank";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::cart, "Cartesian")) return e;
  const core::Topology& t = *c->topo;
  if (!rank || (!t.dims.empty() && !coords)) return raise_error(comm, MPI_ERR_ARG, call, "coords or rank is NULL");
  for (std::size_t d = 0; d < t.dims.size(); ++d)
    if (!t.periods[d] && (coords[d] < 0 || coords[d] >= t.dims[d]))
      return raise_error(comm, MPI_ERR_ARG, call, "coords[%zu]=%d is outside the non-periodic extent %d", d,
                         coords[d], t.dims[d]);
  *rank = core::cart_rank(t, coords);
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_rank = PMPI_Cart_rank

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* call = "MPI_Cart_shift";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::cart, "Cartesian")) return e;
  const int n = static_cast<int>(c->topo->dims.size());
  if (direction < 0 || direction >= n)
    return raise_error(comm, MPI_ERR_ARG, call, "direction=%d is outside [0, ndims=%d)", direction, n);
  if (!rank_source || !rank_dest) return raise_error(comm, MPI_ERR_ARG, call, "rank_source or rank_dest is NULL");
  core::cart_shift(*c->topo, c->rank, direction, disp, *rank_source, *rank_dest);
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_shift = PMPI_Cart_shift

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* call = "MPI_Cart_map";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm, c)) return e;
  long long product;
  if (int e = check_dims(call, comm, ndims, dims, periods, product)) return e;
  if (product > c->size())
    return raise_error(comm, MPI_ERR_ARG, call, "the grid has %lld processes, more than the size %d", product,
                       c->size());
  if (!newrank) return raise_error(comm, MPI_ERR_ARG, call, "newrank is NULL");
  *newrank = c->rank < product ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
#pragma weak MPI_Cart_map = PMPI_Cart_map

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm* comm_graph) {
  const char* call = "MPI_Graph_create";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm_old, c)) return e;
  if (int e = check_graph(call, comm_old, nnodes, index, edges, c->size())) return e;
  if (!comm_graph) return raise_error(comm_old, MPI_ERR_ARG, call, "comm_graph is NULL");
  (void)reorder;
  auto topo = std::make_shared<core::Topology>();
  topo->kind = core::TopoKind::graph;
  topo->index.assign(index, index + nnodes);
  if (nnodes > 0) topo->edges.assign(edges, edges + index[nnodes - 1]);
  return make_topo_comm(call, c, nnodes, std::move(topo), comm_graph);
}
#pragma weak MPI_Graph_create = PMPI_Graph_create

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  core::Communicator* c;
  if (int e = check_topo("MPI_Graphdims_get", comm, c, core::TopoKind::graph, "graph")) return e;
  if (!nnodes || !nedges) return raise_error(comm, MPI_ERR_ARG, "MPI_Graphdims_get", "nnodes or nedges is NULL");
  *nnodes = static_cast<int>(c->topo->index.size());
  *nedges = static_cast<int>(c->topo->edges.size());
  return MPI_SUCCESS;
}
#pragma weak MPI_Graphdims_get = PMPI_Graphdims_get

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* call = "MPI_Graph_get";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::graph, "graph")) return e;
  const core::Topology& t = *c->topo;
  if (maxindex < 0 || maxedges < 0) return raise_error(comm, MPI_ERR_ARG, call, "maxindex or maxedges is negative");
  if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
    return raise_error(comm, MPI_ERR_ARG, call, "index or edges is NULL");
  for (int i = 0; i < maxindex && i < static_cast<int>(t.index.size()); ++i) index[i] = t.index[std::size_t(i)];
  for (int i = 0; i < maxedges && i < static_cast<int>(t.edges.size()); ++i) edges[i] = t.edges[std::size_t(i)];
  return MPI_SUCCESS;
}
#pragma weak MPI_Graph_get = PMPI_Graph_get

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* call = "MPI_Graph_neighbors_count";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::graph, "graph")) return e;
  const core::Topology& t = *c->topo;
  if (rank < 0 || rank >= static_cast<int>(t.index.size()))
    return raise_error(comm, MPI_ERR_RANK, call, "rank=%d is not a node of the graph (%zu nodes)", rank, t.index.size());
  if (!nneighbors) return raise_error(comm, MPI_ERR_ARG, call, "nneighbors is NULL");
  *nneighbors = t.index[std::size_t(rank)] - (rank == 0 ? 0 : t.index[std::size_t(rank - 1)]);
  return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors_count = PMPI_Graph_neighbors_count

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* call = "MPI_Graph_neighbors";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::graph, "graph")) return e;
  const core::Topology& t = *c->topo;
  if (rank < 0 || rank >= static_cast<int>(t.index.size()))
    return raise_error(comm, MPI_ERR_RANK, call, "rank=%d is not a node of the graph (%zu nodes)", rank, t.index.size());
  const int begin = rank == 0 ? 0 : t.index[std::size_t(rank - 1)], end = t.index[std::size_t(rank)];
  if (maxneighbors > 0 && !neighbors) return raise_error(comm, MPI_ERR_ARG, call, "neighbors is NULL");
  for (int i = begin; i < end && i - begin < maxneighbors; ++i) neighbors[i - begin] = t.edges[std::size_t(i)];
  return MPI_SUCCESS;
}
#pragma weak MPI_Graph_neighbors = PMPI_Graph_neighbors

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* call = "MPI_Graph_map";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm, c)) return e;
  if (int e = check_graph(call, comm, nnodes, index, edges, c->size())) return e;
  if (!newrank) return raise_error(comm, MPI_ERR_ARG, call, "newrank is NULL");
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
#pragma weak MPI_Graph_map = PMPI_Graph_map

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm_old, c)) return e;
  if (int e = check_neighbor_ranks(call, comm_old, indegree, sources, c->size(), "sources")) return e;
  if (int e = check_neighbor_ranks(call, comm_old, outdegree, destinations, c->size(), "destinations")) return e;
  const bool weighted = !unweighted(sourceweights) && !unweighted(destweights);
  if (weighted && ((indegree > 0 && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
                   (outdegree > 0 && (!destweights || destweights == MPI_WEIGHTS_EMPTY))))
    return raise_error(comm_old, MPI_ERR_ARG, call, "weights are NULL or MPI_WEIGHTS_EMPTY with a positive degree");
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return raise_error(comm_old, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", static_cast<unsigned>(info));
  if (!comm_dist_graph) return raise_error(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
  (void)reorder;
  auto topo = std::make_shared<core::Topology>();
  topo->kind = core::TopoKind::dist_graph;
  topo->weighted = weighted;
  topo->sources.assign(sources, sources + indegree);
  topo->destinations.assign(destinations, destinations + outdegree);
  if (weighted) {
    topo->source_weights.assign(sourceweights, sourceweights + indegree);
    topo->destination_weights.assign(destweights, destweights + outdegree);
  }
  return make_topo_comm(call, c, c->size(), std::move(topo), comm_dist_graph);
}
#pragma weak MPI_Dist_graph_create_adjacent = PMPI_Dist_graph_create_adjacent

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create";
  require_running(call);
  core::Communicator* c;
  if (int e = check_intra_comm(call, comm_old, c)) return e;
  if (int e = check_neighbor_ranks(call, comm_old, n, sources, c->size(), "sources")) return e;
  if (n > 0 && !degrees) return raise_error(comm_old, MPI_ERR_ARG, call, "degrees is NULL with n=%d", n);
  long long edges = 0;
  for (int i = 0; i < n; ++i) {
    if (degrees[i] < 0) return raise_error(comm_old, MPI_ERR_ARG, call, "degrees[%d]=%d is negative", i, degrees[i]);
    edges += degrees[i];
  }
  if (int e = check_neighbor_ranks(call, comm_old, static_cast<int>(edges), destinations, c->size(), "destinations"))
    return e;
  const bool weighted = !unweighted(weights);
  if (weighted && edges > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY))
    return raise_error(comm_old, MPI_ERR_ARG, call, "weights is NULL or MPI_WEIGHTS_EMPTY with edges");
  if (info != MPI_INFO_NULL && !instance().infos.find(info))
    return raise_error(comm_old, MPI_ERR_INFO, call, "info=0x%x is not a valid info object", static_cast<unsigned>(info));
  if (!comm_dist_graph) return raise_error(comm_old, MPI_ERR_ARG, call, "comm_dist_graph is NULL");
  (void)reorder;
  // Every process learns every edge (src, dst, weight), then keeps the ones that touch it, in the
  // order (contributing rank, position).
  std::vector<int> mine;
  mine.reserve(static_cast<std::size_t>(edges) * 3);
  for (int i = 0, k = 0; i < n; ++i)
    for (int j = 0; j < degrees[i]; ++j, ++k) {
      mine.push_back(sources[i]);
      mine.push_back(destinations[k]);
      mine.push_back(weighted ? weights[k] : 1);
    }
  std::vector<std::size_t> sizes;
  const Wire w = local_wire(*c, kTagTopology);
  const std::vector<std::byte> all = wire_allgatherv(w, mine.data(), mine.size() * sizeof(int), sizes);
  auto topo = std::make_shared<core::Topology>();
  topo->kind = core::TopoKind::dist_graph;
  topo->weighted = weighted;
  const std::size_t total = all.size() / sizeof(int);
  std::vector<int> triples(total);
  if (total) std::memcpy(triples.data(), all.data(), all.size());
  for (std::size_t i = 0; i + 2 < total + 2 && i < total; i += 3) {
    const int s = triples[i], d = triples[i + 1], wt = triples[i + 2];
    if (s == c->rank) {
      topo->destinations.push_back(d);
      if (weighted) topo->destination_weights.push_back(wt);
    }
    if (d == c->rank) {
      topo->sources.push_back(s);
      if (weighted) topo->source_weights.push_back(wt);
    }
  }
  return make_topo_comm(call, c, c->size(), std::move(topo), comm_dist_graph);
}
#pragma weak MPI_Dist_graph_create = PMPI_Dist_graph_create

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::dist_graph, "distributed graph")) return e;
  if (!indegree || !outdegree || !weighted)
    return raise_error(comm, MPI_ERR_ARG, call, "indegree, outdegree or weighted is NULL");
  *indegree = static_cast<int>(c->topo->sources.size());
  *outdegree = static_cast<int>(c->topo->destinations.size());
  *weighted = c->topo->weighted;
  return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors_count = PMPI_Dist_graph_neighbors_count

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[]) {
  const char* call = "MPI_Dist_graph_neighbors";
  core::Communicator* c;
  if (int e = check_topo(call, comm, c, core::TopoKind::dist_graph, "distributed graph")) return e;
  const core::Topology& t = *c->topo;
  if (maxindegree < static_cast<int>(t.sources.size()) || maxoutdegree < static_cast<int>(t.destinations.size()))
    return raise_error(comm, MPI_ERR_ARG, call, "maxindegree=%d or maxoutdegree=%d below the degrees %zu, %zu",
                       maxindegree, maxoutdegree, t.sources.size(), t.destinations.size());
  if ((!t.sources.empty() && !sources) || (!t.destinations.empty() && !destinations))
    return raise_error(comm, MPI_ERR_ARG, call, "sources or destinations is NULL");
  for (std::size_t i = 0; i < t.sources.size(); ++i) sources[i] = t.sources[i];
  for (std::size_t i = 0; i < t.destinations.size(); ++i) destinations[i] = t.destinations[i];
  if (t.weighted) {
    if (sourceweights && !unweighted(sourceweights))
      for (std::size_t i = 0; i < t.sources.size(); ++i) sourceweights[i] = t.source_weights[i];
    if (destweights && !unweighted(destweights))
      for (std::size_t i = 0; i < t.destinations.size(); ++i) destweights[i] = t.destination_weights[i];
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Dist_graph_neighbors = PMPI_Dist_graph_neighbors

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  require_running("MPI_Topo_test");
  core::Communicator* c;
  if (int e = check_comm("MPI_Topo_test", comm, c)) return e;
  if (!status) return raise_error(comm, MPI_ERR_ARG, "MPI_Topo_test", "status is NULL");
  if (!c->topo) {
    *status = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  switch (c->topo->kind) {
    case core::TopoKind::cart: *status = MPI_CART; break;
    case core::TopoKind::graph: *status = MPI_GRAPH; break;
    case core::TopoKind::dist_graph: *status = MPI_DIST_GRAPH; break;
    case core::TopoKind::none: *status = MPI_UNDEFINED; break;
  }
  return MPI_SUCCESS;
}
#pragma weak MPI_Topo_test = PMPI_Topo_test

}  // extern "C"
