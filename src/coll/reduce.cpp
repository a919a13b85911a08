// Reductions: reduce (binomial tree), allreduce (recursive doubling for small vectors or
// non-commutative operations; Rabenseifner's recursive-halving reduce-scatter + recursive-doubling
// allgather for large vectors of commutative operations), reduce_scatter (reduce + scatter),
// scan/exscan (recursive doubling).
//
// Order: every combination is `lower ranks (op) higher ranks`, i.e. op(in = lower, inout =
// higher), so non-commutative operations get x0 op x1 op ... op x(n-1).
#include <cstring>

#include "coll/collectives.hpp"
#include "coll/group.hpp"
#include "coll/thresholds.hpp"

namespace railmpi::coll {
namespace detail {

// Binomial reduce over the group. Commutative ops use the tree rooted at `root`; others the tree
// rooted at 0 (rank order), and rank 0 forwards the result to the root.
void reduce_group(const Group& g, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op,
                  int root) {
  const int n = g.n;
  const std::size_t bytes = count * op.elem;
  const int tree_root = op.commutative ? root : 0;
  const int rel = (g.me - tree_root + n) % n;
  const void* acc = sendbuf;  // current partial result (read-only until replaced)
  std::byte* spare[2] = {nullptr, nullptr};
  int next_spare = 0;
  bool sent = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    if (rel & mask) {
      g.send(acc, bytes, (rel - mask + tree_root) % n);
      g.s.round();
      sent = true;
      break;
    }
    if (rel + mask < n) {
      if (!spare[next_spare]) spare[next_spare] = g.s.scratch(bytes);
      std::byte* in = spare[next_spare];
      next_spare ^= 1;
      g.recv(in, bytes, (rel + mask + tree_root) % n);
      g.s.reduce(op, acc, in, count);  // in = acc (lower) op in (higher)
      acc = in;
    }
  }
  if (sent && !(tree_root != root && g.me == root)) return;
  if (tree_root == root) {
    if (g.me == root) g.s.copy(acc, recvbuf, bytes);
    return;
  }
  // Non-commutative with root != 0: rank 0 forwards.
  if (g.me == tree_root) {
    g.send(acc, bytes, root);
    g.s.round();
  } else if (g.me == root) {
    g.recv(recvbuf, bytes, tree_root);
    g.s.round();
  }
}

namespace {

// The power-of-two core of `g` that recursive doubling and halving run on: of the first 2 * rem
// ranks (rem = n - the largest power of two <= n) the even ones give their data to the odd one
// above them and wait; every other rank gets a rank in the core.
struct Core {
  int pof2, rem;
  // This rank's rank in the core, -1 for an even rank of the first 2 * rem.
  int newrank;
  // The group rank of core rank `nr`.
  int real(int nr) const { return nr < rem ? nr * 2 + 1 : nr + rem; }
};

// Folds the first 2 * rem ranks' data into the odd ones of them: acc = x(me-1) op x(me) there.
Core fold_into_core(const Group& g, std::byte* acc, std::byte* tmp, std::size_t count, const Reducer& op) {
  const int me = g.me, pof2 = pof2_below(g.n), rem = g.n - pof2;
  const std::size_t bytes = count * op.elem;
  if (me >= 2 * rem) return {pof2, rem, me - rem};
  if (me % 2 == 0) {
    g.send(acc, bytes, me + 1);
    g.s.round();
    return {pof2, rem, -1};
  }
  g.recv(tmp, bytes, me - 1);
  g.s.reduce(op, tmp, acc, count);  // acc = x(me-1) op x(me)
  return {pof2, rem, me / 2};
}

// Gives the result back to the even ranks that fold_into_core left out.
void unfold_from_core(const Group& g, const Core& core, std::byte* acc, std::size_t bytes) {
  if (g.me >= 2 * core.rem) return;
  if (g.me % 2) g.send(acc, bytes, g.me - 1);
  else g.recv(acc, bytes, g.me + 1);
  g.s.round();
}

// Recursive doubling into recvbuf (which already holds this rank's data) over `g`.
void allreduce_recursive_doubling(const Group& g, void* recvbuf, std::size_t count, const Reducer& op) {
  const int me = g.me;
  const std::size_t bytes = count * op.elem;
  auto* acc = static_cast<std::byte*>(recvbuf);
  std::byte* tmp = g.s.scratch(bytes);
  const Core core = fold_into_core(g, acc, tmp, count, op);
  if (core.newrank >= 0) {
    for (int mask = 1; mask < core.pof2; mask <<= 1) {
      const int peer = core.real(core.newrank ^ mask);
      g.send(acc, bytes, peer);
      g.recv(tmp, bytes, peer);
      if (peer < me || op.commutative) {
        g.s.reduce(op, tmp, acc, count);  // acc = peer's (lower) op mine
      } else {
        g.s.reduce(op, acc, tmp, count);  // tmp = mine (lower) op peer's
        g.s.copy(tmp, acc, bytes);
      }
      g.s.round();
    }
  }
  unfold_from_core(g, core, acc, bytes);
}

// Rabenseifner (commutative op, count >= pof2): recvbuf holds this rank's data.
void allreduce_rabenseifner(const Group& g, void* recvbuf, std::size_t count, const Reducer& op) {
  const std::size_t elem = op.elem, bytes = count * elem;
  auto* acc = static_cast<std::byte*>(recvbuf);
  std::byte* tmp = g.s.scratch(bytes);
  const Core core = fold_into_core(g, acc, tmp, count, op);
  const int pof2 = core.pof2, newrank = core.newrank;
  if (newrank >= 0) {
    // Block i (of pof2) is elements [disp[i], disp[i+1]).
    auto* disp = reinterpret_cast<std::size_t*>(g.s.scratch((std::size_t(pof2) + 1) * sizeof(std::size_t)));
    for (int i = 0; i < pof2; ++i)
      disp[std::size_t(i) + 1] = disp[std::size_t(i)] + count / std::size_t(pof2) + (std::size_t(i) < count % std::size_t(pof2) ? 1 : 0);
    auto at = [&](std::byte* base, int block) { return base + disp[std::size_t(block)] * elem; };
    auto span = [&](int first, int last) { return disp[std::size_t(last)] - disp[std::size_t(first)]; };
    // Reduce-scatter by recursive halving: keep the half that contains block newrank.
    int lo = 0, hi = pof2;
    for (int dist = pof2 / 2; dist >= 1; dist /= 2) {
      const int peer = core.real(newrank ^ dist);
      const int mid = lo + (hi - lo) / 2;
      int keep_lo, keep_hi, send_lo, send_hi;
      if (newrank & dist) { keep_lo = mid; keep_hi = hi; send_lo = lo; send_hi = mid; }
      else { keep_lo = lo; keep_hi = mid; send_lo = mid; send_hi = hi; }
      g.send(at(acc, send_lo), span(send_lo, send_hi) * elem, peer);
      g.recv(at(tmp, keep_lo), span(keep_lo, keep_hi) * elem, peer);
      g.s.reduce(op, at(tmp, keep_lo), at(acc, keep_lo), span(keep_lo, keep_hi));
      g.s.round();
      lo = keep_lo;
      hi = keep_hi;
    }
    // Allgather by recursive doubling.
    for (int dist = 1; dist < pof2; dist *= 2) {
      const int newpeer = newrank ^ dist;
      const int mine = newrank & ~(dist - 1), theirs = newpeer & ~(dist - 1);
      g.send(at(acc, mine), span(mine, mine + dist) * elem, core.real(newpeer));
      g.recv(at(acc, theirs), span(theirs, theirs + dist) * elem, core.real(newpeer));
      g.s.round();
    }
  }
  unfold_from_core(g, core, acc, bytes);
}

void allreduce_group(const Group& g, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op) {
  g.s.copy(sendbuf, recvbuf, count * op.elem);
  if (g.n == 1 || count == 0) return;
  const std::size_t bytes = count * op.elem;
  if (op.commutative && bytes > thresholds::kAllreduceRecursiveDoublingMax && count >= std::size_t(pof2_below(g.n)))
    allreduce_rabenseifner(g, recvbuf, count, op);
  else
    allreduce_recursive_doubling(g, recvbuf, count, op);
}

}  // namespace
}  // namespace detail

void reduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op, int root) {
  if (!s.comm().is_inter()) {
    detail::reduce_group(detail::whole(s), sendbuf, recvbuf, count, op, root);
    return;
  }
  const std::size_t bytes = count * op.elem;
  if (root == kRoot) {
    s.recv(recvbuf, bytes, 0);
    return;
  }
  if (root == p2p::kProcNull) return;
  std::byte* tmp = s.rank() == 0 ? s.scratch(bytes) : nullptr;
  detail::reduce_group(detail::local_group(s), sendbuf, tmp, count, op, 0);
  if (s.rank() == 0) s.send(tmp, bytes, root);
}

void allreduce(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op) {
  if (!s.comm().is_inter()) {
    detail::allreduce_group(detail::whole(s), sendbuf, recvbuf, count, op);
    return;
  }
  // Each group reduces to its rank 0; the leaders exchange; each group broadcasts what it got.
  const std::size_t bytes = count * op.elem;
  const detail::Group g = detail::local_group(s);
  std::byte* tmp = s.rank() == 0 ? s.scratch(bytes) : nullptr;
  detail::reduce_group(g, sendbuf, tmp, count, op, 0);
  if (s.rank() == 0) {
    s.send(tmp, bytes, 0);
    s.recv(recvbuf, bytes, 0);
    s.round();
  }
  detail::bcast_group(g, recvbuf, bytes, 0);
}

