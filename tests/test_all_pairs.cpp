// The CPU all-pairs loop (open boundaries, every pair once, no cutoff): gravity and the
// typed force against a naive sum over ordered pairs, the same bits for any thread count,
// and systems of zero, one and two particles.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/config/KernelParams.h"
#include "kernels/nbody/AllPairs.h"
#include "kernels/nonbonded/TypedPairTable.h"
#include "tests/AllPairsTestSupport.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

// ---- The CPU all-pairs loop ----------------------------------------------------------------------

/// F_i = sum over j != i, U = 1/2 sum over ordered pairs, W = sum_i x_i (x) F_i (open
/// boundaries): every pair twice, from the formulas, not the evaluators.
struct NaiveSum {
  std::vector<Vec3> forces;
  double energy = 0;
};
NaiveSum naiveGravity(const std::vector<Vec3>& x, const std::vector<double>& m, double G, double eps) {
  NaiveSum s;
  s.forces.assign(x.size(), Vec3{});
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (i == j) continue;
      const Vec3 d = x[j] - x[i];
      const double s2 = norm2(d) + eps * eps;
      s.forces[i] += d * (G * m[i] * m[j] / (s2 * std::sqrt(s2)));
      s.energy -= 0.5 * G * m[i] * m[j] / std::sqrt(s2);
    }
  return s;
}
NaiveSum naiveTyped(const std::vector<Vec3>& x, const std::vector<int>& type, const TypedPairTable& t) {
  NaiveSum s;
  s.forces.assign(x.size(), Vec3{});
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (i == j) continue;
      const TypedPairParams<double>& p = t.at(type[i], type[j]);
      const Vec3 R = x[i] - x[j];
      const double r = std::sqrt(norm2(R)), rc = std::max(r, t.rmin);
      const double g = p.c1 / (rc * rc * rc) + std::pow(p.c2 / rc, p.c3);
      s.forces[i] += R * g;
      s.energy += 0.5 * (typedEnergy(rc, p) + g * (rc * rc - r * r) / 2);
    }
  return s;
}

void expectMatchesNaive(const std::vector<Vec3>& x, const AllPairsResult& r, const std::vector<Vec3>& f,
                        const NaiveSum& naive) {
  EXPECT_LT(relRmsVec(f, naive.forces), tol::kDoubleSum);
  EXPECT_NEAR(r.energy, naive.energy, tol::kDoubleSum * std::fabs(naive.energy));
  Vec3 total;
  double sumAbs = 0;
  Tensor3 w;
  for (std::size_t i = 0; i < f.size(); ++i) {
    total += f[i];
    sumAbs += std::sqrt(norm2(f[i]));
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) w.m[a][b] += x[i][a] * f[i][b];
  }
  EXPECT_LT(std::sqrt(norm2(total)), tol::kDoubleSum * sumAbs) << "Newton's third law";
  double wScale = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) wScale = std::max(wScale, std::fabs(w.m[a][b]));
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(r.virial.m[a][b], w.m[a][b], tol::kDoubleSum * wScale) << a << b;
}

TEST(AllPairsForces, GravityMatchesTheNaiveSumOverOrderedPairs) {
  const Cluster c = plummerSphere(300, 3, {4.0, -7.0, 2.0});
  AllPairsParams p;
  p.potential = AllPairsPotential::Gravity;
  p.G = 2.5;
  p.softening = 0.03;
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, f, 1);
  expectMatchesNaive(c.b.positions, r, f, naiveGravity(c.b.positions, c.b.system.mass, p.G, p.softening));
  EXPECT_LT(r.energy, 0.0);
}

TEST(AllPairsForces, TypedMatchesTheNaiveSumIncludingPairsBelowRmin) {
  BuiltSystem b = randomLjSystem(250, {2.0, 2.0, 2.0}, 17, 0.2);
  // Three pairs closer than rmin = 0.1 nm, where the force is clamped (one at r = 0).
  addParticle(b, 0, b.positions[0] + Vec3{0.04, 0, 0});
  addParticle(b, 1, b.positions[1] + Vec3{0, -0.07, 0.02});
  addParticle(b, 1, b.positions[2]);
  Config config = allPairsConfig("cpu", "typed", 0, 0.001);
  config.atomTypes = b.system.types;
  config.typedPairs = typedSections();
  config.nonbonded.typedRmin = 0.1;
  const AllPairsParams p = allPairsParams(config, b.system);
  ASSERT_EQ(p.potential, AllPairsPotential::Typed);
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(b.positions, b.system.mass, b.system.type, p, f, 1);
  expectMatchesNaive(b.positions, r, f, naiveTyped(b.positions, b.system.type, p.typed));
}

/// The rows are cut into chunks independent of the thread count and summed in chunk order.
TEST(AllPairsForces, SameBitsForAnyThreadCount) {
  const Cluster c = plummerSphere(700, 5);
  AllPairsParams p;
  p.softening = 0.01;
  std::vector<Vec3> one, other;
  const AllPairsResult r1 = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, one, 1);
  for (int threads : {2, 3, 8}) {
    const AllPairsResult rn = allPairsForces(c.b.positions, c.b.system.mass, c.b.system.type, p, other, threads);
    ASSERT_EQ(rn.energy, r1.energy) << threads;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) ASSERT_EQ(rn.virial.m[a][b], r1.virial.m[a][b]) << threads;
    for (std::size_t i = 0; i < one.size(); ++i) ASSERT_TRUE(other[i] == one[i]) << "particle " << i << ", " << threads;
  }
}

TEST(AllPairsForces, FewParticles) {
  AllPairsParams p;
  p.softening = 0.1;
  std::vector<Vec3> f;
  EXPECT_EQ(allPairsForces({}, {}, {}, p, f, 1).energy, 0.0);
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(allPairsForces({Vec3{1, 2, 3}}, {2.0}, {0}, p, f, 2).energy, 0.0);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0] == Vec3{});
  // Two bodies at distance 0.3 with softening 0.4: U = -G m1 m2 / 0.5, F = G m1 m2 0.3 / 0.5^3.
  p.softening = 0.4;
  const AllPairsResult r = allPairsForces({Vec3{0, 0, 0}, Vec3{0.3, 0, 0}}, {2.0, 3.0}, {0, 0}, p, f, 1);
  EXPECT_NEAR(r.energy, -6.0 / 0.5, tol::kDoubleSum * 12);
  EXPECT_NEAR(f[0].x, 6.0 * 0.3 / (0.5 * 0.5 * 0.5), tol::kDoubleSum * 15);  // towards the other body
  EXPECT_EQ(f[1].x, -f[0].x);
}

}  // namespace
}  // namespace faraday::test
