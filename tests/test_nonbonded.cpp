// Short-range forces on every backend: analytic two-particle LJ, forces as the negative
// energy gradient, thread-count independence, virial, dispersion correction.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/backends/Backend.h"
#include "core/Units.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"
#include "engine/backends/BackendFactory.h"

namespace faraday::test {
namespace {

class Nonbonded : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// Energy and forces of `b` at its positions on backend `config`.
Energies evaluate(const Config& config, const BuiltSystem& b, std::vector<Vec3>& forces, const std::vector<Vec3>& x) {
  auto backend = makeBackend(config, b.system, nullptr);
  State s = stateOf(b);
  s.positions = x;
  backend->setState(s, {});
  const Energies e = backend->computeForces();
  forces = backend->forces();
  return e;
}

/// Two particles of types A and B at distance r along a skew direction; compares with
/// 4 eps ((s/r)^12 - (s/r)^6) - shift, Lorentz-Berthelot mixed.
void checkTwoParticles(const std::string& platform, bool shift, double r) {
  BuiltSystem b;
  b.system.types = twoLjTypes();
  b.system.box = Box::rectangular(4, 4.5, 5);
  const Vec3 dir = Vec3{1, 2, -2} / 3.0;
  addParticle(b, 0, {3.9, 0.2, 4.9});  // near the faces: the pair crosses the boundary
  addParticle(b, 1, b.positions[0] + dir * r);
  const double cutoff = 1.0;
  std::vector<Vec3> f;
  const Energies e = evaluate(ljConfig(platform, cutoff, 0.1, shift), b, f, b.positions);
  const double sigma = 0.5 * (0.34 + 0.28), eps = std::sqrt(1.0 * 0.3);
  auto u = [&](double x) { return 4 * eps * (std::pow(sigma / x, 12) - std::pow(sigma / x, 6)); };
  const double expectE = r < cutoff ? u(r) - (shift ? u(cutoff) : 0.0) : 0.0;
  const double dudr = r < cutoff ? 4 * eps * (-12 * std::pow(sigma / r, 12) + 6 * std::pow(sigma / r, 6)) / r : 0.0;
  // On the GPU the float error is relative to the terms before they cancel (the repulsion
  // and the dispersion near the minimum, U(r) and the shift near the cutoff).
  const bool gpu = onGpu(platform);
  const double rel = gpu ? tol::kGpuPair : tol::kDoubleSum;
  const double s6 = std::pow(sigma / r, 6), s12 = s6 * s6;
  const double eScale = gpu ? 4 * eps * (s12 + s6) + std::fabs(u(cutoff)) : std::fabs(u(r));
  const double fScale = gpu ? 4 * eps * (12 * s12 + 6 * s6) / r : std::fabs(dudr);
  EXPECT_NEAR(e.lj, expectE, rel * eScale + 1e-300) << "r = " << r;
  // Particle 1 sits at x0 + r dir: F_1 = -dU/dr dir, F_0 = -F_1.
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(f[1][d], -dudr * dir[d], rel * fScale + 1e-300) << "r = " << r << " d " << d;
    EXPECT_EQ(f[0][d], -f[1][d]);
  }
  EXPECT_NEAR(e.virial.trace(), -dudr * r, rel * fScale * r + 1e-300);
}

TEST_P(Nonbonded, TwoParticleLjMatchesAnalyticWithShift) {
  for (double r : {0.27, 0.3, 0.35, 0.5, 0.99, 1.01}) checkTwoParticles(GetParam(), true, r);
}

TEST_P(Nonbonded, TwoParticleLjMatchesAnalyticWithoutShift) {
  for (double r : {0.27, 0.3, 0.35, 0.5, 0.99, 1.01}) checkTwoParticles(GetParam(), false, r);
}

/// F = -dE/dx by central differences, coordinate by coordinate, on a random LJ liquid.
TEST_P(Nonbonded, ForcesAreMinusEnergyGradient) {
  const BuiltSystem b = randomLjSystem(300, {2.6, 2.8, 3.0}, 11);
  const Config config = ljConfig(GetParam(), 1.0, 0.1, true);
  std::vector<Vec3> f, scratch;
  evaluate(config, b, f, b.positions);
  const bool gpu = onGpu(GetParam());
  const double h = gpu ? tol::kGpuFiniteDifferenceStep : tol::kLjFiniteDifferenceStep;
  const double allowed = gpu ? tol::kGpuFiniteDifferenceForce : tol::kLjFiniteDifferenceForce;
  double worst = 0;
  for (int i = 0; i < 300; i += 23) {
    for (int d = 0; d < 3; ++d) {
      std::vector<Vec3> x = b.positions;
      x[std::size_t(i)][d] += h;
      const double ePlus = evaluate(config, b, scratch, x).lj;
      x[std::size_t(i)][d] -= 2 * h;
      const double eMinus = evaluate(config, b, scratch, x).lj;
      const double fd = -(ePlus - eMinus) / (2 * h);
      const double err = std::fabs(fd - f[std::size_t(i)][d]) / std::max(1.0, std::fabs(fd));
      worst = std::max(worst, err);
      EXPECT_LE(err, allowed) << "particle " << i << " dim " << d << " F " << f[i][d]
                                                  << " -dE/dx " << fd;
    }
  }
  std::printf("[ info ] worst relative |F + dE/dx| = %.3g\n", worst);
}

TEST_P(Nonbonded, ForcesBitwiseIndependentOfThreadCount) {
  const BuiltSystem b = randomLjSystem(1000, {3.3, 3.5, 3.7}, 5);
  Config one = ljConfig(GetParam()), two = ljConfig(GetParam());
  one.run.threads = 1;
  two.run.threads = 2;
  std::vector<Vec3> f1, f2;
  const Energies e1 = evaluate(one, b, f1, b.positions), e2 = evaluate(two, b, f2, b.positions);
  ASSERT_EQ(f1.size(), f2.size());
  for (std::size_t i = 0; i < f1.size(); ++i) ASSERT_TRUE(f1[i] == f2[i]) << "particle " << i;
  EXPECT_EQ(e1.lj, e2.lj);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(e1.virial.m[r][c], e2.virial.m[r][c]);
}

/// Energy, forces and virial against a direct O(N^2) minimum-image sum over pairs.
TEST_P(Nonbonded, MatchesDirectPairSum) {
  const BuiltSystem b = randomLjSystem(400, {2.5, 3.0, 3.5}, 3);
  const Config config = ljConfig(GetParam(), 1.1, 0.15, true);
  std::vector<Vec3> f;
  const Energies e = evaluate(config, b, f, b.positions);
  const LjTable table = makeLjTable(b.system, 1.1, true);
  double energy = 0;
  Tensor3 w;
  std::vector<Vec3> direct(b.positions.size());
  for (std::size_t i = 0; i < b.positions.size(); ++i)
    for (std::size_t j = i + 1; j < b.positions.size(); ++j) {
      const Vec3 d = b.system.box.minimumImage(b.positions[i] - b.positions[j]);
      if (norm2(d) >= 1.1 * 1.1) continue;
      const PairResult<double> p = ljPair(norm2(d), table.at(b.system.type[i], b.system.type[j]));
      energy += p.energy;
      direct[i] += d * p.fOverR;
      direct[j] -= d * p.fOverR;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) w.m[r][c] += p.fOverR * d[r] * d[c];
    }
  if (onGpu(GetParam())) {
    EXPECT_NEAR(e.lj, energy, tol::kGpuEnergyRel * std::fabs(energy));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(e.virial.m[r][c], w.m[r][c], tol::kGpuEnergyRel * std::fabs(w.trace()));
    double num = 0, den = 0;
    for (std::size_t i = 0; i < f.size(); ++i) num += norm2(f[i] - direct[i]), den += norm2(direct[i]);
    EXPECT_LT(std::sqrt(num / den), tol::kGpuForceRelRms);
    return;
  }
  EXPECT_NEAR(e.lj, energy, tol::kDoubleSum * std::fabs(energy));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(e.virial.m[r][c], w.m[r][c], tol::kDoubleSum * std::fabs(w.trace()));
  for (std::size_t i = 0; i < f.size(); ++i)
    for (int d = 0; d < 3; ++d) ASSERT_NEAR(f[i][d], direct[i][d], tol::kDoubleSum * (1 + std::fabs(direct[i][d])));
}

