// PME split over slabs of x planes (SlabPme.h), the reference for PME across several GPUs,
// against CpuPme: the same energy, virial and forces to double rounding for every rank
// count, slabs thinner than the spline order and uneven splits included.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/Error.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/SlabPme.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

PmeParams params(double beta, int order, std::array<int, 3> grid) {
  PmeParams p;
  p.beta = beta;
  p.order = order;
  p.grid = grid;
  return p;
}

double maxForce(const std::vector<Vec3>& f) {
  double m = 0;
  for (const Vec3& v : f) m = std::max(m, std::sqrt(norm2(v)));
  return m;
}

TEST(SlabPme, RangesCoverEveryPlaneOnce) {
  for (int count : {7, 16, 25})
    for (int ranks = 1; ranks <= count; ++ranks) {
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto [first, last] = slabRange(count, ranks, r);
        EXPECT_EQ(first, next) << count << " planes, rank " << r << " of " << ranks;
        EXPECT_GE(last - first, count / ranks);
        EXPECT_LE(last - first, count / ranks + 1);
        next = last;
      }
      EXPECT_EQ(next, count);
    }
}

TEST(SlabPme, BrickSlabsCoverEveryPlaneOnceInWholeBricks) {
  for (int kx : {8, 17, 40, 192})
    for (int ranks = 1; ranks <= (kx + 7) / 8; ++ranks) {
      int next = 0;
      for (int r = 0; r < ranks; ++r) {
        const auto [first, last] = slabPlanes(kx, ranks, r, SlabCut::bricks);
        EXPECT_EQ(first, next) << kx << " planes, rank " << r << " of " << ranks;
        EXPECT_EQ(first % 8, 0) << "a slab starts at a brick";
        EXPECT_GT(last, first) << "every rank has a plane";
        next = last;
      }
      EXPECT_EQ(next, kx);
    }
  PmeParams p = params(3.0, 4, {40, 3, 40});
  EXPECT_TRUE(slabSplitPossible(p, 3));
  EXPECT_FALSE(slabSplitPossible(p, 4)) << "3 y rows";
  EXPECT_FALSE(slabSplitPossible(p, 6)) << "5 bricks";
  p.grid = {44, 44, 44};  // 11: no line transform
  EXPECT_FALSE(slabSplitPossible(p, 2));
  // auto: the 1M-ion grid and the 1M-water grid split, the 110,592-ion grid stays on one GPU.
  p.grid = {270, 270, 270};
  EXPECT_TRUE(slabSplitPays(p));
  p.grid = {168, 189, 189};
  EXPECT_TRUE(slabSplitPays(p));
  p.grid = {135, 135, 135};
  EXPECT_FALSE(slabSplitPays(p));
}

TEST(SlabPme, EqualsCpuPmeForEveryRankCount) {
  test::Ions s = test::randomIons(240, 2.6, 31);
  // A box of three different edges and a grid of three different sizes, so that a mix-up of
  // x and y (the slab and row splits) cannot pass.
  s.box = Box::rectangular(2.6, 2.9, 3.3);
  for (Vec3& r : s.positions) r = Vec3{r.x, r.y * 2.9 / 2.6, r.z * 3.3 / 2.6};
  for (int order : {4, 5, 7}) {
    const PmeParams p = params(3.1, order, {18, 20, 24});
    CpuPme cpu(p, 2);
    std::vector<Vec3> reference(s.positions.size());
    const ReciprocalResult expected = cpu.compute(s.positions, s.charges, s.box, reference, nullptr);
    const double scale = maxForce(reference);
    ASSERT_GT(scale, 0.0);
    ASSERT_GT(std::abs(expected.energy), 0.0);
    // 1: one slab; 5, 7: uneven splits; 6 (order 7), 9, 18: slabs thinner than the stencil.
    // Then the GPUs' cut into whole bricks: 1 to 3 slabs of the 3 bricks (the last of 2 planes).
    const std::vector<std::pair<int, SlabCut>> cases = {
        {1, SlabCut::planes}, {2, SlabCut::planes}, {3, SlabCut::planes},  {5, SlabCut::planes}, {6, SlabCut::planes},
        {7, SlabCut::planes}, {9, SlabCut::planes}, {18, SlabCut::planes}, {2, SlabCut::bricks}, {3, SlabCut::bricks}};
    for (const auto& [ranks, cut] : cases) {
      std::vector<Vec3> forces(s.positions.size());
      const ReciprocalResult got = slabPme(p, ranks, s.positions, s.charges, s.box, forces, cut);
      EXPECT_NEAR(got.energy, expected.energy, tol::kDoubleSum * std::abs(expected.energy))
          << "order " << order << ", " << ranks << " ranks";
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          EXPECT_NEAR(got.virial.m[a][b], expected.virial.m[a][b], tol::kDoubleSum * std::abs(expected.energy))
              << "virial " << a << b << ", order " << order << ", " << ranks << " ranks";
      double worst = 0;
      for (std::size_t i = 0; i < forces.size(); ++i) worst = std::max(worst, std::sqrt(norm2(forces[i] - reference[i])));
      EXPECT_LT(worst, tol::kDoubleSum * scale) << "order " << order << ", " << ranks << " ranks";
    }
  }
}

TEST(SlabPme, AddsToTheForcesGiven) {
  const test::Ions s = test::randomIons(60, 2.0, 32);
  const PmeParams p = params(3.0, 4, {16, 16, 16});
  std::vector<Vec3> alone(s.positions.size()), added(s.positions.size(), Vec3{1.0, -2.0, 3.0});
  slabPme(p, 4, s.positions, s.charges, s.box, alone);
  slabPme(p, 4, s.positions, s.charges, s.box, added);
  for (std::size_t i = 0; i < alone.size(); ++i) {
    const double bound = tol::kDoubleSum * (3.0 + std::sqrt(norm2(alone[i])));
    EXPECT_NEAR(added[i].x, alone[i].x + 1.0, bound);
    EXPECT_NEAR(added[i].y, alone[i].y - 2.0, bound);
    EXPECT_NEAR(added[i].z, alone[i].z + 3.0, bound);
  }
}

TEST(SlabPme, RejectsRankCountsTheGridCannotSplit) {
  const test::Ions s = test::randomIons(20, 2.0, 33);
  const PmeParams p = params(3.0, 4, {16, 12, 16});
  std::vector<Vec3> f(s.positions.size());
  for (int ranks : {0, -1, 13, 17}) {
    try {
      slabPme(p, ranks, s.positions, s.charges, s.box, f);
      ADD_FAILURE() << ranks << " ranks accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ranks"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(slabPme(p, 12, s.positions, s.charges, s.box, f));
  EXPECT_THROW(slabPme(p, 3, s.positions, s.charges, s.box, f, SlabCut::bricks), Error) << "2 bricks";
}

}  // namespace
}  // namespace faraday
