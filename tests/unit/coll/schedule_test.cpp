// Collective algorithms checked on simulated processes (simulator.hpp) for every communicator
// size from 1 to 17, every root, sizes on both sides of each algorithm threshold, commutative
// and non-commutative operations, and intercommunicators of assorted group sizes.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <vector>

#include "coll/collectives.hpp"
#include "simulator.hpp"

namespace railmpi::coll {
namespace {

constexpr int kSum = 0x58000003, kInt = 0x4c000405;

int val(int rank, int i) { return rank * 1000 + i * 7 + 3; }

// 2x2 integer matrices (one element = one matrix): inout = in * inout.
void matmul(void* in, void* inout, int* len, int*) {
  auto* a = static_cast<int*>(in);
  auto* b = static_cast<int*>(inout);
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    const int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                      a[2] * b[1] + a[3] * b[3]};
    std::memcpy(b, c, sizeof c);
  }
}
void mat_of(int rank, int k, int* m) {
  m[0] = 1;
  m[1] = (rank + k) % 3;
  m[2] = (rank * 2 + k) % 2;
  m[3] = 1;
}
// Product of the matrices of ranks [first, last] for element k.
std::vector<int> mat_product(int first, int last, int k) {
  std::vector<int> acc(4);
  mat_of(first, k, acc.data());
  for (int r = first + 1; r <= last; ++r) {
    int x[4], one = 1;
    mat_of(r, k, x);
    matmul(acc.data(), x, &one, nullptr);
    std::memcpy(acc.data(), x, sizeof x);
  }
  return acc;
}

Reducer sum() {
  Reducer r;
  r.fn = core::find_reduce(kSum, kInt);
  r.elem = 4;
  return r;
}
Reducer mat() {
  Reducer r;
  r.user = &matmul;
  r.elem = 16;
  r.commutative = false;
  return r;
}

struct Procs {
  std::vector<core::Communicator> comms;
  std::vector<std::unique_ptr<Schedule>> scheds;
  // Intracommunicator of n processes.
  explicit Procs(int n) : comms(static_cast<std::size_t>(n)) {
    for (int r = 0; r < n; ++r) {
      comms[std::size_t(r)].rank = r;
      comms[std::size_t(r)].job_ranks.resize(static_cast<std::size_t>(n));
      std::iota(comms[std::size_t(r)].job_ranks.begin(), comms[std::size_t(r)].job_ranks.end(), 0);
    }
  }
  // Intercommunicator: group 0 = jobs [0, a), group 1 = jobs [a, a+b).
  Procs(int a, int b) : comms(static_cast<std::size_t>(a + b)) {
    std::vector<int> g0(static_cast<std::size_t>(a)), g1(static_cast<std::size_t>(b));
    std::iota(g0.begin(), g0.end(), 0);
    std::iota(g1.begin(), g1.end(), a);
    for (int j = 0; j < a + b; ++j) {
      auto& c = comms[std::size_t(j)];
      const bool first = j < a;
      c.rank = first ? j : j - a;
      c.job_ranks = first ? g0 : g1;
      c.remote_job_ranks = first ? g1 : g0;
    }
  }
  // Builds one schedule per process with build(job, schedule) and runs them.
  void run(const std::function<void(int, Schedule&)>& build) {
    scheds.clear();
    std::vector<Schedule*> ptrs;
    for (std::size_t j = 0; j < comms.size(); ++j) {
      scheds.push_back(std::make_unique<Schedule>(nullptr, comms[j]));
      build(int(j), *scheds.back());
      ptrs.push_back(scheds.back().get());
    }
    const std::string err = Simulator::run(ptrs);
    ASSERT_EQ(err, "");
  }
};

using Buf = std::vector<int>;
Buf data(int rank, int count, int salt = 0) {
  Buf b(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) b[std::size_t(i)] = val(rank, i) + salt;
  return b;
}
int sum_over(int n, int i) {
  int s = 0;
  for (int r = 0; r < n; ++r) s += val(r, i);
  return s;
}

class Sizes : public ::testing::TestWithParam<int> {};