/// With the tail correction, the LJ energy of a fluid with g(r) = 1 beyond 1 nm (random
/// positions) does not depend on the cutoff: E(1.0) + tail(1.0) = E(1.4) + tail(1.4) up to
/// the Poisson fluctuation of the pair sum in the 1.0..1.4 nm shell, sqrt(sum u^2).
TEST_P(Nonbonded, TailCorrectedEnergyIsIndependentOfCutoff) {
  const BuiltSystem b = randomLjSystem(650, {3.1, 3.1, 3.1}, 17);
  std::vector<Vec3> f;
  Config shortCut = ljConfig(GetParam(), 1.0, 0.1, false), longCut = ljConfig(GetParam(), 1.4, 0.1, false);
  shortCut.nonbonded.dispersionCorrection = longCut.nonbonded.dispersionCorrection = true;
  const Energies es = evaluate(shortCut, b, f, b.positions), el = evaluate(longCut, b, f, b.positions);
  const LjTable table = makeLjTable(b.system, 1.4, false);
  double shellU2 = 0;
  for (std::size_t i = 0; i < b.positions.size(); ++i)
    for (std::size_t j = i + 1; j < b.positions.size(); ++j) {
      const double r2 = norm2(b.system.box.minimumImage(b.positions[i] - b.positions[j]));
      if (r2 >= 1.0 && r2 < 1.96) shellU2 += std::pow(ljPair(r2, table.at(b.system.type[i], b.system.type[j])).energy, 2);
    }
  const double sigma = std::sqrt(shellU2);
  std::printf("[ info ] E+tail at rc 1.0: %.4f, at rc 1.4: %.4f kJ/mol (tails %.3f, %.3f; sigma %.3f)\n",
              es.potential(), el.potential(), es.dispersionCorrection, el.dispersionCorrection, sigma);
  EXPECT_NEAR(es.potential(), el.potential(), tol::kStatisticalSigmas * sigma);
  EXPECT_GT(std::fabs(es.dispersionCorrection - el.dispersionCorrection), 10 * tol::kStatisticalSigmas * sigma);
}

