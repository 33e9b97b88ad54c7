// The constraint solvers on the CPU (the reference of the GPU's): SETTLE exact to rounding and
// equal to SHAKE's solution of the same triangle, the velocity constraints, the constraint
// virial against the rigid-body identity, the clusters a ConstraintSet makes, the degrees of
// freedom, and the errors of a bad constraint topology.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "integrators/Constraints.h"
#include "integrators/Integrator.h"
#include "tests/ConstraintTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// One water at `origin` (nm) with a random orientation, and a second configuration: each atom
/// moved by up to `jolt` nm at random (an unconstrained step).
struct WaterStep {
  Vec3 old[3], now[3];
};

WaterStep randomWaterStep(std::mt19937_64& rng, Vec3 origin, double jolt) {
  double r[3][3];
  detail::randomRotation(rng, r);
  const double hh = std::sqrt(kWaterOH * kWaterOH - 0.25 * kWaterHH * kWaterHH);
  const Vec3 local[3] = {{0, 0, 0}, {-0.5 * kWaterHH, -hh, 0}, {0.5 * kWaterHH, -hh, 0}};
  std::uniform_real_distribution<double> u(-jolt, jolt);
  WaterStep w;
  for (int k = 0; k < 3; ++k) {
    const Vec3& l = local[k];
    w.old[k] = origin + Vec3{r[0][0] * l.x + r[0][1] * l.y + r[0][2] * l.z, r[1][0] * l.x + r[1][1] * l.y + r[1][2] * l.z,
                             r[2][0] * l.x + r[2][1] * l.y + r[2][2] * l.z};
    w.now[k] = w.old[k] + Vec3{u(rng), u(rng), u(rng)};
  }
  return w;
}

/// SETTLE puts the three distances at their lengths to rounding, moves the atoms with zero
/// total momentum, and the constraint forces (m delta) have no torque about the old positions:
/// they are forces along the old bonds, as SHAKE's are.
TEST(Settle, IsExactToRoundingAndConservesMomentumAndAngularMomentum) {
  const SettleGeometry g = settleGeometry(15.9994, 1.008, kWaterOH, kWaterHH);
  const double m[3] = {15.9994, 1.008, 1.008};
  std::mt19937_64 rng(11);
  double worstLength = 0, worstMomentum = 0, worstTorque = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const WaterStep w = randomWaterStep(rng, Vec3{5.3, -2.1, 7.7}, 0.01);
    Vec3 d[3];
    ASSERT_TRUE(settlePositions(g, w.old[1] - w.old[0], w.old[2] - w.old[0], w.now[1] - w.now[0], w.now[2] - w.now[0], d));
    Vec3 x[3], p{}, torque{};
    for (int k = 0; k < 3; ++k) {
      x[k] = w.now[k] + d[k];
      p += d[k] * m[k];
      torque += cross(w.old[k] - w.old[0], d[k] * m[k]);
    }
    worstLength = std::max({worstLength, std::fabs(std::sqrt(norm2(x[1] - x[0])) - kWaterOH) / kWaterOH,
                            std::fabs(std::sqrt(norm2(x[2] - x[0])) - kWaterOH) / kWaterOH,
                            std::fabs(std::sqrt(norm2(x[2] - x[1])) - kWaterHH) / kWaterHH});
    const double scale = m[0] * std::sqrt(norm2(d[0])) + m[1] * std::sqrt(norm2(d[1])) + m[2] * std::sqrt(norm2(d[2]));
    worstMomentum = std::max(worstMomentum, std::sqrt(norm2(p)) / scale);
    worstTorque = std::max(worstTorque, std::sqrt(norm2(torque)) / (scale * kWaterOH));
  }
  std::printf("[ info ] SETTLE over 2000 random steps: length %.2g, momentum %.2g, torque %.2g (relative)\n",
              worstLength, worstMomentum, worstTorque);
  EXPECT_LT(worstLength, tol::kSettleExact);
  EXPECT_LT(worstMomentum, tol::kSettleExact);
  EXPECT_LT(worstTorque, tol::kSettleExact);
}

/// A water whose step turned it too far has no rigid solution: SETTLE says so.
TEST(Settle, RefusesAStepWithoutSolution) {
  const SettleGeometry g = settleGeometry(15.9994, 1.008, kWaterOH, kWaterHH);
  const Vec3 b0{-0.08165, -0.057735, 0}, c0{0.08165, -0.057735, 0};
  Vec3 d[3];
  EXPECT_FALSE(settlePositions(g, b0, c0, b0 + Vec3{0, 0, 0.5}, c0 + Vec3{0, 0, -0.5}, d));
}

