// The plain Ewald sum (EwaldSum), the double-precision reference for PME: Madelung
// constants of ionic crystals, beta independence of the total energy (with and without
// net charge), forces against finite differences, momentum conservation and the virial.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/config/Config.h"
#include "engine/config/KernelParams.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/Ewald.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::Ions;

/// Madelung constants per ion pair in units of k_C q^2 / r0 (r0 the nearest-neighbour
/// distance): rock salt and CsCl structures (e.g. Kittel, Introduction to Solid State Physics).
constexpr double kRockSaltMadelung = 1.747564594633;
constexpr double kCesiumChlorideMadelung = 1.762675;

// Tight settings: erfc(beta rc) = 1e-12 and k-space terms down to 1e-14.
TEST(EwaldSum, RockSaltMadelungConstant) {
  const double a = 0.5640;  // NaCl lattice constant, nm
  const Ions s = test::rockSalt(3, a);
  const double rc = 0.84, beta = ewaldBetaFromRtol(rc, 1e-12);
  EwaldSum ewald(beta, 1e-14, 2);
  const double m = test::madelungConstant(s, ewald, beta, rc, a / 2);
  EXPECT_NEAR(m / kRockSaltMadelung, 1.0, tol::kMadelung) << "M = " << m;
}

TEST(EwaldSum, CesiumChlorideMadelungConstant) {
  const double a = 0.4123;  // CsCl lattice constant, nm
  const Ions s = test::cesiumChloride(4, a);
  const double rc = 0.82, beta = ewaldBetaFromRtol(rc, 1e-12);
  EwaldSum ewald(beta, 1e-14, 2);
  const double m = test::madelungConstant(s, ewald, beta, rc, a * std::sqrt(3.0) / 2);
  EXPECT_NEAR(m / kCesiumChlorideMadelung, 1.0, tol::kMadelung) << "M = " << m;
}

/// Total energies at three cutoffs (beta from the same rtol 1e-8), with and without
/// the net-charge term.
struct BetaScan {
  double minEnergy = 1e300, maxEnergy = -1e300;
  double minUncorrected = 1e300, maxUncorrected = -1e300;
};

BetaScan scanBeta(const Ions& s) {
  BetaScan scan;
  double q = 0;
  for (double c : s.charges) q += c;
  for (double rc : {0.9, 1.05, 1.2}) {
    const double beta = ewaldBetaFromRtol(rc, 1e-8);
    EwaldSum ewald(beta, 1e-12, 2);
    const double e = test::totalElectrostatics(s, ewald, beta, rc).energy;
    const double uncorrected = e - ewaldNetChargeEnergy(beta, q, s.box.volume());
    scan.minEnergy = std::fmin(scan.minEnergy, e);
    scan.maxEnergy = std::fmax(scan.maxEnergy, e);
    scan.minUncorrected = std::fmin(scan.minUncorrected, uncorrected);
    scan.maxUncorrected = std::fmax(scan.maxUncorrected, uncorrected);
  }
  return scan;
}

TEST(EwaldSum, TotalEnergyIndependentOfBetaNeutral) {
  const Ions s = test::randomIons(500, test::meltEdge(500), 11);
  const BetaScan scan = scanBeta(s);
  EXPECT_LT((scan.maxEnergy - scan.minEnergy) / std::fabs(scan.minEnergy), tol::kEnergyBetaIndependence);
}

TEST(EwaldSum, TotalEnergyIndependentOfBetaWithNetCharge) {
  const Ions s = test::randomIons(500, test::meltEdge(500), 12, 0.18, 10.0);  // net +10 e
  const BetaScan scan = scanBeta(s);
  EXPECT_LT((scan.maxEnergy - scan.minEnergy) / std::fabs(scan.minEnergy), tol::kEnergyBetaIndependence);
  // Without the neutralising-background term the energy does depend on beta: the check
  // above can fail.
  EXPECT_GT((scan.maxUncorrected - scan.minUncorrected) / std::fabs(scan.minEnergy),
            10 * tol::kEnergyBetaIndependence);
}

TEST(EwaldSum, ForcesAreMinusEnergyGradient) {
  const Ions s = test::randomIons(300, test::meltEdge(300), 13);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-8);
  EwaldSum ewald(beta, 1e-12, 2);
  const auto ref = test::totalElectrostatics(s, ewald, beta, rc);
  const double fScale = test::rms(ref.forces);
  const double h = 1e-5;  // nm
  for (int i : {0, 7, 150, 299}) {
    for (int d = 0; d < 3; ++d) {
      Ions plus = s, minus = s;
      plus.positions[i][d] += h;
      minus.positions[i][d] -= h;
      const double ep = test::totalElectrostatics(plus, ewald, beta, rc).energy;
      const double em = test::totalElectrostatics(minus, ewald, beta, rc).energy;
      const double fd = -(ep - em) / (2 * h);
      EXPECT_NEAR(ref.forces[i][d], fd, tol::kFiniteDifferenceElectrostaticForce * fScale) << "atom " << i << " dim " << d;
    }
  }
}

