// The physics of the reciprocal solvers, one test body each run over every backend (CPU
// CpuPme, GPU CudaPme): Madelung constants of two crystals, forces = -gradient of the
// energy, and the virial by strain. The NVE energy conservation of PME runs through the
// whole CPU engine (test_pme_nve.cpp), not through the ReciprocalSolver interface alone.
//
// The GPU PME is float (kCudaPme* in Tolerances.h): its instances add the GPU's promised
// accuracy to the CPU tolerances, and its finite differences take steps that its 32-bit
// fixed-point positions resolve (2.3e-10 of the box edge, ~5e-10 nm here) and that are
// large against the rounding of its energy (kCudaPmeEnergyRounding).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <cmath>
#include <memory>
#include <string>

#include "core/Units.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Ewald.h"
#include "tests/BackendTestSystems.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using test::Ions;
using test::backendTestName;
using test::kBackendNames;
using test::onGpu;

constexpr double kRockSaltMadelung = 1.747564594633;
constexpr double kCesiumChlorideMadelung = 1.762675;

/// The reciprocal solver of `platform` for `numAtoms` atoms (the CPU one on 2 threads).
std::unique_ptr<ReciprocalSolver> makeSolver(const std::string& platform, const PmeParams& params,
                                             std::size_t numAtoms) {
  if (onGpu(platform)) return makeCudaPme(params, numAtoms);
  return std::make_unique<CpuPme>(params, 2);
}

class PmePhysics : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
  bool gpu() const { return onGpu(GetParam()); }

  /// Madelung constant of a +-1 crystal with nearest-neighbour distance r0 (nm), checked
  /// against `expected`. The GPU's reciprocal energy may be off by kCudaPmeEnergy of itself,
  /// which moves M by that times E_rec / E.
  void expectMadelung(const Ions& s, double rc, double r0, double expected) {
    const double beta = ewaldBetaFromRtol(rc, 1e-12);
    const auto solver = makeSolver(GetParam(), test::pmeParams(beta, 8, pmeSpacingForRtol(beta, 8, 1e-7), s.box),
                                   s.positions.size());
    const test::Electrostatics e = test::totalElectrostatics(s, *solver, beta, rc);
    const double m = -e.energy * r0 / (units::kCoulomb * double(s.positions.size() / 2));
    const double tolerance = tol::kMadelung + (gpu() ? tol::kCudaPmeEnergy * std::abs(e.recip / e.energy) : 0.0);
    EXPECT_NEAR(m / expected, 1.0, tolerance) << "M = " << m;
  }
};

// The crystals are shifted off the grid nodes: on the nodes the Euler-spline interpolation
// is exact and the test would not see the interpolation at all.
TEST_P(PmePhysics, RockSaltMadelungConstant) {
  const double a = 0.5640;
  Ions s = test::rockSalt(3, a);
  test::translate(s, {0.0123, 0.0371, 0.0217});
  expectMadelung(s, 0.84, a / 2, kRockSaltMadelung);
}

TEST_P(PmePhysics, CesiumChlorideMadelungConstant) {
  const double a = 0.4123;
  Ions s = test::cesiumChloride(4, a);
  test::translate(s, {0.0311, 0.0057, 0.0193});
  expectMadelung(s, 0.82, a * std::sqrt(3.0) / 2, kCesiumChlorideMadelung);
}

