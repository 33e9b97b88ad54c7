// The all-pairs mode on every backend: forces, energy and virial against the double
// reference, a two-body Kepler orbit (period and energy), and the energy conservation of a
// Plummer sphere with its dt^2 scaling.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/Units.h"
#include "engine/backends/BackendFactory.h"
#include "engine/config/KernelParams.h"
#include "kernels/nbody/AllPairs.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "tests/AllPairsTestSupport.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// The GPU's error relative to what its float sums add up: the RMS over particles of
/// |F_gpu - F_ref| over the RMS of sum_j |F_ij| (double). A float sum's rounding is bounded by
/// the magnitudes of its terms, not by the net force, which mixed-sign pairs can cancel.
double relRmsOfTerms(const std::vector<Vec3>& a, const std::vector<Vec3>& ref, const std::vector<Vec3>& x,
                     const std::vector<double>& mass, const std::vector<int>& type, const AllPairsParams& p) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    double terms = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      if (j == i) continue;
      const Vec3 d = x[i] - x[j];
      const double r2 = dot(d, d);
      const double fOverR = p.potential == AllPairsPotential::Gravity
                                ? softenedGravityPair(r2, p.G * mass[i] * mass[j], p.softening * p.softening).fOverR
                                : typedPair(r2, p.typed.at(type[i], type[j]), p.typed.rmin * p.typed.rmin).fOverR;
      terms += std::fabs(fOverR) * std::sqrt(r2);
    }
    num += norm2(a[i] - ref[i]);
    den += terms * terms;
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

// ---- Every backend -------------------------------------------------------------------------------

class AllPairsBackends : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// Forces, energy and virial against the double reference: equal bits on the CPU (the backend
/// calls it), float pair math and fixed-point sums on the GPU.
TEST_P(AllPairsBackends, ForcesEnergyAndVirialMatchTheReference) {
  struct Case {
    std::string name;
    BuiltSystem b;
    Config config;
  };
  std::vector<Case> cases;
  const Cluster plummer = plummerSphere(1000, 9, {12.0, -3.0, 30.0});  // far outside its box
  cases.push_back({"gravity", plummer.b, allPairsConfig(GetParam(), "gravity", 0.02, 0.005)});
  BuiltSystem ions = randomLjSystem(600, {3.0, 3.0, 3.0}, 23, 0.25);
  Config typed = allPairsConfig(GetParam(), "typed", 0, 0.001);
  typed.atomTypes = ions.system.types;
  typed.typedPairs = typedSections();
  cases.push_back({"typed", ions, typed});
  for (Case& k : cases) {
    auto backend = makeBackend(k.config, k.b.system, nullptr);
    backend->setState(stateOf(k.b), {});
    const Energies e = backend->computeForces();
    std::vector<Vec3> ref;
    const AllPairsResult r = allPairsForces(k.b.positions, k.b.system.mass, k.b.system.type,
                                            allPairsParams(k.config, k.b.system), ref, 1);
    EXPECT_EQ(e.lj, 0.0);
    EXPECT_EQ(e.coulomb(), 0.0);
    EXPECT_EQ(backend->listReference().size(), 0u) << k.name;
    EXPECT_EQ(backend->neighborListBuilds(), 0) << k.name;
    if (!onGpu(GetParam())) {
      EXPECT_EQ(e.pair, r.energy) << k.name;
      for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_TRUE(backend->forces()[i] == ref[i]) << k.name << " " << i;
      continue;
    }
    const AllPairsParams params = allPairsParams(k.config, k.b.system);
    const double err = relRmsOfTerms(backend->forces(), ref, k.b.positions, k.b.system.mass, k.b.system.type, params);
    std::printf("[ info ] %s on the GPU: force error %.2e of the summed terms (%.2e of the net forces)\n",
                k.name.c_str(), err, relRmsVec(backend->forces(), ref));
    EXPECT_LT(err, tol::kGpuAllPairsForceRelRms) << k.name;
    EXPECT_NEAR(e.pair, r.energy, tol::kGpuEnergyRel * std::fabs(r.energy)) << k.name;
    EXPECT_NEAR(e.virial.trace(), r.virial.trace(), tol::kGpuEnergyRel * std::fabs(r.virial.trace())) << k.name;
  }
}