TEST_P(Sizes, BarrierAndBcast) {
  const int n = GetParam();
  Procs p(n);
  p.run([](int, Schedule& s) { barrier(s); });
  for (int count : {0, 5, 80000}) {
    for (int root = 0; root < n; ++root) {
      if (count == 80000 && root != 0 && root != n - 1) continue;
      std::vector<Buf> bufs(static_cast<std::size_t>(n));
      p.run([&](int j, Schedule& s) {
        bufs[std::size_t(j)] = j == root ? data(root, count) : Buf(static_cast<std::size_t>(count), -1);
        bcast(s, bufs[std::size_t(j)].data(), std::size_t(count) * 4, root);
      });
      for (int j = 0; j < n; ++j) ASSERT_EQ(bufs[std::size_t(j)], data(root, count)) << "count " << count << " root " << root;
    }
  }
}

TEST_P(Sizes, ReduceAllreduce) {
  const int n = GetParam();
  Procs p(n);
  for (int count : {0, 1, 13, 5000}) {
    std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    Buf want(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) want[std::size_t(i)] = sum_over(n, i);
    for (int root = 0; root < n; ++root) {
      p.run([&](int j, Schedule& s) {
        in[std::size_t(j)] = data(j, count);
        out[std::size_t(j)].assign(static_cast<std::size_t>(count), -1);
        reduce(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), std::size_t(count), sum(), root);
      });
      ASSERT_EQ(out[std::size_t(root)], want) << "reduce count " << count << " root " << root;
    }
    p.run([&](int j, Schedule& s) {
      out[std::size_t(j)] = data(j, count);  // in place
      allreduce(s, out[std::size_t(j)].data(), out[std::size_t(j)].data(), std::size_t(count), sum());
    });
    for (int j = 0; j < n; ++j) ASSERT_EQ(out[std::size_t(j)], want) << "allreduce count " << count;
  }
  // Non-commutative: rank order.
  const int m = 3;
  std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  Buf want;
  for (int k = 0; k < m; ++k) {
    auto w = mat_product(0, n - 1, k);
    want.insert(want.end(), w.begin(), w.end());
  }
  auto fill = [&](int j) {
    in[std::size_t(j)].resize(4 * m);
    for (int k = 0; k < m; ++k) mat_of(j, k, in[std::size_t(j)].data() + 4 * k);
    out[std::size_t(j)].assign(4 * m, -1);
  };
  for (int root = 0; root < n; ++root) {
    p.run([&](int j, Schedule& s) {
      fill(j);
      reduce(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), m, mat(), root);
    });
    ASSERT_EQ(out[std::size_t(root)], want) << "matmul reduce root " << root;
  }
  p.run([&](int j, Schedule& s) {
    fill(j);
    allreduce(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), m, mat());
  });
  for (int j = 0; j < n; ++j) ASSERT_EQ(out[std::size_t(j)], want) << "matmul allreduce rank " << j;
}

TEST_P(Sizes, ReduceScatterAndScans) {
  const int n = GetParam();
  Procs p(n);
  std::vector<std::size_t> counts(static_cast<std::size_t>(n));
  std::size_t total = 0;
  for (int i = 0; i < n; ++i) total += counts[std::size_t(i)] = std::size_t(i % 3 + (i == 1 ? 0 : 1));
  std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n)), ex(static_cast<std::size_t>(n));
  p.run([&](int j, Schedule& s) {
    in[std::size_t(j)] = data(j, int(total));
    out[std::size_t(j)].assign(counts[std::size_t(j)], -1);
    reduce_scatter(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), counts.data(), sum());
  });
  std::size_t off = 0;
  for (int j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < counts[std::size_t(j)]; ++i)
      ASSERT_EQ(out[std::size_t(j)][i], sum_over(n, int(off + i))) << "reduce_scatter rank " << j;
    off += counts[std::size_t(j)];
  }
  const int m = 2;
  p.run([&](int j, Schedule& s) {
    in[std::size_t(j)].resize(4 * m);
    for (int k = 0; k < m; ++k) mat_of(j, k, in[std::size_t(j)].data() + 4 * k);
    out[std::size_t(j)].assign(4 * m, -1);
    ex[std::size_t(j)].assign(4 * m, -7);
    scan(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), m, mat(), false);
  });
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < m; ++k)
      ASSERT_EQ(Buf(out[std::size_t(j)].begin() + 4 * k, out[std::size_t(j)].begin() + 4 * k + 4), mat_product(0, j, k))
          << "scan rank " << j;
  p.run([&](int j, Schedule& s) { scan(s, in[std::size_t(j)].data(), ex[std::size_t(j)].data(), m, mat(), true); });
  ASSERT_EQ(ex[0], Buf(4 * m, -7));  // untouched on rank 0
  for (int j = 1; j < n; ++j)
    for (int k = 0; k < m; ++k)
      ASSERT_EQ(Buf(ex[std::size_t(j)].begin() + 4 * k, ex[std::size_t(j)].begin() + 4 * k + 4), mat_product(0, j - 1, k))
          << "exscan rank " << j;
}

