// Barrier: dissemination (ceil(log2 n) rounds, each rank sends to rank+2^k and hears from
// rank-2^k). Intercommunicators: barrier in each group, the two leaders exchange, and each group
// learns it from its leader.
#include "coll/collectives.hpp"
#include "coll/group.hpp"

namespace railmpi::coll {
namespace detail {

void barrier_group(const Group& g) {
  for (int step = 1; step < g.n; step <<= 1) {
    g.send(nullptr, 0, (g.me + step) % g.n);
    g.recv(nullptr, 0, (g.me - step + g.n) % g.n);
    g.s.round();
  }
}

}  // namespace detail

void barrier(Schedule& s) {
  if (!s.comm().is_inter()) {
    detail::barrier_group(detail::whole(s));
    return;
  }
  const detail::Group g = detail::local_group(s);
  detail::barrier_group(g);
  if (s.rank() == 0) {
    s.send(nullptr, 0, 0);
    s.recv(nullptr, 0, 0);
    s.round();
  }
  detail::bcast_binomial(g, nullptr, 0, 0);
}

}  // namespace railmpi::coll