/// Two bodies (m1 = 1, m2 = 0.5 amu, G = 1) on an orbit of semi-major axis a = 1 nm and
/// eccentricity 0.5, softening 1e-3 a, 5000 steps per period, started at apocentre with the
/// centre of mass at rest far outside the box: the period measured from three pericentre
/// passages against Kepler's 2 pi sqrt(a^3 / (G (m1 + m2))), the initial energy against
/// -G m1 m2 / (2a), the energy error over the orbit against velocity Verlet's estimate, and
/// the centre of mass where it started (nothing wrapped).
TEST_P(AllPairsBackends, KeplerOrbitPeriodAndEnergy) {
  const double G = 1, m1 = 1.0, m2 = 0.5, M = m1 + m2, a = 1.0, e = 0.5, eps = 1e-3 * a;
  const double period = 2 * units::kPi * std::sqrt(a * a * a / (G * M));
  const double dt = period / 5000;
  const double rApo = a * (1 + e), vApo = std::sqrt(G * M * (1 - e) / (a * (1 + e)));
  const Vec3 centre{7.3, -2.1, 0.4};
  BuiltSystem b = bodies({m1, m2}, {centre - Vec3{m2 / M * rApo, 0, 0}, centre + Vec3{m1 / M * rApo, 0, 0}});
  State s = stateOf(b);
  s.velocities = {Vec3{0, -m2 / M * vApo, 0}, Vec3{0, m1 / M * vApo, 0}};
  auto backend = makeBackend(allPairsConfig(GetParam(), "gravity", eps, dt), b.system, nullptr);
  backend->setState(s, {});
  const double e0 = backend->computeForces().potential() + backend->kineticEnergy();
  const double kepler = -G * m1 * m2 / (2 * a);

  std::vector<double> passages;  // pericentre: the relative vector crosses y = 0 at x < 0
  double yPrevious = 0, maxError = 0;
  State now;
  for (int step = 1; passages.size() < 3 && step < 14000; ++step) {
    const double total = backend->step().potential() + backend->kineticEnergy();
    maxError = std::max(maxError, std::fabs(total - e0));
    backend->getState(now);
    const Vec3 r = now.positions[1] - now.positions[0];
    if (yPrevious > 0 && r.y <= 0 && r.x < 0) passages.push_back((step - 1 + yPrevious / (yPrevious - r.y)) * dt);
    yPrevious = r.y;
  }
  ASSERT_EQ(passages.size(), 3u);
  const double measured = 0.5 * (passages[2] - passages[0]);
  // Velocity Verlet's energy error, from its shadow Hamiltonian H + dt^2 (p.V''.p / 12 m^2 -
  // |V'|^2 / 24 m) per reduced mass at pericentre, where both terms are largest.
  const double rPeri = a * (1 - e), vPeri2 = G * M * (1 + e) / (a * (1 - e)), gPeri = G * M / (rPeri * rPeri);
  const double verletEstimate = dt * dt * (2 * vPeri2 * gPeri / rPeri / 12 + gPeri * gPeri / 24) / (G * M / (2 * a));
  std::printf("[ info ] %s: Kepler e = 0.5: period %.9g ps (Kepler %.9g, relative %.2e); E0 %.9g (Kepler %.9g, "
              "relative %.2e); max |E - E0| / |E| %.2e (Verlet estimate %.2e)\n",
              GetParam().c_str(), measured, period, measured / period - 1, e0, kepler, e0 / kepler - 1,
              maxError / std::fabs(kepler), verletEstimate);
  EXPECT_NEAR(measured / period, 1.0, tol::kKeplerPeriod);
  EXPECT_NEAR(e0 / kepler, 1.0, tol::kKeplerInitialEnergy);
  EXPECT_LT(maxError / std::fabs(kepler), tol::kKeplerEnergyOverVerletEstimate * verletEstimate);
  const Vec3 com = (now.positions[0] * m1 + now.positions[1] * m2) * (1 / M);
  EXPECT_LT(std::sqrt(norm2(com - centre)), tol::kKeplerCentreOfMass);
}

