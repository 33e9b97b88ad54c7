// Constrained dynamics on every backend, on a liquid of small molecules built in code (rigid
// waters, diatomics, methyl stars, chains and rigid triangles): the lengths held over long runs,
// NVE energy conservation with RATTLE, the Langevin temperature over the constrained degrees of
// freedom, and the GPU against the CPU step by step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/Units.h"
#include "engine/backends/BackendFactory.h"
#include "integrators/Integrator.h"
#include "tests/ConstraintTestSystems.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

class ConstraintDynamics : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// 216 molecules, 668 atoms, in a 3.6 nm box.
const MoleculeMix kMix{100, 40, 30, 30, 16};

/// The liquid after `steps` of Langevin at `temperature` from its lattice start (dt 2 fs).
State equilibrated(const std::string& platform, const BuiltSystem& b, double temperature, int steps) {
  Config c = moleculeConfig(platform, "langevin", 0.002);
  c.integrator.temperature = temperature;
  c.integrator.friction = 10;
  auto backend = makeBackend(c, b.system, nullptr);
  backend->setState(constrainedStart(c, b, temperature, 3), {});
  backend->computeForces();
  for (int s = 0; s < steps; ++s) backend->advance(false);
  State out;
  backend->getState(out);
  out.step = 0, out.time = 0;
  return out;
}

/// Velocity Verlet with RATTLE conserves the energy of the molecular liquid: the drift over
/// 5 ps stays below the bound, the lengths stay within the tolerance (waters to rounding), and
/// the temperature over the constrained degrees of freedom is what the run started with.
TEST_P(ConstraintDynamics, RattleConservesEnergyAndHoldsTheLengths) {
  const BuiltSystem b = moleculeLiquid(kMix, 0.6, 7);
  const double dt = 0.002;
  Config c = moleculeConfig(GetParam(), "verlet", dt);
  auto backend = makeBackend(c, b.system, nullptr);
  backend->setState(equilibrated(GetParam(), b, 300, 500), {});
  backend->computeForces();
  std::vector<double> total;
  double worstLength = 0, temperature = 0;
  const int steps = 2500;
  const double dof = degreesOfFreedom(b.system, IntegratorType::Verlet);
  for (int s = 0; s < steps; ++s) {
    const Energies e = backend->step();
    const double k = backend->kineticEnergy();
    total.push_back(e.potential() + k);
    temperature += temperatureOf(dof, k) / steps;
    if (s % 250 == 249) {
      State now;
      backend->getState(now);
      worstLength = std::max(worstLength, worstConstraintError(b.system, now.positions));
    }
  }
  const double drift = slope(total) / dt / double(b.system.size());
  std::printf("[ info ] RATTLE NVE, %zu atoms, %g dof, T %.1f K: drift %.3g kJ/mol/ps per atom, worst length %.3g\n",
              b.system.size(), dof, temperature, drift, worstLength);
  EXPECT_LT(std::fabs(drift), tol::kConstrainedNveDriftPerAtom);
  EXPECT_LT(worstLength, c.integrator.constraintTolerance * tol::kConstraintLengthOverTolerance);
}

/// Langevin BAOAB with constraints: the mean kinetic temperature over 3N minus the constraints'
/// degrees of freedom equals the target within the statistical error of block averages.
TEST_P(ConstraintDynamics, LangevinTemperatureCountsTheConstrainedDegreesOfFreedom) {
  const BuiltSystem b = moleculeLiquid(kMix, 0.6, 8);
  const double target = 300;
  Config c = moleculeConfig(GetParam(), "langevin", 0.002);
  c.integrator.temperature = target;
  c.integrator.friction = 5;
  c.integrator.seed = 21;
  auto backend = makeBackend(c, b.system, nullptr);
  backend->setState(equilibrated(GetParam(), b, target, 500), {});
  backend->computeForces();
  const double dof = degreesOfFreedom(b.system, IntegratorType::Langevin);
  const int blocks = 20, perBlock = 200;
  std::vector<double> means;
  for (int k = 0; k < blocks; ++k) {
    double sum = 0;
    for (int s = 0; s < perBlock; ++s) {
      backend->advance(true);
      sum += temperatureOf(dof, backend->kineticEnergy());
    }
    means.push_back(sum / perBlock);
  }
  double mean = 0, var = 0;
  for (double m : means) mean += m / blocks;
  for (double m : means) var += (m - mean) * (m - mean) / (blocks - 1);
  const double error = std::sqrt(var / blocks);
  std::printf("[ info ] Langevin with constraints: %g dof, mean T %.2f K +- %.2f (target %g)\n", dof, mean, error, target);
  EXPECT_LT(std::fabs(mean - target), tol::kStatisticalSigmas * error);
  EXPECT_LT(error, 0.01 * target);  // the test can tell a wrong count of degrees of freedom (~30%)
}