/// SETTLE is the exact solution of SHAKE's equations (positions moved along the old bond
/// vectors): SHAKE sweeps on the same triangle, converged to 1e-14, land on the same positions.
TEST(Settle, EqualsShakeConvergedOnTheSameTriangle) {
  const double masses[3] = {15.9994, 1.008, 1.008}, w[3] = {1 / masses[0], 1 / masses[1], 1 / masses[2]};
  const SettleGeometry g = settleGeometry(masses[0], masses[1], kWaterOH, kWaterHH);
  const ClusterConstraint k[3] = {{0, 1, kWaterOH * kWaterOH}, {0, 2, kWaterOH * kWaterOH}, {1, 2, kWaterHH * kWaterHH}};
  const MinimumImage box = MinimumImage::fromBox(Box::rectangular(10, 10, 10));
  std::mt19937_64 rng(5);
  double worst = 0;
  int sweeps = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const WaterStep s = randomWaterStep(rng, Vec3{0.1, 0.2, 0.3}, 0.005);
    Vec3 d[3];
    ASSERT_TRUE(settlePositions(g, s.old[1] - s.old[0], s.old[2] - s.old[0], s.now[1] - s.now[0], s.now[2] - s.now[0], d));
    struct Triangle {
      const ClusterConstraint* k;
      const double* inverse;
      Vec3 x_[3], r0_[3];
      int count() const { return 3; }
      int a(int i) const { return k[i].a; }
      int b(int i) const { return k[i].b; }
      double d2(int i) const { return k[i].d2; }
      Vec3 r0(int i) const { return r0_[i]; }
      double w(int atom) const { return inverse[atom]; }
      Vec3& x(int atom) { return x_[atom]; }
    } t{k, w, {s.now[0], s.now[1], s.now[2]}, {s.old[0] - s.old[1], s.old[0] - s.old[2], s.old[1] - s.old[2]}};
    const ClusterSolve solve = shakeCluster<0>(t, box, 1e-14, kMaxConstraintSweeps);
    ASSERT_EQ(solve.failed, -1);
    sweeps = std::max(sweeps, solve.sweeps);
    for (int a = 0; a < 3; ++a) worst = std::max(worst, std::sqrt(norm2(t.x_[a] - (s.now[a] + d[a]))));
  }
  std::printf("[ info ] SETTLE against SHAKE to 1e-14: largest difference %.2g nm (SHAKE: up to %d sweeps)\n", worst,
              sweeps);
  EXPECT_LT(worst, tol::kSettleAgainstShake);
}

/// The velocity constraint of a water and of every cluster kind: afterwards no bond changes
/// its length (r . v_ab = 0), and the momentum is kept.
TEST(Constraints, VelocityConstraintsRemoveEveryBondComponent) {
  const BuiltSystem b = moleculeLiquid({20, 20, 20, 20, 20}, 0.6, 3);
  CpuConstraints c(b.system, 1e-10, 1);
  std::vector<Vec3> v(b.system.size());
  std::mt19937_64 rng(9);
  std::normal_distribution<double> n(0, 1);
  Vec3 before{};
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = Vec3{n(rng), n(rng), n(rng)}, before += v[i] * b.system.mass[i];
  c.constrainVelocities(b.positions, v, b.system.box, 0.002, 0);
  Vec3 after{};
  for (std::size_t i = 0; i < v.size(); ++i) after += v[i] * b.system.mass[i];
  double worst = 0;
  const auto check = [&](int i, int j) {
    const Vec3 r = b.system.box.minimumImage(b.positions[std::size_t(i)] - b.positions[std::size_t(j)]);
    worst = std::max(worst, std::fabs(dot(r, v[std::size_t(i)] - v[std::size_t(j)])) * 0.002 / norm2(r));
  };
  for (const Constraint& k : b.system.topology.constraints) check(k.i, k.j);
  for (const Settle& w : b.system.topology.settles) check(w.oxygen, w.oxygen + 1), check(w.oxygen, w.oxygen + 2),
                                                     check(w.oxygen + 1, w.oxygen + 2);
  EXPECT_LT(worst, 1e-10);
  EXPECT_LT(std::sqrt(norm2(after - before)), 1e-12 * double(v.size()));
}