TEST_P(Sizes, GatherScatter) {
  const int n = GetParam();
  Procs p(n);
  for (int count : {0, 3, 5000}) {
    for (int root = 0; root < n; ++root) {
      std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
      p.run([&](int j, Schedule& s) {
        in[std::size_t(j)] = data(j, count);
        out[std::size_t(j)].assign(std::size_t(count * n), -1);
        gather(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), std::size_t(count) * 4, root);
      });
      for (int r = 0; r < n; ++r)
        ASSERT_EQ(Buf(out[std::size_t(root)].begin() + r * count, out[std::size_t(root)].begin() + (r + 1) * count),
                  data(r, count))
            << "gather count " << count << " root " << root;
      p.run([&](int j, Schedule& s) {
        // root scatters what it gathered; others receive into in[]
        in[std::size_t(j)].assign(static_cast<std::size_t>(count), -1);
        scatter(s, out[std::size_t(root)].data(), in[std::size_t(j)].data(), std::size_t(count) * 4, root);
      });
      for (int j = 0; j < n; ++j) ASSERT_EQ(in[std::size_t(j)], data(j, count)) << "scatter count " << count << " root " << root;
    }
  }
  // v forms: rank r has r+1 elements, placed in reverse order with gaps.
  std::vector<std::size_t> bytes(static_cast<std::size_t>(n)), offs(static_cast<std::size_t>(n));
  std::size_t end = 0;
  for (int r = n - 1; r >= 0; --r) {
    bytes[std::size_t(r)] = std::size_t(r + 1) * 4;
    offs[std::size_t(r)] = end;
    end += bytes[std::size_t(r)] + 4;
  }
  const int root = n / 2;
  std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  p.run([&](int j, Schedule& s) {
    in[std::size_t(j)] = data(j, j + 1);
    out[std::size_t(j)].assign(end / 4, -1);
    gatherv(s, in[std::size_t(j)].data(), bytes[std::size_t(j)], out[std::size_t(j)].data(), bytes.data(), offs.data(), root);
  });
  for (int r = 0; r < n; ++r)
    ASSERT_EQ(Buf(out[std::size_t(root)].begin() + long(offs[std::size_t(r)] / 4),
                  out[std::size_t(root)].begin() + long(offs[std::size_t(r)] / 4) + r + 1),
              data(r, r + 1));
  p.run([&](int j, Schedule& s) {
    in[std::size_t(j)].assign(std::size_t(j + 1), -1);
    scatterv(s, out[std::size_t(root)].data(), bytes.data(), offs.data(), in[std::size_t(j)].data(), bytes[std::size_t(j)], root);
  });
  for (int j = 0; j < n; ++j) ASSERT_EQ(in[std::size_t(j)], data(j, j + 1));
}

TEST_P(Sizes, AllgatherAlltoall) {
  const int n = GetParam();
  Procs p(n);
  for (int count : {0, 3, 20000}) {
    std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    p.run([&](int j, Schedule& s) {
      in[std::size_t(j)] = data(j, count);
      out[std::size_t(j)].assign(std::size_t(count * n), -1);
      allgather(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), std::size_t(count) * 4);
    });
    for (int j = 0; j < n; ++j)
      for (int r = 0; r < n; ++r)
        ASSERT_EQ(Buf(out[std::size_t(j)].begin() + r * count, out[std::size_t(j)].begin() + (r + 1) * count), data(r, count))
            << "allgather count " << count;
  }
  for (int count : {1, 2, 100}) {
    std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
    p.run([&](int j, Schedule& s) {
      in[std::size_t(j)] = data(j, count * n);
      out[std::size_t(j)].assign(std::size_t(count * n), -1);
      alltoall(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), std::size_t(count) * 4);
    });
    for (int j = 0; j < n; ++j)
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < count; ++i)
          ASSERT_EQ(out[std::size_t(j)][std::size_t(r * count + i)], val(r, j * count + i)) << "alltoall count " << count;
  }
  // allgatherv with uneven blocks
  std::vector<std::size_t> bytes(static_cast<std::size_t>(n)), offs(static_cast<std::size_t>(n));
  std::size_t end = 0;
  for (int r = 0; r < n; ++r) {
    bytes[std::size_t(r)] = std::size_t(r % 4) * 4;
    offs[std::size_t(r)] = end;
    end += bytes[std::size_t(r)] + 8;
  }
  std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  p.run([&](int j, Schedule& s) {
    in[std::size_t(j)] = data(j, j % 4);
    out[std::size_t(j)].assign(end / 4, -1);
    allgatherv(s, in[std::size_t(j)].data(), bytes[std::size_t(j)], out[std::size_t(j)].data(), bytes.data(), offs.data());
  });
  for (int j = 0; j < n; ++j)
    for (int r = 0; r < n; ++r)
      ASSERT_EQ(Buf(out[std::size_t(j)].begin() + long(offs[std::size_t(r)] / 4),
                    out[std::size_t(j)].begin() + long(offs[std::size_t(r)] / 4) + r % 4),
                data(r, r % 4));
}