INSTANTIATE_TEST_SUITE_P(Backends, Nonbonded, ::testing::ValuesIn(kBackendNames), backendTestName);

/// <C6> from the type counts equals the average over all distinct particle pairs; the
/// tail virial is 6x the tail energy (r.F = -6 C6/r^6); the shift doubles the energy.
TEST(DispersionCorrection, AveragesC6OverPairsAndMatchesTailIntegrals) {
  const BuiltSystem b = randomLjSystem(60, {3, 3, 3}, 9);
  const double rc = 1.0, V = b.system.box.volume(), n = 60;
  const LjTable table = makeLjTable(b.system, rc, false);
  double sum = 0;
  for (int i = 0; i < 60; ++i)
    for (int j = i + 1; j < 60; ++j) sum += table.at(b.system.type[i], b.system.type[j]).c6;
  const double avg = sum / (0.5 * n * (n - 1));
  const DispersionCorrection plain = dispersionCorrection(b.system, rc, false, V);
  const DispersionCorrection shifted = dispersionCorrection(b.system, rc, true, V);
  const double tail = -(2.0 / 3.0) * units::kPi * n * n / V * avg / (rc * rc * rc);
  EXPECT_NEAR(plain.energy, tail, tol::kDoubleSum * std::fabs(tail));
  EXPECT_NEAR(shifted.energy, 2 * tail, tol::kDoubleSum * std::fabs(tail));
  EXPECT_NEAR(3 * plain.virialDiagonal, 6 * tail, tol::kDoubleSum * std::fabs(tail));
  EXPECT_EQ(shifted.virialDiagonal, plain.virialDiagonal);
}

}  // namespace
}  // namespace faraday::test
