// Groups, context-id masks, dims_create, neighbour lists, attribute store.
#include <gtest/gtest.h>

#include <cstring>

#include "core/attributes.hpp"
#include "core/communicator.hpp"
#include "core/context_ids.hpp"
#include "core/group.hpp"
#include "core/topology.hpp"

using namespace railmpi::core;

TEST(Group, SetOperationsKeepMpiOrder) {
  const Ranks a{5, 1, 3}, b{3, 7, 5, 9};
  EXPECT_EQ(group_union(a, b), (Ranks{5, 1, 3, 7, 9}));
  EXPECT_EQ(group_intersection(a, b), (Ranks{5, 3}));
  EXPECT_EQ(group_difference(a, b), (Ranks{1}));
  EXPECT_EQ(group_compare(a, a), 0);
  EXPECT_EQ(group_compare(a, Ranks{1, 3, 5}), 2);
  EXPECT_EQ(group_compare(a, b), 3);
  EXPECT_EQ(group_rank_of(a, 3), 2);
  EXPECT_EQ(group_rank_of(a, 4), kUndefinedRank);
}

TEST(Group, InclExclRanges) {
  const Ranks g{10, 11, 12, 13, 14, 15};
  const int r[] = {4, 0};
  EXPECT_EQ(group_incl(g, r, 2), (Ranks{14, 10}));
  EXPECT_EQ(group_excl(g, r, 2), (Ranks{11, 12, 13, 15}));
  EXPECT_TRUE(validate_rank_list(6, r, 2).empty());
  const int dup[] = {1, 1};
  EXPECT_FALSE(validate_rank_list(6, dup, 2).empty());
  const int out[] = {6};
  EXPECT_FALSE(validate_rank_list(6, out, 1).empty());
  const int ranges[][3] = {{5, 1, -2}, {0, 0, 1}};
  EXPECT_TRUE(validate_ranges(6, ranges, 2).empty());
  EXPECT_EQ(group_range_incl(g, ranges, 2), (Ranks{15, 13, 11, 10}));
  EXPECT_EQ(group_range_excl(g, ranges, 2), (Ranks{12, 14}));
  const int zero[][3] = {{0, 3, 0}};
  EXPECT_FALSE(validate_ranges(6, zero, 1).empty());
  const int overlap[][3] = {{0, 4, 2}, {2, 3, 1}};
  EXPECT_FALSE(validate_ranges(6, overlap, 2).empty());
}

TEST(Group, TableReusesHandles) {
  GroupTable t;
  EXPECT_NE(t.find(0x48000000), nullptr);
  EXPECT_TRUE(t.find(0x48000000)->empty());
  const int h = t.add({1, 2});
  ASSERT_NE(t.find(h), nullptr);
  EXPECT_EQ(*t.find(h), (Ranks{1, 2}));
  EXPECT_TRUE(t.release(h));
  EXPECT_EQ(t.find(h), nullptr);
  EXPECT_FALSE(t.release(h));
  EXPECT_EQ(t.add({3}), h);
  EXPECT_EQ(t.find(0x08000000), nullptr);  // MPI_GROUP_NULL
}

// Simulates processes agreeing on ids: AND of the members' masks, lowest common slot.
static int agree(std::vector<ContextIds*> members, std::vector<bool> take) {
  std::uint64_t mask[ContextIds::kWords], mine[ContextIds::kWords];
  members[0]->contribution(mask);
  for (auto* m : members) {
    m->contribution(mine);
    for (int i = 0; i < ContextIds::kWords; ++i) mask[i] &= mine[i];
  }
  const int slot = ContextIds::lowest(mask);
  for (std::size_t i = 0; i < members.size(); ++i)
    if (take[i]) members[i]->take(slot);
  return ContextIds::context_of(slot);
}