INSTANTIATE_TEST_SUITE_P(Coll, Sizes, ::testing::Range(1, 18));

class InterSizes : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(InterSizes, RootedAndAllToAll) {
  const auto [a, b] = GetParam();
  Procs p(a, b);
  const int nj = a + b;
  auto group = [&](int j) { return j < a ? 0 : 1; };
  auto lrank = [&](int j) { return j < a ? j : j - a; };
  auto rsize = [&](int j) { return j < a ? b : a; };
  p.run([](int, Schedule& s) { barrier(s); });
  for (int rg = 0; rg < 2; ++rg) {
    const int root_local = (rg == 0 ? a : b) - 1;  // last rank of the root group is the root
    auto root_arg = [&](int j) { return group(j) == rg ? (lrank(j) == root_local ? kRoot : p2p::kProcNull) : root_local; };
    std::vector<Buf> x(static_cast<std::size_t>(nj)), y(static_cast<std::size_t>(nj));
    // bcast
    p.run([&](int j, Schedule& s) {
      x[std::size_t(j)] = root_arg(j) == kRoot ? data(77, 9) : Buf(9, -1);
      bcast(s, x[std::size_t(j)].data(), 36, root_arg(j));
    });
    for (int j = 0; j < nj; ++j)
      if (group(j) != rg) {
        ASSERT_EQ(x[std::size_t(j)], data(77, 9));
      }
    // reduce: root gets the sum over the remote group's local ranks
    p.run([&](int j, Schedule& s) {
      x[std::size_t(j)] = data(lrank(j), 4);
      y[std::size_t(j)].assign(4, -1);
      reduce(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), 4, sum(), root_arg(j));
    });
    for (int j = 0; j < nj; ++j)
      if (root_arg(j) == kRoot) {
        for (int i = 0; i < 4; ++i) ASSERT_EQ(y[std::size_t(j)][std::size_t(i)], sum_over(rsize(j), i));
      }
    // gather / scatter
    p.run([&](int j, Schedule& s) {
      x[std::size_t(j)] = data(lrank(j), 2);
      y[std::size_t(j)].assign(std::size_t(2 * rsize(j)), -1);
      gather(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), 8, root_arg(j));
    });
    for (int j = 0; j < nj; ++j)
      if (root_arg(j) == kRoot) {
        for (int r = 0; r < rsize(j); ++r)
          ASSERT_EQ(Buf(y[std::size_t(j)].begin() + 2 * r, y[std::size_t(j)].begin() + 2 * r + 2), data(r, 2));
      }
    p.run([&](int j, Schedule& s) {
      x[std::size_t(j)].assign(2, -1);
      scatter(s, y[std::size_t(j)].data(), x[std::size_t(j)].data(), 8, root_arg(j));
    });
    for (int j = 0; j < nj; ++j)
      if (group(j) != rg) {
        ASSERT_EQ(x[std::size_t(j)], data(lrank(j), 2));
      }
  }
  // allreduce / allgather / alltoall: results from the remote group
  std::vector<Buf> x(static_cast<std::size_t>(nj)), y(static_cast<std::size_t>(nj));
  p.run([&](int j, Schedule& s) {
    x[std::size_t(j)] = data(lrank(j), 3);
    y[std::size_t(j)].assign(3, -1);
    allreduce(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), 3, sum());
  });
  for (int j = 0; j < nj; ++j)
    for (int i = 0; i < 3; ++i) ASSERT_EQ(y[std::size_t(j)][std::size_t(i)], sum_over(rsize(j), i));
  p.run([&](int j, Schedule& s) {
    x[std::size_t(j)] = data(lrank(j) + 10 * group(j), 2);
    y[std::size_t(j)].assign(std::size_t(2 * rsize(j)), -1);
    allgather(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), 8);
  });
  for (int j = 0; j < nj; ++j)
    for (int r = 0; r < rsize(j); ++r)
      ASSERT_EQ(Buf(y[std::size_t(j)].begin() + 2 * r, y[std::size_t(j)].begin() + 2 * r + 2), data(r + 10 * (1 - group(j)), 2));
  p.run([&](int j, Schedule& s) {
    x[std::size_t(j)] = data(lrank(j) + 10 * group(j), rsize(j));
    y[std::size_t(j)].assign(std::size_t(rsize(j)), -1);
    alltoall(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), 4);
  });
  for (int j = 0; j < nj; ++j)
    for (int r = 0; r < rsize(j); ++r)
      ASSERT_EQ(y[std::size_t(j)][std::size_t(r)], val(r + 10 * (1 - group(j)), lrank(j)));
  // reduce_scatter: equal totals a*b; group 0 ranks get b elements each, group 1 ranks a each
  std::vector<std::size_t> c0(static_cast<std::size_t>(a), std::size_t(b)), c1(static_cast<std::size_t>(b), std::size_t(a));
  p.run([&](int j, Schedule& s) {
    x[std::size_t(j)] = data(lrank(j), a * b);
    y[std::size_t(j)].assign(std::size_t(group(j) ? a : b), -1);
    reduce_scatter(s, x[std::size_t(j)].data(), y[std::size_t(j)].data(), group(j) ? c1.data() : c0.data(), sum());
  });
  for (int j = 0; j < nj; ++j) {
    const int per = group(j) ? a : b;
    for (int i = 0; i < per; ++i)
      ASSERT_EQ(y[std::size_t(j)][std::size_t(i)], sum_over(rsize(j), lrank(j) * per + i));
  }
}

