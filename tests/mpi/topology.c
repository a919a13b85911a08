/* Topologies: dims_create, cart create/get/coords/rank/shift/sub/map, graph create/get/
 * neighbors/map, dist_graph (adjacent and general) neighbours, topo_test, data over neighbours. */
#include "mpitest.h"

int main(int argc, char **argv) {
    mt_init(&argc, &argv, "topology");
    int dims[3] = {0, 0, 0}, st;
    MPI_OK(MPI_Dims_create(mt_size, 2, dims));
    CHECK(dims[0] * dims[1] == mt_size && dims[0] >= dims[1], "dims %d x %d", dims[0], dims[1]);
    int d12[2] = {0, 0};
    MPI_OK(MPI_Dims_create(12, 2, d12));
    CHECK(d12[0] == 4 && d12[1] == 3, "dims_create(12,2) = %d x %d", d12[0], d12[1]);
    int d3[3] = {0, 3, 0};
    MPI_OK(MPI_Dims_create(24, 3, d3));
    CHECK(d3[0] == 4 && d3[1] == 3 && d3[2] == 2, "dims_create(24,3,{0,3,0}) = %d %d %d", d3[0], d3[1], d3[2]);
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    CHECK(st == MPI_UNDEFINED, "world topo %d", st);

    /* 2-D torus periodic in dim 0 only */
    int periods[2] = {1, 0}, coords[2], r, src, dst;
    MPI_Comm cart, row;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    MPI_OK(MPI_Topo_test(cart, &st));
    CHECK(st == MPI_CART, "cart topo %d", st);
    MPI_OK(MPI_Comm_rank(cart, &r));
    MPI_OK(MPI_Cart_coords(cart, r, 2, coords));
    CHECK(coords[0] == r / dims[1] && coords[1] == r % dims[1], "coords %d,%d of %d", coords[0], coords[1], r);
    int back;
    MPI_OK(MPI_Cart_rank(cart, coords, &back));
    CHECK(back == r, "cart_rank %d", back);
    int gd[2], gp[2], gc[2], nd;
    MPI_OK(MPI_Cartdim_get(cart, &nd));
    MPI_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
    CHECK(nd == 2 && gd[0] == dims[0] && gp[0] == 1 && gp[1] == 0 && gc[1] == coords[1], "cart_get");
    MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(src == ((coords[0] - 1 + dims[0]) % dims[0]) * dims[1] + coords[1], "shift src %d", src);
    CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1], "shift dst %d", dst);
    MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
    CHECK(src == (coords[1] == 0 ? MPI_PROC_NULL : r - 1), "shift dim1 src %d", src);
    CHECK(dst == (coords[1] == dims[1] - 1 ? MPI_PROC_NULL : r + 1), "shift dim1 dst %d", dst);
    /* data along the shift */
    int out = r, in = -7;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, dst, 1, &in, 1, MPI_INT, src, 1, cart, MPI_STATUS_IGNORE));
    CHECK(in == (src == MPI_PROC_NULL ? -7 : src), "shift data %d", in);
    int pc[2] = {coords[0] + dims[0], coords[1]};
    MPI_OK(MPI_Cart_rank(cart, pc, &back));
    CHECK(back == r, "periodic cart_rank %d", back);
    int remain[2] = {0, 1};
    MPI_OK(MPI_Cart_sub(cart, remain, &row));
    int rr, rn;
    MPI_OK(MPI_Comm_rank(row, &rr));
    MPI_OK(MPI_Comm_size(row, &rn));
    CHECK(rr == coords[1] && rn == dims[1], "cart_sub rank %d size %d", rr, rn);
    MPI_OK(MPI_Cartdim_get(row, &nd));
    CHECK(nd == 1, "sub ndims %d", nd);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, row));
    int esum = 0;
    for (int j = 0; j < dims[1]; j++) esum += coords[0] * dims[1] + j;
    CHECK(sum == esum, "row sum %d expected %d", sum, esum);
    MPI_OK(MPI_Comm_free(&row));
    MPI_OK(MPI_Comm_free(&cart));
    int nr;
    int one[1] = {1}, p0[1] = {0};
    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, one, p0, &nr));
    CHECK(nr == (mt_rank == 0 ? 0 : MPI_UNDEFINED), "cart_map %d", nr);

    /* graph: a ring, each node linked to both neighbours */
    int n = mt_size, index[64], edges[128], k = 0;
    for (int i = 0; i < n; i++) {
        edges[k++] = (i + 1) % n;
        edges[k++] = (i - 1 + n) % n;
        index[i] = k;
    }
    MPI_Comm graph;
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
    MPI_OK(MPI_Topo_test(graph, &st));
    CHECK(st == MPI_GRAPH, "graph topo %d", st);
    int nn, ne, cnt, nb[4];
    MPI_OK(MPI_Graphdims_get(graph, &nn, &ne));
    CHECK(nn == n && ne == 2 * n, "graphdims %d %d", nn, ne);
    MPI_OK(MPI_Graph_neighbors_count(graph, mt_rank, &cnt));
    CHECK(cnt == 2, "neighbors count %d", cnt);
    MPI_OK(MPI_Graph_neighbors(graph, mt_rank, 4, nb));
    CHECK(nb[0] == (mt_rank + 1) % n && nb[1] == (mt_rank - 1 + n) % n, "neighbors %d %d", nb[0], nb[1]);
    int gi[64], ge[128];
    MPI_OK(MPI_Graph_get(graph, n, 2 * n, gi, ge));
    CHECK(gi[n - 1] == 2 * n && ge[0] == 1 % n, "graph_get");
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr));
    CHECK(nr == mt_rank, "graph_map %d", nr);
    MPI_OK(MPI_Comm_free(&graph));

    /* dist graph adjacent: in from left, out to right, weighted */
    int left = (mt_rank - 1 + n) % n, right = (mt_rank + 1) % n, w_in = 10 + left, w_out = 10 + mt_rank;
    MPI_Comm dg;
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w_in, 1, &right, &w_out, MPI_INFO_NULL, 0, &dg));
    MPI_OK(MPI_Topo_test(dg, &st));
    CHECK(st == MPI_DIST_GRAPH, "dist graph topo %d", st);
    int indeg, outdeg, weighted, s[4], sw[4], d[4], dw[4];
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK(indeg == 1 && outdeg == 1 && weighted, "adjacent counts %d %d %d", indeg, outdeg, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(dg, 4, s, sw, 4, d, dw));
    CHECK(s[0] == left && sw[0] == 10 + left && d[0] == right && dw[0] == 10 + mt_rank, "adjacent neighbours");
    MPI_OK(MPI_Comm_free(&dg));

    /* dist graph general: rank 0 declares every edge i -> (i+1)%n, unweighted */
    int srcs[64], degs[64], dsts[64];
    for (int i = 0; i < n; i++) {
        srcs[i] = i;
        degs[i] = 1;
        dsts[i] = (i + 1) % n;
    }
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, mt_rank == 0 ? n : 0, srcs, degs, dsts, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &dg));
    MPI_OK(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
    CHECK(indeg == 1 && outdeg == 1 && !weighted, "general counts %d %d %d", indeg, outdeg, weighted);
    MPI_OK(MPI_Dist_graph_neighbors(dg, 4, s, MPI_UNWEIGHTED, 4, d, MPI_UNWEIGHTED));
    CHECK(s[0] == left && d[0] == right, "general neighbours %d %d", s[0], d[0]);
    MPI_OK(MPI_Comm_free(&dg));
    return mt_finish();
}
