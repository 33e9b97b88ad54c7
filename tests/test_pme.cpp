// CPU smooth PME (CpuPme) against the plain Ewald sum: force error versus the requested
// tolerance, convergence with order and grid, beta independence, net force, determinism
// across thread counts. Madelung constants, finite differences and the virial run over
// every backend in test_pme_physics.cpp.
//
// Force error: eps_F = RMS |F_PME,rec - F_Ewald,rec| / RMS |F_elec| with F_elec the total
// (real + reciprocal) electrostatic force. "Requested tolerance" is ewald_rtol =
// erfc(beta rc), the relative size of the real-space truncation. Claim: eps_F < 2 rtol when
// the grid spacing comes from pmeSpacingForRtol(beta, order, rtol).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "engine/config/Config.h"
#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/Ewald.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::Ions;

/// eps_F of PME with (order, spacing) against the Ewald reference `ref` for beta.
double forceError(const Ions& s, const test::Electrostatics& ref, double beta, double rc, int order, double spacing) {
  CpuPme pme(test::pmeParams(beta, order, spacing, s.box), 2);
  const auto r = test::totalElectrostatics(s, pme, beta, rc);
  return test::relativeRmsDifference(r.recipForces, ref.recipForces, ref.forces);
}

TEST(CpuPme, ForceErrorBelowTwiceRtolAtRuleSpacing) {
  const Ions s = test::randomIons(600, test::meltEdge(600), 21);
  for (double rtol : {1e-3, 1e-4, 1e-5}) {
    for (double rc : {0.8, 1.0, 1.2}) {
      const double beta = ewaldBetaFromRtol(rc, rtol);
      EwaldSum ewald(beta, 1e-12, 2);
      const auto ref = test::totalElectrostatics(s, ewald, beta, rc);
      for (int order : {4, 5, 6, 8}) {
        const double h = pmeSpacingForRtol(beta, order, rtol);
        const double err = forceError(s, ref, beta, rc, order, h);
        EXPECT_LT(err, tol::kPmeForceErrorOverRtol * rtol)
            << "rtol " << rtol << " rc " << rc << " order " << order << " spacing " << h;
        std::printf("  rtol %.0e rc %.1f order %d spacing %.4f nm: eps_F = %.2e (%.2f rtol)\n", rtol, rc, order, h,
                    err, err / rtol);
      }
    }
  }
}

TEST(CpuPme, ForceErrorFallsAsOrderAndGridGrow) {
  const Ions s = test::randomIons(600, test::meltEdge(600), 22);
  const double rc = 1.0, rtol = 1e-5, beta = ewaldBetaFromRtol(rc, rtol);
  EwaldSum ewald(beta, 1e-12, 2);
  const auto ref = test::totalElectrostatics(s, ewald, beta, rc);
  double previous = 1e300;
  for (int order = 4; order <= 8; ++order) {
    const double err = forceError(s, ref, beta, rc, order, 0.12);
    std::printf("  spacing 0.12 nm, order %d: eps_F = %.2e (%.1f rtol)\n", order, err, err / rtol);
    EXPECT_LT(err, previous) << "order " << order;
    previous = err;
  }
  previous = 1e300;
  for (double h : {0.12, 0.10, 0.08, 0.06}) {
    const double err = forceError(s, ref, beta, rc, 4, h);
    std::printf("  order 4, spacing %.2f nm: eps_F = %.2e (%.1f rtol)\n", h, err, err / rtol);
    EXPECT_LT(err, previous) << "spacing " << h;
    previous = err;
  }
}

TEST(CpuPme, MatchesEwaldAtTightSettings) {
  const Ions s = test::randomIons(400, test::meltEdge(400), 23);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-6);
  EwaldSum ewald(beta, 1e-13, 2);
  CpuPme pme(test::pmeParams(beta, 8, 0.15 / beta, s.box), 2);
  const auto ref = test::totalElectrostatics(s, ewald, beta, rc);
  const auto r = test::totalElectrostatics(s, pme, beta, rc);
  EXPECT_NEAR(r.recip / ref.recip, 1.0, tol::kPmeTightVsEwald);
  EXPECT_LT(test::relativeRmsDifference(r.recipForces, ref.recipForces, ref.recipForces), tol::kPmeTightVsEwald);
  double wNorm = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) wNorm += ref.recipVirial.m[a][b] * ref.recipVirial.m[a][b];
  wNorm = std::sqrt(wNorm);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(r.recipVirial.m[a][b], ref.recipVirial.m[a][b], tol::kPmeTightVsEwald * wNorm) << a << b;
}