INSTANTIATE_TEST_SUITE_P(Coll, InterSizes, ::testing::Combine(::testing::Range(1, 5), ::testing::Range(1, 5)));

}  // namespace
}  // namespace railmpi::coll

namespace railmpi::coll {
namespace {

// A schedule made new again (the engine's pool) runs a second collective right, on the memory of
// the first: transfers and scratch blocks stay where they were.
TEST(SchedulePool, ReusedScheduleRunsAgainOnItsMemory) {
  for (int n : {2, 5, 8}) {
    Procs p(n);
    std::vector<Buf> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n), Buf(64));
    for (int r = 0; r < n; ++r) in[std::size_t(r)] = data(r, 64);
    p.run([&](int j, Schedule& s) { allreduce(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), 64, sum()); });
    std::vector<const void*> transfers, scratch;
    std::vector<Schedule*> ptrs;
    for (int j = 0; j < n; ++j) {
      Schedule& s = *p.scheds[std::size_t(j)];
      ASSERT_TRUE(s.done());
      transfers.push_back(Simulator::transfers_at(s));
      scratch.push_back(Simulator::scratch_at(s, 0));
      Simulator::reuse(s, p.comms[std::size_t(j)]);
      EXPECT_FALSE(s.done());
      for (int i = 0; i < 64; ++i) in[std::size_t(j)][std::size_t(i)] = val(j, i) * 2;
      allreduce(s, in[std::size_t(j)].data(), out[std::size_t(j)].data(), 64, sum());
      ptrs.push_back(&s);
    }
    ASSERT_EQ(Simulator::run(ptrs), "");
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < 64; ++i) ASSERT_EQ(out[std::size_t(j)][std::size_t(i)], 2 * sum_over(n, i)) << n << " " << j;
      EXPECT_EQ(Simulator::transfers_at(*p.scheds[std::size_t(j)]), transfers[std::size_t(j)]);
      EXPECT_EQ(Simulator::scratch_at(*p.scheds[std::size_t(j)], 0), scratch[std::size_t(j)]);
    }
  }
}

// Scratch memory handed out by a reused schedule is zeroed, as a new schedule's is.
TEST(SchedulePool, ReusedScratchIsZeroed) {
  Procs p(1);
  auto own = std::make_unique<Schedule>(nullptr, p.comms[0]);
  Schedule& s = *own;
  std::byte* a = s.scratch(100);
  std::memset(a, 0xab, 100);
  Simulator::reuse(s, p.comms[0]);
  std::byte* b = s.scratch(60);
  EXPECT_EQ(a, b);
  for (int i = 0; i < 60; ++i) ASSERT_EQ(b[i], std::byte{0});
}

}  // namespace
}  // namespace railmpi::coll
