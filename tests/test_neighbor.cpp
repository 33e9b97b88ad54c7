// The cell-list Verlet list against the O(N^2) pair search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "kernels/neighbor/NeighborList.h"
#include "tests/BackendTestSystems.h"

namespace faraday::test {
namespace {

/// The list as sorted particle pairs i < j, after checking that it is full (each pair in
/// both rows), that every row is strictly ascending, and that order() is a permutation.
std::vector<std::pair<int, int>> pairsOf(const NeighborList& list) {
  std::vector<std::pair<int, int>> pairs;
  std::set<std::pair<int, int>> lower;
  const auto& off = list.offsets();
  const auto& nb = list.neighbors();
  const auto& order = list.order();
  std::vector<int> sortedOrder = order;
  std::sort(sortedOrder.begin(), sortedOrder.end());
  for (std::size_t s = 0; s < sortedOrder.size(); ++s) EXPECT_EQ(sortedOrder[s], int(s)) << "order is no permutation";
  for (int s = 0; s + 1 < int(off.size()); ++s) {
    for (int k = off[s]; k < off[s + 1]; ++k) {
      if (k > off[s]) EXPECT_LT(nb[k - 1], nb[k]) << "row " << s << " not strictly ascending";
      EXPECT_NE(nb[k], s);
      const int i = order[s], j = order[nb[k]];
      if (i < j) pairs.emplace_back(i, j);
      else lower.emplace(j, i);
    }
  }
  std::sort(pairs.begin(), pairs.end());
  const std::set<std::pair<int, int>> upper(pairs.begin(), pairs.end());
  EXPECT_EQ(upper, lower) << "the list is not symmetric";
  return pairs;
}

void expectMatchesBruteForce(int n, Vec3 L, unsigned seed, double cutoff, double buffer) {
  const BuiltSystem b = randomLjSystem(n, L, seed, 0.1);
  NeighborList list(cutoff, buffer);
  list.build(b.positions, b.system.box);
  const auto expect = bruteForcePairs(b.positions, b.system.box, cutoff + buffer);
  EXPECT_EQ(pairsOf(list), expect) << "n " << n << " box " << L.x << " " << L.y << " " << L.z;
  EXPECT_FALSE(expect.empty());
}

// Cells have edge >= radius/2 and the stencil reaches two cells each way, so boxes with
// fewer than five cells per edge (edges below 2.5 list radii) take each cell once.
TEST(NeighborList, BoxEdgesBelowTwoListRadii) { expectMatchesBruteForce(120, {2.1, 2.15, 2.18}, 1, 1.0, 0.1); }
TEST(NeighborList, FourFiveAndSixCellsPerEdge) { expectMatchesBruteForce(250, {2.3, 2.8, 3.35}, 2, 1.0, 0.1); }
TEST(NeighborList, MixedCellCounts) { expectMatchesBruteForce(300, {2.1, 3.4, 5.0}, 3, 1.0, 0.1); }
TEST(NeighborList, ManyCellsLargerBox) { expectMatchesBruteForce(2000, {5.0, 5.5, 6.0}, 4, 1.0, 0.12); }
TEST(NeighborList, ListRadiusAboveHalfBox) { expectMatchesBruteForce(150, {2.05, 2.3, 2.6}, 5, 1.0, 0.3); }

/// n particles at random fractional positions of a triclinic `box`, no two closer than 0.1 nm;
/// every seventh moved by a lattice vector.
std::vector<Vec3> triclinicPositions(int n, const Box& box, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> x;
  while (int(x.size()) < n) {
    const Vec3 p = box.fromFractional(Vec3{u(rng), u(rng), u(rng)});
    bool ok = true;
    for (const Vec3& y : x) ok = ok && norm2(box.minimumImage(p - y)) >= 0.01;
    if (ok) x.push_back(x.size() % 7 == 0 ? p + box.a - box.b * 2.0 + box.c : p);
  }
  return x;
}

/// Triclinic cells (gmx editconf's dodecahedron and truncated octahedron): the stencil shifted
/// by the tilts across the faces finds every pair, from the smallest cell the list radius allows
/// to cells of many cells per edge.
TEST(NeighborList, TriclinicCellsOfEverySize) {
  const double s2 = std::sqrt(2.0), s6 = std::sqrt(6.0);
  const auto dodecahedron = [&](double d) { return Box::fromVectors({d, 0, 0}, {0, d, 0}, {d / 2, d / 2, d / s2}); };
  const auto octahedron = [&](double d) {
    return Box::fromVectors({d, 0, 0}, {d / 3, 2 * s2 * d / 3, 0}, {-d / 3, s2 * d / 3, s6 * d / 3});
  };
  const std::pair<const char*, Box> cases[] = {{"smallest dodecahedron", dodecahedron(3.12)},
                                               {"dodecahedron 4 nm", dodecahedron(4.0)},
                                               {"dodecahedron 7 nm", dodecahedron(7.0)},
                                               {"smallest octahedron", octahedron(2.7)},
                                               {"octahedron 6.5 nm", octahedron(6.5)}};
  for (const auto& [name, box] : cases) {
    ASSERT_LE(1.1, box.maxCutoff()) << name;
    const std::vector<Vec3> x = triclinicPositions(int(std::min(3000.0, 8 * box.volume())), box, 9);
    NeighborList list(1.0, 0.1);
    list.build(x, box);
    const auto expect = bruteForcePairs(x, box, 1.1);
    EXPECT_EQ(pairsOf(list), expect) << name;
    EXPECT_FALSE(expect.empty()) << name;
  }
}

/// Sparse boxes: clusters of atoms far apart in a box of 1000 nm (and a long thin one). The
/// cell grid is capped at a multiple of the atom count (cells of 0.55 nm would number
/// 6e9), and the list is still exact.
TEST(NeighborList, SparseBoxesKeepTheCellGridSmall) {
  for (const Vec3 L : {Vec3{1000, 1000, 1000}, Vec3{2.5, 2.5, 5000}}) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<Vec3> positions;
    for (int cluster = 0; cluster < 6; ++cluster) {
      const Vec3 centre{u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
      for (int k = 0; k < 8; ++k)
        positions.push_back(Box::rectangular(L.x, L.y, L.z).wrap(centre + Vec3{u(rng), u(rng), u(rng)} * 0.9));
    }
    const Box box = Box::rectangular(L.x, L.y, L.z);
    NeighborList list(1.0, 0.1);
    list.build(positions, box);
    EXPECT_LE(list.cells(), std::max<std::size_t>(64, 4 * positions.size())) << "box " << L.z;
    const auto expect = bruteForcePairs(positions, box, 1.1);
    EXPECT_EQ(pairsOf(list), expect) << "box " << L.z;
    EXPECT_FALSE(expect.empty());
  }
  // A dense liquid keeps its cells of edge radius / 2.
  const BuiltSystem b = randomLjSystem(2000, {5.0, 5.5, 6.0}, 4, 0.1);
  NeighborList dense(1.0, 0.12);
  dense.build(b.positions, b.system.box);
  EXPECT_EQ(dense.cells(), std::size_t(8 * 9 * 10));
}

TEST(NeighborList, IndependentOfThreadCount) {
  const BuiltSystem b = randomLjSystem(1500, {4.0, 4.5, 5.0}, 6, 0.1);
  NeighborList one(1.0, 0.1, 1), two(1.0, 0.1, 2);
  one.build(b.positions, b.system.box);
  two.build(b.positions, b.system.box);
  EXPECT_EQ(one.offsets(), two.offsets());
  EXPECT_EQ(one.neighbors(), two.neighbors());
  EXPECT_EQ(one.order(), two.order());
}

/// Particles move by random amounts below buffer/2: no rebuild is asked for and the old
/// list still holds every pair now within the cutoff. Then after a rebuild the list
/// matches the O(N^2) search at the new positions.
TEST(NeighborList, StaysValidWhileMovesAreBelowHalfBuffer) {
  const double cutoff = 1.0, buffer = 0.2;
  BuiltSystem b = randomLjSystem(600, {3.0, 3.2, 3.4}, 7, 0.1);
  NeighborList list(cutoff, buffer);
  list.build(b.positions, b.system.box);
  const auto listed = pairsOf(list);
  std::mt19937_64 rng(8);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> moved = b.positions;
  for (Vec3& x : moved) {
    const Vec3 dir{g(rng), g(rng), g(rng)};
    x += dir * (0.499 * buffer / std::sqrt(norm2(dir)));  // every particle moves 0.499 buffer
  }
  EXPECT_FALSE(list.needsRebuild(moved, b.system.box));
  for (const auto& p : bruteForcePairs(moved, b.system.box, cutoff))
    EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), p)) << p.first << "-" << p.second;
  list.build(moved, b.system.box);
  EXPECT_EQ(pairsOf(list), bruteForcePairs(moved, b.system.box, cutoff + buffer));
  EXPECT_EQ(list.builds(), 2);
}