// Central differences of the total energy, step h: CPU h = 1e-5 nm (kFiniteDifference-
// ElectrostaticForce). GPU h = 1e-4 nm, 2e5 fixed-point steps of the 2.1 nm box: the
// difference quotient carries the energy rounding of two evaluations, 2 kCudaPmeEnergyRounding
// |E_rec| / (2h), and the GPU forces differ from the exact gradient by kCudaPmeForceRms of
// the RMS force; the truncation error grows to h^2 E''' / 6 ~ 1e-8 F, inside the CPU term.
TEST_P(PmePhysics, ForcesAreMinusEnergyGradient) {
  const Ions s = test::randomIons(300, test::meltEdge(300), 26);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
  // coarse on purpose: gradient of the PME energy
  const auto solver = makeSolver(GetParam(), test::pmeParams(beta, 5, 0.1, s.box), s.positions.size());
  const auto ref = test::totalElectrostatics(s, *solver, beta, rc);
  const double fScale = test::rms(ref.forces);
  const double h = gpu() ? 1e-4 : 1e-5;
  double tolerance = tol::kFiniteDifferenceElectrostaticForce * fScale;
  if (gpu()) tolerance += tol::kCudaPmeForceRms * fScale + tol::kCudaPmeEnergyRounding * std::abs(ref.recip) / h;
  double worst = 0;
  for (int i : {0, 7, 150, 299}) {
    for (int d = 0; d < 3; ++d) {
      Ions plus = s, minus = s;
      plus.positions[i][d] += h;
      minus.positions[i][d] -= h;
      const double fd = -(test::totalElectrostatics(plus, *solver, beta, rc).energy -
                          test::totalElectrostatics(minus, *solver, beta, rc).energy) / (2 * h);
      EXPECT_NEAR(ref.forces[i][d], fd, tolerance) << "atom " << i << " dim " << d;
      worst = std::max(worst, std::abs(ref.forces[i][d] - fd));
    }
  }
  std::printf("[ info ] %s: worst |F + dE/dx| %.3g kJ/mol/nm, allowed %.3g, F rms %.3g\n", GetParam().c_str(), worst,
              tolerance, fScale);
}

// W_aa against central differences of the reciprocal energy under a strain +-eps: CPU
// eps = 1e-6 (kFiniteDifferenceVirial). A strain scales positions and box alike, so the GPU's
// fixed-point fractions and its grid do not change; only its float influence function does.
// GPU eps = 1e-3: energy rounding 2 kCudaPmeEnergyRounding |E_rec| / (2 eps) = 1e-3 |E_rec|,
// truncation eps^2 E''' / 6 <= eps^2 |E_rec| (E_rec ~ 1/L), plus kCudaPmeVirial |W| for the
// GPU virial.
TEST_P(PmePhysics, VirialMatchesStrainDerivative) {
  const Ions s = test::randomIons(300, test::meltEdge(300), 28);
  const double rc = 1.0, beta = ewaldBetaFromRtol(rc, 1e-5);
  const auto solver = makeSolver(GetParam(), test::pmeParams(beta, 4, 0.1, s.box), s.positions.size());
  std::vector<Vec3> f(s.positions.size());
  const ReciprocalResult r = solver->compute(s.positions, s.charges, s.box, f, nullptr);
  double wNorm = 0;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) wNorm += r.virial.m[a][b] * r.virial.m[a][b];
  wNorm = std::sqrt(wNorm);
  const double eps = gpu() ? 1e-3 : 1e-6;
  double tolerance = tol::kFiniteDifferenceVirial * wNorm;
  if (gpu())
    tolerance += tol::kCudaPmeVirial * wNorm + tol::kCudaPmeEnergyRounding * std::abs(r.energy) / eps +
                 eps * eps * std::abs(r.energy);
  double worst = 0;
  for (int a = 0; a < 3; ++a) {
    const double strain = test::strainVirial(s, *solver, a, eps);
    EXPECT_NEAR(r.virial.m[a][a], strain, tolerance) << "axis " << a;
    worst = std::max(worst, std::abs(r.virial.m[a][a] - strain));
  }
  std::printf("[ info ] %s: worst |W_aa - strain derivative| %.3g kJ/mol, allowed %.3g, |W| %.3g\n",
              GetParam().c_str(), worst, tolerance, wNorm);
}

INSTANTIATE_TEST_SUITE_P(Backends, PmePhysics, ::testing::ValuesIn(kBackendNames), backendTestName);

}  // namespace
}  // namespace faraday