TEST(ContextIds, AgreementNeverCollides) {
  ContextIds p0, p1, p2;
  // World and self are taken everywhere; first dynamic id is 4.
  EXPECT_EQ(agree({&p0, &p1, &p2}, {true, true, true}), 4);
  // A communicator of p0,p1 only, then one over all three: must skip 4 and 6.
  EXPECT_EQ(agree({&p0, &p1}, {true, true}), 6);
  EXPECT_EQ(agree({&p0, &p1, &p2}, {true, true, true}), 8);
  // p2 alone gets 6 (free there): safe, p2 never talks to p0/p1 on it.
  EXPECT_EQ(agree({&p2}, {true}), 6);
  // Free and reuse: 4 comes back once every member released it.
  p0.release(4);
  p1.release(4);
  EXPECT_EQ(agree({&p0, &p1, &p2}, {true, true, true}), 10);  // p2 still holds 4
  p2.release(4);
  EXPECT_EQ(agree({&p0, &p1, &p2}, {true, true, true}), 4);
  // Non-members (take=false) keep the slot.
  const int c = agree({&p0, &p1, &p2}, {true, false, false});
  EXPECT_FALSE(p0.is_free(c / 2));
  EXPECT_TRUE(p1.is_free(c / 2));
  // World/self never released.
  p0.release(0);
  p0.release(2);
  EXPECT_FALSE(p0.is_free(0));
  EXPECT_FALSE(p0.is_free(1));
}

TEST(ContextIds, ThousandsOfCreateFreeCycles) {
  ContextIds a, b;
  const int before = a.free_count();
  for (int i = 0; i < 5000; ++i) {
    const int c = agree({&a, &b}, {true, true});
    ASSERT_GE(c, 4);
    a.release(c);
    b.release(c);
  }
  EXPECT_EQ(a.free_count(), before);
  // Exhaustion: all slots taken gives -1.
  std::uint64_t none[ContextIds::kWords] = {};
  EXPECT_EQ(ContextIds::lowest(none), -1);
}

TEST(ContextIds, ReservationsAreAllOrNoneAndLeaveTheContribution) {
  ContextIds p;
  std::uint64_t mine[ContextIds::kWords];
  const int ab[2] = {5, 6};
  EXPECT_TRUE(p.reserve(ab, 2));
  p.contribution(mine);
  EXPECT_EQ(ContextIds::lowest(mine), 2);
  EXPECT_EQ(ContextIds::lowest(mine, 3), 7) << "reserved slots 5 and 6 are not offered";
  const int bc[2] = {4, 6};
  EXPECT_FALSE(p.reserve(bc, 2)) << "6 is reserved by another agreement";
  const int four[1] = {4};
  EXPECT_TRUE(p.reserve(four, 1)) << "the failed reservation left 4 alone";
  p.unreserve(ab, 2);
  p.unreserve(four, 1);
  p.take(3);
  const int three[1] = {3};
  EXPECT_FALSE(p.reserve(three, 1)) << "a taken slot cannot be reserved";
  p.contribution(mine);
  EXPECT_EQ(ContextIds::lowest(mine, 1), 4);
}

// Two agreements overlap at P: A's phase-one mask from P is stale when B (one phase, P and Q)
// takes the same slot; A's second phase at P refuses it, so A starts over and gets another slot.
TEST(ContextIds, StaleContributionIsCaughtBySecondPhase) {
  ContextIds p, q;
  std::uint64_t a_mask[ContextIds::kWords], other[ContextIds::kWords];
  p.contribution(a_mask);
  q.contribution(other);
  for (int i = 0; i < ContextIds::kWords; ++i) a_mask[i] &= other[i];
  const int b = agree({&p, &q}, {true, true}) / 2;  // B completes first
  const int a = ContextIds::lowest(a_mask);
  ASSERT_EQ(a, b) << "A's stale outcome names B's slot";
  EXPECT_FALSE(p.reserve(&a, 1)) << "phase two at P refuses it";
  p.contribution(a_mask);
  q.contribution(other);
  for (int i = 0; i < ContextIds::kWords; ++i) a_mask[i] &= other[i];
  const int retry = ContextIds::lowest(a_mask);
  EXPECT_NE(retry, b);
  EXPECT_TRUE(p.reserve(&retry, 1));
  EXPECT_TRUE(q.reserve(&retry, 1));
}

static std::vector<int> dims(int nnodes, std::vector<int> d) {
  EXPECT_TRUE(dims_create(nnodes, static_cast<int>(d.size()), d.data()).empty());
  return d;
}