/// The rebuild is asked for exactly when one particle passes buffer/2 (minimum image:
/// a jump by a whole box length is no move).
TEST(NeighborList, RebuildTriggersExactlyAtHalfBuffer) {
  const double buffer = 0.1;
  BuiltSystem b = randomLjSystem(100, {2.5, 2.5, 2.5}, 9, 0.1);
  NeighborList list(1.0, buffer);
  EXPECT_TRUE(list.needsRebuild(b.positions, b.system.box));  // never built
  list.build(b.positions, b.system.box);
  std::vector<Vec3> x = b.positions;
  const Vec3 dir = Vec3{2, -1, 2} / 3.0;
  x[42] = b.positions[42] + dir * (0.4999 * buffer);
  EXPECT_FALSE(list.needsRebuild(x, b.system.box));
  x[42] = b.positions[42] + dir * (0.5001 * buffer);
  EXPECT_TRUE(list.needsRebuild(x, b.system.box));
  x[42] = b.positions[42] + Vec3{2.5, 0, -2.5} + dir * (0.4999 * buffer);
  EXPECT_FALSE(list.needsRebuild(x, b.system.box));
  EXPECT_TRUE(list.needsRebuild(b.positions, Box::rectangular(2.5, 2.5, 2.6)));  // box changed
}

}  // namespace
}  // namespace faraday::test