/// Spread of the total energy over three cutoffs at fixed rtol 1e-8 with tight PME.
double betaSpread(const Ions& s) {
  double lo = 1e300, hi = -1e300;
  for (double rc : {0.9, 1.05, 1.2}) {
    const double beta = ewaldBetaFromRtol(rc, 1e-8);
    CpuPme pme(test::pmeParams(beta, 8, pmeSpacingForRtol(beta, 8, 1e-8), s.box), 2);
    const double e = test::totalElectrostatics(s, pme, beta, rc).energy;
    lo = std::fmin(lo, e);
    hi = std::fmax(hi, e);
  }
  return (hi - lo) / std::fabs(lo);
}

TEST(CpuPme, TotalEnergyIndependentOfBetaNeutral) {
  EXPECT_LT(betaSpread(test::randomIons(500, test::meltEdge(500), 24)), tol::kEnergyBetaIndependence);
}

TEST(CpuPme, TotalEnergyIndependentOfBetaWithNetCharge) {
  EXPECT_LT(betaSpread(test::randomIons(500, test::meltEdge(500), 25, 0.18, 10.0)), tol::kEnergyBetaIndependence);
}

TEST(CpuPme, NetForceWithinErrorBudget) {
  const Ions s = test::randomIons(600, test::meltEdge(600), 27);
  for (int order : {4, 6}) {
    const double rc = 1.0, rtol = 1e-4, beta = ewaldBetaFromRtol(rc, rtol);
    CpuPme pme(test::pmeParams(beta, order, pmeSpacingForRtol(beta, order, rtol), s.box), 2);
    const auto r = test::totalElectrostatics(s, pme, beta, rc);
    Vec3 sum;
    for (const Vec3& f : r.forces) sum += f;
    const double rel = std::sqrt(norm2(sum)) / (std::sqrt(600.0) * test::rms(r.forces));
    EXPECT_LT(rel, tol::kPmeNetForceOverRtol * rtol) << "order " << order;
  }
}

TEST(CpuPme, BitIdenticalForOneAndTwoThreads) {
  const Ions s = test::randomIons(800, test::meltEdge(800), 29);
  const double beta = ewaldBetaFromRtol(1.0, 1e-5);
  // The FFTs' planes and lines are shared out over the two threads of `two`.
  const PmeParams p = test::pmeParams(beta, 5, 0.05, s.box);
  CpuPme one(p, 1), two(p, 2);
  ASSERT_EQ(two.fftThreads(), 2);
  std::vector<Vec3> f1(s.positions.size()), f2(s.positions.size());
  const ReciprocalResult r1 = one.compute(s.positions, s.charges, s.box, f1, nullptr);
  const ReciprocalResult r2 = two.compute(s.positions, s.charges, s.box, f2, nullptr);
  EXPECT_EQ(r1.energy, r2.energy);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_EQ(r1.virial.m[a][b], r2.virial.m[a][b]);
  for (std::size_t i = 0; i < f1.size(); ++i) ASSERT_EQ(f1[i], f2[i]) << "atom " << i;
}

TEST(CpuPme, ZeroChargeAtomsAreSkipped) {
  const Ions s = test::randomIons(200, test::meltEdge(200), 30);
  const double beta = ewaldBetaFromRtol(0.9, 1e-5);
  CpuPme pme(test::pmeParams(beta, 4, 0.1, s.box), 2);
  std::vector<Vec3> f0(s.positions.size());
  const double e0 = pme.compute(s.positions, s.charges, s.box, f0, nullptr).energy;
  Ions t = s;
  t.positions.insert(t.positions.begin() + 50, Vec3{0.3, 0.4, 0.5});
  t.charges.insert(t.charges.begin() + 50, 0.0);
  std::vector<Vec3> f1(t.positions.size());
  const double e1 = pme.compute(t.positions, t.charges, t.box, f1, nullptr).energy;
  EXPECT_EQ(e0, e1);
  EXPECT_EQ(f1[50], Vec3{});
  for (std::size_t i = 0; i < f0.size(); ++i) EXPECT_EQ(f0[i], f1[i < 50 ? i : i + 1]);
}