TEST(EwaldSum, ReciprocalForcesSumToZero) {
  const Ions s = test::randomIons(400, test::meltEdge(400), 14);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
  EwaldSum ewald(beta, 1e-8, 2);
  const auto r = test::totalElectrostatics(s, ewald, beta, rc);
  Vec3 sum;
  for (const Vec3& f : r.recipForces) sum += f;
  EXPECT_LT(std::sqrt(norm2(sum)), tol::kEwaldNetForce * std::sqrt(400.0) * test::rms(r.forces));
}

TEST(EwaldSum, VirialTraceEqualsEnergyAndMatchesStrainDerivative) {
  const Ions s = test::randomIons(300, test::meltEdge(300), 15);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-10);
  EwaldSum ewald(beta, 1e-13, 2);
  const auto r = test::totalElectrostatics(s, ewald, beta, rc);
  // Coulomb energy is homogeneous of degree -1 in the length scale: trace W = E.
  EXPECT_NEAR(r.virial.trace() / r.energy, 1.0, tol::kVirialTrace);
  double wNorm = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) wNorm += r.recipVirial.m[a][b] * r.recipVirial.m[a][b];
  wNorm = std::sqrt(wNorm);
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(r.recipVirial.m[a][a], test::strainVirial(s, ewald, a, 1e-6), tol::kFiniteDifferenceVirial * wNorm)
        << "axis " << a;
  EXPECT_DOUBLE_EQ(r.recipVirial.m[0][1], r.recipVirial.m[1][0]);
}

/// method = ewald is the reference: at its default k-space cut (from ewald_rtol) the
/// reciprocal energy of a NaCl-melt-like system is converged to 1e-8 of itself, against a
/// sum with terms down to exp(-pi^2 m^2/beta^2) = 1e-30. (A cut at exp(...) = ewald_rtol
/// leaves 3e-6 at rtol 1e-5, 5e-4 at 1e-3.)
TEST(EwaldSum, DefaultKspaceCutConvergesTheReciprocalEnergy) {
  const Ions s = test::randomIons(500, test::meltEdge(500), 17);
  for (double rtol : {1e-5, 1e-3}) {
    Config config;
    config.electrostatics.method = ElectrostaticsMethod::Ewald;
    config.electrostatics.ewaldRtol = rtol;
    const EwaldSetup setup = chooseEwaldSetup(config, s.box);
    std::vector<Vec3> f(s.positions.size());
    EwaldSum reference(setup.beta, 1e-30, 2), byDefault(setup.beta, setup.kspaceRtol, 2), atRtol(setup.beta, rtol, 2);
    const double ref = reference.compute(s.positions, s.charges, s.box, f, nullptr).energy;
    const double def = byDefault.compute(s.positions, s.charges, s.box, f, nullptr).energy;
    const double old = atRtol.compute(s.positions, s.charges, s.box, f, nullptr).energy;
    std::printf("[ info ] ewald_rtol %.0e: reciprocal %.10g kJ/mol (self %.6g); relative error at the default cut "
                "(%zu k vectors) %.2e, at exp(...) = ewald_rtol (%zu) %.2e\n",
                rtol, ref, ewaldSelfEnergy(setup.beta, s.charges), byDefault.numVectors(s.box), std::fabs(def / ref - 1),
                atRtol.numVectors(s.box), std::fabs(old / ref - 1));
    EXPECT_LT(std::fabs(def / ref - 1), tol::kEwaldReferenceConverged) << "ewald_rtol " << rtol;
    EXPECT_GT(std::fabs(old / ref - 1), tol::kEwaldReferenceConverged);  // the check can tell
  }
}

TEST(EwaldSum, ZeroChargeAtomsAreInert) {
  Ions s = test::randomIons(200, test::meltEdge(200), 16);
  const double rc = 0.9, beta = ewaldBetaFromRtol(rc, 1e-5);
  EwaldSum ewald(beta, 1e-6, 2);
  std::vector<Vec3> f0(s.positions.size());
  const double e0 = ewald.compute(s.positions, s.charges, s.box, f0, nullptr).energy;
  Ions t = s;
  t.positions.push_back({0.3, 0.4, 0.5});
  t.charges.push_back(0.0);
  std::vector<Vec3> f1(t.positions.size());
  const double e1 = ewald.compute(t.positions, t.charges, t.box, f1, nullptr).energy;
  EXPECT_EQ(e0, e1);
  EXPECT_EQ(f1.back(), Vec3{});
  for (std::size_t i = 0; i < f0.size(); ++i) EXPECT_EQ(f0[i], f1[i]);
}

}  // namespace
}  // namespace faraday