void reduce_scatter(Schedule& s, const void* sendbuf, void* recvbuf, const std::size_t* counts, const Reducer& op) {
  const int n = s.size();
  const detail::Blocks b = detail::blocks(s, n);
  std::size_t* const bytes = b.sizes;
  std::size_t* const offsets = b.offsets;
  std::size_t total = 0;
  for (int i = 0; i < n; ++i) {
    offsets[std::size_t(i)] = total * op.elem;
    bytes[std::size_t(i)] = counts[i] * op.elem;
    total += counts[i];
  }
  const detail::Group g = detail::local_group(s);
  std::byte* full = s.rank() == 0 ? s.scratch(total * op.elem) : nullptr;
  if (!s.comm().is_inter()) {
    detail::reduce_group(g, sendbuf, full, total, op, 0);
  } else {
    // The local group's reduction goes to the remote group: reduce locally, leaders exchange.
    std::byte* mine = s.rank() == 0 ? s.scratch(total * op.elem) : nullptr;
    detail::reduce_group(g, sendbuf, mine, total, op, 0);
    if (s.rank() == 0) {
      s.send(mine, total * op.elem, 0);
      s.recv(full, total * op.elem, 0);
      s.round();
    }
  }
  detail::scatterv_linear(g, full, bytes, offsets, recvbuf, bytes[s.rank()], 0);
}

void scan(Schedule& s, const void* sendbuf, void* recvbuf, std::size_t count, const Reducer& op, bool exclusive) {
  const int n = s.size(), me = s.rank();
  const std::size_t bytes = count * op.elem;
  if (count == 0) return;
  // partial: reduction of the block of ranks seen so far (including me); result: of those below
  // me (exclusive) or up to me (inclusive).
  std::byte* partial = s.scratch(bytes);
  std::byte* tmp = s.scratch(bytes);
  s.copy(sendbuf, partial, bytes);
  bool have_result = !exclusive;
  if (!exclusive) s.copy(sendbuf, recvbuf, bytes);
  for (int mask = 1; mask < n; mask <<= 1) {
    const int peer = me ^ mask;
    if (peer >= n) continue;
    s.send(partial, bytes, peer);
    s.recv(tmp, bytes, peer);
    if (peer < me) {
      // Their block is below mine: partial = tmp op partial; result = tmp op result.
      if (have_result) {
        s.reduce(op, tmp, recvbuf, count);
      } else {
        s.copy(tmp, recvbuf, bytes);
        have_result = true;
      }
      s.reduce(op, tmp, partial, count);
    } else if (op.commutative) {
      s.reduce(op, tmp, partial, count);
    } else {
      s.reduce(op, partial, tmp, count);  // tmp = partial op theirs
      s.copy(tmp, partial, bytes);
    }
    s.round();
  }
}

}  // namespace railmpi::coll