/// Total energy over `time` ps of a Plummer sphere from its initial state: the RMS of
/// E(t) - E0 and the least-squares drift, both relative to |E0| (drift per ps).
struct NveError {
  double rms = 0, drift = 0;
};
NveError plummerNve(const std::string& platform, const Cluster& c, double softening, double dt, double time) {
  auto backend = makeBackend(allPairsConfig(platform, "gravity", softening, dt), c.b.system, nullptr);
  State s = stateOf(c.b);
  s.velocities = c.velocities;
  backend->setState(s, {});
  const double e0 = backend->computeForces().potential() + backend->kineticEnergy();
  const int steps = int(std::lround(time / dt));
  std::vector<double> error;
  for (int k = 0; k < steps; ++k) error.push_back((backend->step().potential() + backend->kineticEnergy() - e0) / std::fabs(e0));
  const double n = double(steps), mid = (n - 1) / 2;
  NveError r;
  double mean = 0, sxy = 0, sxx = 0;
  for (double v : error) mean += v / n, r.rms += v * v / n;
  for (int k = 0; k < steps; ++k) sxy += (k - mid) * (error[k] - mean), sxx += (k - mid) * (k - mid);
  r.rms = std::sqrt(r.rms);
  r.drift = sxy / sxx / dt;
  return r;
}

/// 512 equal masses in Henon units (crossing time 2 sqrt(2) ps), softening 0.05 nm, dt 1/128
/// ps, 4 ps: the relative energy drift and error are bounded.
TEST_P(AllPairsBackends, PlummerSphereConservesEnergy) {
  const Cluster c = plummerSphere(512, 2026);
  const NveError r = plummerNve(GetParam(), c, 0.05, 1.0 / 128, 4.0);
  std::printf("[ info ] %s: Plummer N = 512, eps 0.05, dt 1/128 ps, 4 ps: rms |E - E0| / |E0| %.3e, drift %.3e /ps\n",
              GetParam().c_str(), r.rms, r.drift);
  EXPECT_LT(std::fabs(r.drift), tol::kPlummerDriftPerPs);
  EXPECT_LT(r.rms, tol::kPlummerEnergyError);
}

/// The same sphere at dt = 1/64 and 1/128 ps over 4 ps: velocity Verlet's energy error is
/// second order, so halving dt divides it by 4.
TEST_P(AllPairsBackends, PlummerEnergyErrorScalesAsDtSquared) {
  const Cluster c = plummerSphere(512, 2026);
  const NveError coarse = plummerNve(GetParam(), c, 0.05, 1.0 / 64, 4.0);
  const NveError fine = plummerNve(GetParam(), c, 0.05, 1.0 / 128, 4.0);
  const double ratio = coarse.rms / fine.rms;
  std::printf("[ info ] %s: Plummer rms |E - E0| / |E0|: dt 1/64 %.3e, dt 1/128 %.3e, ratio %.3f\n", GetParam().c_str(),
              coarse.rms, fine.rms, ratio);
  EXPECT_GT(ratio, tol::kPlummerScalingMin);
  EXPECT_LT(ratio, tol::kPlummerScalingMax);
}

INSTANTIATE_TEST_SUITE_P(Backends, AllPairsBackends, ::testing::ValuesIn(kBackendNames), backendTestName);

}  // namespace
}  // namespace faraday::test