TEST(DimsCreate, BalancedNonIncreasing) {
  EXPECT_EQ(dims(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims(12, {0, 0}), (std::vector<int>{4, 3}));
  EXPECT_EQ(dims(16, {0, 0, 0}), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(dims(24, {0, 3, 0}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(dims(36, {0, 0}), (std::vector<int>{6, 6}));
  EXPECT_EQ(dims(1, {0, 0, 0}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(dims(8, {2, 2, 2}), (std::vector<int>{2, 2, 2}));
  int bad[2] = {0, 5};
  EXPECT_FALSE(dims_create(12, 2, bad).empty());
  int fixed[2] = {2, 2};
  EXPECT_FALSE(dims_create(5, 2, fixed).empty());
}

TEST(Topology, CartNeighbours) {
  Communicator c;
  auto t = std::make_shared<Topology>();
  t->kind = TopoKind::cart;
  t->dims = {2, 3};
  t->periods = {1, 0};
  c.topo = t;
  c.job_ranks = {0, 1, 2, 3, 4, 5};
  c.rank = 4;  // coords (1, 1)
  std::vector<int> src, dst;
  ASSERT_TRUE(neighbors(c, src, dst));
  EXPECT_EQ(src, (std::vector<int>{1, 1, 3, 5}));
  EXPECT_EQ(dst, src);
  c.rank = 0;  // (0,0): dim 1 is not periodic
  neighbors(c, src, dst);
  EXPECT_EQ(src, (std::vector<int>{3, 3, kProcNull, 1}));
  int coords[2];
  cart_coords(*t, 5, coords);
  EXPECT_EQ(coords[0], 1);
  EXPECT_EQ(coords[1], 2);
  const int wrap[2] = {-1, 2};
  EXPECT_EQ(cart_rank(*t, wrap), 5);
}

TEST(Topology, GraphAndDistGraphNeighbours) {
  Communicator c;
  auto t = std::make_shared<Topology>();
  t->kind = TopoKind::graph;
  t->index = {2, 3, 4};
  t->edges = {1, 2, 0, 0};
  c.topo = t;
  c.rank = 0;
  std::vector<int> src, dst;
  neighbors(c, src, dst);
  EXPECT_EQ(src, (std::vector<int>{1, 2}));
  c.rank = 2;
  neighbors(c, src, dst);
  EXPECT_EQ(dst, (std::vector<int>{0}));
  auto d = std::make_shared<Topology>();
  d->kind = TopoKind::dist_graph;
  d->sources = {3};
  d->destinations = {1, 2};
  c.topo = d;
  neighbors(c, src, dst);
  EXPECT_EQ(src, (std::vector<int>{3}));
  EXPECT_EQ(dst, (std::vector<int>{1, 2}));
  c.topo = nullptr;
  EXPECT_FALSE(neighbors(c, src, dst));
}

static int g_deleted;
static int count_delete(int, int, void*, void*) { return ++g_deleted, 0; }
static int plus_one_copy(int, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = static_cast<char*>(in) + 1;
  *flag = 1;
  return 0;
}

TEST(Attributes, CopyDeleteAndKeyvalLifetime) {
  AttributeStore s;
  g_deleted = 0;
  const int k = s.create_keyval(AttrKind::comm, plus_one_copy, count_delete, nullptr);
  ASSERT_NE(s.find_keyval(k, AttrKind::comm), nullptr);
  EXPECT_EQ(s.find_keyval(k, AttrKind::type), nullptr);
  char base[4];
  EXPECT_EQ(s.set(1, k, base), 0);
  EXPECT_EQ(s.copy_all(1, 2), 0);
  void* v = nullptr;
  ASSERT_TRUE(s.get(2, k, v));
  EXPECT_EQ(v, base + 1);
  s.free_keyval(k);
  EXPECT_EQ(s.find_keyval(k, AttrKind::comm), nullptr);  // freed: not usable for new sets
  EXPECT_TRUE(s.get(1, k, v));                              // but attributes remain
  EXPECT_EQ(s.remove_all(1), 0);
  EXPECT_EQ(g_deleted, 1);
  bool found = false;
  EXPECT_EQ(s.remove(2, k, found), 0);
  EXPECT_TRUE(found);
  EXPECT_EQ(g_deleted, 2);
  // The slot is reused now that nothing refers to it.
  EXPECT_EQ(s.create_keyval(AttrKind::type, nullptr, nullptr, nullptr), k);
}