TEST(CpuPme, PhasesAreTimedUnderTheirNames) {
  const Ions s = test::randomIons(100, test::meltEdge(100), 31);
  CpuPme pme(test::pmeParams(3.0, 4, 0.12, s.box), 1);
  Timers timers;
  std::vector<Vec3> f(s.positions.size());
  pme.compute(s.positions, s.charges, s.box, f, &timers);
  std::vector<std::string> names;
  for (const auto& [name, entry] : timers.ordered()) names.push_back(name);
  const std::vector<std::string> expected{"pme.spline",  "pme.spread",      "pme.fft_forward",
                                          "pme.convolve", "pme.fft_inverse", "pme.gather"};
  EXPECT_EQ(names, expected);
}

}  // namespace
}  // namespace faraday

namespace faraday {
namespace {

TEST(EwaldSetupTest, BetaSatisfiesRtolAndGridIsFftFriendly) {
  const double beta = ewaldBetaFromRtol(1.0, 1e-5);
  EXPECT_NEAR(std::erfc(beta * 1.0) / 1e-5, 1.0, tol::kDoubleSum);
  EXPECT_EQ(nextFftSize(31), 32);
  EXPECT_EQ(nextFftSize(41), 42);  // 2 * 3 * 7
  EXPECT_EQ(nextFftSize(121), 125);
  Config c;
  c.nonbonded.cutoff = 1.0;
  c.electrostatics.fourierSpacing = 0.12;
  const EwaldSetup s = chooseEwaldSetup(c, Box::rectangular(3.6, 5.0, 2.0));
  EXPECT_EQ(s.pme.grid[0], 30);  // 3.6 / 0.12 = 30 exactly: not rounded up to 32
  EXPECT_EQ(s.pme.grid[1], 42);  // ceil(41.67) = 42
  EXPECT_EQ(s.pme.grid[2], 18);  // ceil(16.67) = 17 -> 18
  c.electrostatics.grid = {2, 32, 32};
  EXPECT_THROW(chooseEwaldSetup(c, Box::rectangular(3.6, 5.0, 2.0)), Error);  // below pme_order
}

TEST(EwaldSetupTest, SpacingRuleShrinksWithTighterTolerance) {
  const double beta = 3.0;
  for (int order = 4; order <= 8; ++order) {
    EXPECT_LT(pmeSpacingForRtol(beta, order, 1e-6), pmeSpacingForRtol(beta, order, 1e-4));
    EXPECT_LE(pmeSpacingForRtol(beta, order, 1e-2), 0.5 / beta);
  }
  EXPECT_LT(pmeSpacingForRtol(beta, 4, 1e-5), pmeSpacingForRtol(beta, 8, 1e-5));
}

TEST(EwaldSetupTest, AutoSpacingFollowsTheToleranceRule) {
  Config c;
  c.nonbonded.cutoff = 1.0;
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.pmeOrder = 5;
  c.electrostatics.fourierSpacing = 0;  // fourier_spacing = auto
  const Box box = Box::rectangular(4.0, 5.0, 6.0);
  const EwaldSetup s = chooseEwaldSetup(c, box);
  const double h = pmeSpacingForRtol(s.beta, 5, 1e-5);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(s.pme.grid[d], nextFftSize(int(std::ceil(box.diagonal()[d] / h - 1e-9)))) << "dimension " << d;
    EXPECT_LE(box.diagonal()[d] / s.pme.grid[d], h);
  }
  c.electrostatics.ewaldRtol = 1e-6;  // a tighter tolerance gives a finer grid
  EXPECT_GT(chooseEwaldSetup(c, box).pme.grid[0], s.pme.grid[0]);
}

TEST(ReciprocalFactory, ChoosesSolverByMethod) {
  System system;
  system.box = Box::rectangular(3, 3, 3);
  system.charge = {1.0, -1.0};
  system.type = {0, 0};
  Config c;
  c.nonbonded.cutoff = 1.0;
  c.electrostatics.method = ElectrostaticsMethod::Pme;
  EXPECT_EQ(makeReciprocalSolver(chooseEwaldSetup(c, system.box), system, false, 1)->name(), "cpu-pme");
  c.electrostatics.method = ElectrostaticsMethod::Ewald;
  EXPECT_EQ(makeReciprocalSolver(chooseEwaldSetup(c, system.box), system, false, 1)->name(), "ewald");
  c.electrostatics.method = ElectrostaticsMethod::None;
  EXPECT_EQ(makeReciprocalSolver(chooseEwaldSetup(c, system.box), system, false, 1), nullptr);
}

}  // namespace
}  // namespace faraday