/// The virial of the constraint forces of freely rotating rigid bodies (no other forces):
/// d^2/dt^2 sum m |x - X|^2 = 0 gives trace W = -2 K_rot, exactly, for the waters (SETTLE's
/// 3 x 3 solve), the diatomics (stars) and the rigid triangles (general clusters).
TEST(Constraints, VirialOfRigidBodiesIsMinusTwiceTheirRotationalEnergy) {
  const BuiltSystem b = moleculeLiquid({30, 30, 0, 0, 30}, 0.6, 4, false);
  CpuConstraints c(b.system, 1e-12, 1);
  State s = stateOf(b);
  s.velocities = maxwellBoltzmannVelocities(b.system, 300, 8, IntegratorType::Langevin);
  c.constrainVelocities(s.positions, s.velocities, s.box, 0.002, 0);
  double rotational = 0;
  for (const Molecule& m : b.system.topology.molecules) {
    Vec3 p{};
    double mass = 0;
    for (int i = m.first; i < m.first + m.count; ++i) p += s.velocities[std::size_t(i)] * b.system.mass[std::size_t(i)], mass += b.system.mass[std::size_t(i)];
    for (int i = m.first; i < m.first + m.count; ++i)
      rotational += 0.5 * b.system.mass[std::size_t(i)] * norm2(s.velocities[std::size_t(i)] - p / mass);
  }
  const Tensor3 w = c.virial(s.positions, s.velocities, std::vector<Vec3>(b.system.size()), s.box, 0.002);
  std::printf("[ info ] constraint virial trace %.10g, -2 K_rot %.10g kJ/mol\n", w.trace(), -2 * rotational);
  EXPECT_NEAR(w.trace(), -2 * rotational, tol::kConstraintVirialIdentity * 2 * rotational);
}

/// Waters become SETTLE waters, stars are found (one centre in every constraint, written
/// centre first), the rest are general clusters; the counts give the degrees of freedom.
TEST(ConstraintSet, GroupsWatersStarsAndGeneralClusters) {
  const BuiltSystem b = moleculeLiquid({3, 2, 2, 2, 2}, 0.6, 1);
  const ConstraintSet set = makeConstraintSet(b.system);
  EXPECT_EQ(set.waters.size(), 3u);
  EXPECT_EQ(set.geometries.size(), 1u);
  ASSERT_EQ(set.clusters.size(), 8u);
  int stars = 0;
  for (const ConstraintCluster& c : set.clusters) {
    stars += c.star;
    if (!c.star) continue;
    const int centre = set.clusterAtoms[std::size_t(c.firstAtom)];
    for (int k = 0; k < c.constraintCount; ++k) EXPECT_EQ(set.constraints[std::size_t(c.firstConstraint + k)].a, centre);
  }
  EXPECT_EQ(stars, 4);  // dimers and methyls; chains and triangles are general
  const double n = double(b.system.size()), removed = 3 * 3 + 2 * 1 + 2 * 3 + 2 * 3 + 2 * 3;
  EXPECT_EQ(degreesOfFreedom(b.system, IntegratorType::Verlet), 3 * n - removed - 3);
  EXPECT_EQ(degreesOfFreedom(b.system, IntegratorType::Langevin), 3 * n - removed);
  EXPECT_EQ(CpuConstraints(b.system, 1e-6, 1).removedDegreesOfFreedom(), (long long)removed);
}

TEST(ConstraintSet, RefusesOverlapsDuplicatesAndBadLengthsNamingTheAtoms) {
  const auto errorWith = [](auto change) {
    BuiltSystem b = moleculeLiquid({2, 2, 0, 0, 0}, 0.6, 1);
    change(b.system.topology);
    return errorOf([&] { makeConstraintSet(b.system); });
  };
  EXPECT_NE(errorWith([](Topology& t) { t.constraints.push_back({0, 7, 0.1}); }).find("is in a rigid [settles] water too"),
            std::string::npos);
  EXPECT_NE(errorWith([](Topology& t) { t.constraints.push_back({7, 6, 0.11}); }).find("are constrained twice"),
            std::string::npos);
  EXPECT_NE(errorWith([](Topology& t) { t.constraints.push_back({6, 6, 0.11}); }).find("two different atoms"),
            std::string::npos);
  EXPECT_NE(errorWith([](Topology& t) { t.constraints[0].length = 0; }).find("must be > 0"), std::string::npos);
  EXPECT_NE(errorWith([](Topology& t) { t.settles.push_back({1, 0.1, 0.1633}); }).find("in another water"),
            std::string::npos);
  EXPECT_NE(errorWith([](Topology& t) { t.settles[0].dHH = 0.3; }).find("make no triangle"), std::string::npos);
}

/// A step the constraints cannot follow stops with the step and the atoms named.
TEST(Constraints, AFailedSolveNamesTheStepAndTheAtoms) {
  const BuiltSystem b = moleculeLiquid({0, 1, 0, 0, 0}, 0.6, 1);
  CpuConstraints c(b.system, 1e-6, 1);
  std::vector<Vec3> x = b.positions;
  x[1] = x[0] + (x[0] - x[1]) * 1.5;  // the bond turned over and stretched in one step
  const std::string e = errorOf([&] { c.constrainPositions(b.positions, x, nullptr, 0.002, b.system.box, 41); });
  EXPECT_NE(e.find("constraints failed at step 41: the positions of atoms 0 (N, N2 1) and 1 (N, N2 1)"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace faraday::test