INSTANTIATE_TEST_SUITE_P(Backends, ConstraintDynamics, ::testing::ValuesIn(kBackendNames), backendTestName);

/// The GPU against the CPU on freely rotating molecules (no forces: the difference is the
/// constraint arithmetic alone, both in double): positions and velocities after 400 steps of
/// velocity Verlet and of Langevin (the same Philox noise) agree to rounding, the lengths hold.
TEST(ConstraintDynamicsGpu, MatchesTheCpuStepByStepWithoutForces) {
  FARADAY_REQUIRE_GPU();
  const BuiltSystem b = moleculeLiquid(kMix, 0.6, 9, false);
  for (const char* integrator : {"verlet", "langevin"}) {
    State end[2];
    for (int k = 0; k < 2; ++k) {
      Config c = moleculeConfig(k == 0 ? "cpu" : "cuda", integrator, 0.002);
      c.integrator.temperature = 300;
      c.integrator.constraintTolerance = 1e-12;  // no sweep counts that differ at the threshold
      auto backend = makeBackend(c, b.system, nullptr);
      backend->setState(constrainedStart(c, b, 300, 5), {});
      backend->computeForces();
      for (int s = 0; s < 400; ++s) backend->advance(s % 100 == 99);
      backend->getState(end[k]);
    }
    double dx = 0, dv = 0;
    for (std::size_t i = 0; i < b.system.size(); ++i) {
      dx = std::max(dx, std::sqrt(norm2(end[0].positions[i] - end[1].positions[i])));
      dv = std::max(dv, std::sqrt(norm2(end[0].velocities[i] - end[1].velocities[i])));
    }
    std::printf("[ info ] %s, GPU against CPU after 400 steps: %.3g nm, %.3g nm/ps\n", integrator, dx, dv);
    EXPECT_LT(dx, tol::kGpuConstraintPosition) << integrator;
    EXPECT_LT(dv, tol::kGpuConstraintVelocity) << integrator;
    EXPECT_LT(worstConstraintError(b.system, end[1].positions), 1e-12 * tol::kConstraintLengthOverTolerance) << integrator;
  }
}

/// With forces: one step's energies, virial (constraint virial included) and kinetic energy on
/// the GPU against the CPU.
TEST(ConstraintDynamicsGpu, EnergiesAndVirialMatchTheCpu) {
  FARADAY_REQUIRE_GPU();
  const BuiltSystem b = moleculeLiquid(kMix, 0.6, 10);
  const State start = equilibrated("cpu", b, 300, 200);
  Energies e[2];
  double kinetic[2];
  for (int k = 0; k < 2; ++k) {
    Config c = moleculeConfig(k == 0 ? "cpu" : "cuda", "verlet", 0.002);
    auto backend = makeBackend(c, b.system, nullptr);
    backend->setState(start, {});
    backend->computeForces();
    for (int s = 0; s < 10; ++s) backend->advance(false);
    e[k] = backend->step();
    kinetic[k] = backend->kineticEnergy();
  }
  std::printf("[ info ] CPU / GPU: potential %.8g / %.8g, kinetic %.8g / %.8g, trace W %.8g / %.8g kJ/mol\n",
              e[0].potential(), e[1].potential(), kinetic[0], kinetic[1], e[0].virial.trace(), e[1].virial.trace());
  EXPECT_NEAR(e[1].potential(), e[0].potential(), tol::kGpuEnergyRel * std::fabs(e[0].potential()));
  EXPECT_NEAR(kinetic[1], kinetic[0], tol::kGpuEnergyRel * kinetic[0]);
  EXPECT_NEAR(e[1].virial.trace(), e[0].virial.trace(), tol::kGpuEnergyRel * (2 * kinetic[0]));
}

}  // namespace
}  // namespace faraday::test
