// Integrators on every backend: NVE energy conservation and reversibility of velocity
// Verlet, the Langevin (BAOAB) temperature, and Maxwell-Boltzmann initial velocities.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/Units.h"
#include "integrators/InitialVelocities.h"
#include "integrators/Integrator.h"
#include "tests/BackendTestSystems.h"
#include "tests/Tolerances.h"
#include "engine/backends/BackendFactory.h"

namespace faraday::test {
namespace {

class Integrators : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// Argon liquid config: cutoff 1.0 nm with potential shift, buffer 0.1 nm.
Config argonConfig(const std::string& platform, const std::string& integrator, double dt) {
  Config c = ljConfig(platform, 1.0, 0.1, true);
  c.integrator.type = choiceNamed<IntegratorType>(integrator);
  c.integrator.dt = dt;
  return c;
}

std::unique_ptr<Backend> startArgon(const Config& config, const BuiltSystem& b, double temperature) {
  auto backend = makeBackend(config, b.system, nullptr);
  State s = stateOf(b);
  s.velocities = maxwellBoltzmannVelocities(b.system, temperature, 2024, config.integrator.type);
  backend->setState(s, {});
  backend->computeForces();
  return backend;
}

/// 864 argon atoms (fcc start, melted at ~120 K), dt 4 fs: after 1 ps of equilibration the
/// total energy over 10 ps must show a drift (least-squares slope) below the bound.
TEST_P(Integrators, VelocityVerletConservesEnergyOfArgonLiquid) {
  const BuiltSystem b = fccArgon(6);
  const double dt = 0.004;
  auto backend = startArgon(argonConfig(GetParam(), "verlet", dt), b, 240.0);
  for (int s = 0; s < 250; ++s) backend->step();
  std::vector<double> total;
  double kinetic = 0;
  for (int s = 0; s < 2500; ++s) {
    const Energies e = backend->step();
    const double k = backend->kineticEnergy();
    total.push_back(e.potential() + k);
    kinetic += k / 2500;
  }
  const double n = double(b.system.size());
  const double drift = slope(total) / dt / n;  // kJ/mol/ps per atom
  double rms = 0;
  for (double e : total) rms += (e - total[0]) * (e - total[0]) / double(total.size());
  std::printf("[ info ] argon NVE, %zu atoms, T %.1f K: drift %.3g kJ/mol/ps per atom (%.3g kJ/mol/ns per atom), "
              "rms |E - E0| %.3g kJ/mol, %lld list builds\n",
              b.system.size(), 2 * kinetic / (3 * n * units::kBoltzmann), drift, drift * units::kPsPerNs,
              std::sqrt(rms), backend->neighborListBuilds());
  EXPECT_LT(std::fabs(drift), tol::kArgonNveDriftPerAtom);
  EXPECT_GT(backend->neighborListBuilds(), 10);  // the run did exercise rebuilds
}

/// RMS fluctuation of the total energy over `time` ps after the same start.
double energyFluctuation(const std::string& platform, const BuiltSystem& b, double dt, double time) {
  auto backend = startArgon(argonConfig(platform, "verlet", dt), b, 240.0);
  const int steps = int(std::lround(time / dt));
  std::vector<double> total;
  for (int s = 0; s < steps; ++s) total.push_back(backend->step().potential() + backend->kineticEnergy());
  double mean = 0, var = 0;
  for (double e : total) mean += e / double(steps);
  for (double e : total) var += (e - mean) * (e - mean) / double(steps);
  return std::sqrt(var);
}

/// Second order: the energy fluctuation drops 4x when dt halves.
TEST_P(Integrators, VelocityVerletEnergyErrorScalesAsDtSquared) {
  const BuiltSystem b = fccArgon(5);
  const double coarse = energyFluctuation(GetParam(), b, 0.008, 1.0);
  const double fine = energyFluctuation(GetParam(), b, 0.004, 1.0);
  std::printf("[ info ] rms energy fluctuation: dt 8 fs %.4g, dt 4 fs %.4g kJ/mol, ratio %.3f\n", coarse, fine,
              coarse / fine);
  EXPECT_GT(coarse / fine, tol::kVerletScalingMin);
  EXPECT_LT(coarse / fine, tol::kVerletScalingMax);
}

/// Velocity Verlet is time reversible: N steps forward, reverse the velocities, N steps
/// back return to the start up to rounding amplified by the chaotic dynamics.
TEST_P(Integrators, VelocityVerletIsTimeReversible) {
  const BuiltSystem b = fccArgon(4);
  auto backend = startArgon(argonConfig(GetParam(), "verlet", 0.004), b, 240.0);
  State start;
  backend->getState(start);
  for (int s = 0; s < 100; ++s) backend->step();
  State mid;
  backend->getState(mid);
  for (Vec3& v : mid.velocities) v = -v;
  backend->setState(mid, backend->listReference());
  backend->computeForces();
  for (int s = 0; s < 100; ++s) backend->step();
  State end;
  backend->getState(end);
  double worst = 0;
  for (std::size_t i = 0; i < b.system.size(); ++i)
    worst = std::max(worst, std::sqrt(norm2(end.positions[i] - start.positions[i])));
  EXPECT_LT(worst, onGpu(GetParam()) ? tol::kGpuReversibilityPosition : tol::kReversibilityPosition);
  std::printf("[ info ] largest position error after 100 steps there and back: %.3g nm\n", worst);
  EXPECT_GT(std::sqrt(norm2(mid.positions[0] - start.positions[0])), 1e3 * tol::kReversibilityPosition);
}

/// BAOAB Langevin: the mean kinetic temperature over 3N degrees of freedom (the thermostat
/// does not conserve momentum) equals the target within the statistical error estimated
/// from block averages.
TEST_P(Integrators, LangevinMeanTemperatureMatchesTarget) {
  const BuiltSystem b = fccArgon(5);  // 500 atoms, box 2.87 nm: two list cells per edge
  Config config = argonConfig(GetParam(), "langevin", 0.004);
  const double target = 120.0;
  config.integrator.temperature = target;
  config.integrator.friction = 5.0;
  config.integrator.seed = 77;
  auto backend = startArgon(config, b, target);
  for (int s = 0; s < 500; ++s) backend->step();
  const int blocks = 20, perBlock = 200;  // a block (0.8 ps) >> the KE correlation time 1/(2 gamma) = 0.1 ps
  const double dof = degreesOfFreedom(b.system, IntegratorType::Langevin);
  ASSERT_EQ(dof, 3.0 * double(b.system.size()));
  std::vector<double> blockMean(blocks, 0.0);
  for (int k = 0; k < blocks; ++k)
    for (int s = 0; s < perBlock; ++s) {
      backend->step();
      blockMean[k] += 2 * backend->kineticEnergy() / (dof * units::kBoltzmann) / perBlock;
    }
  double mean = 0, var = 0;
  for (double t : blockMean) mean += t / blocks;
  for (double t : blockMean) var += (t - mean) * (t - mean) / (blocks - 1);
  const double sigma = std::sqrt(var / blocks);
  std::printf("[ info ] Langevin: mean T %.3f K, target %.1f K, block-average sigma %.3f K\n", mean, target, sigma);
  EXPECT_NEAR(mean, target, tol::kStatisticalSigmas * sigma);
  // Sanity of the error estimate: the per-step fluctuation alone gives sigma_T >= T sqrt(2/dof)/sqrt(steps).
  EXPECT_GT(sigma, target * std::sqrt(2 / dof) / std::sqrt(double(blocks * perBlock)));
}

/// A restart from (state, listReference) continues exactly as the uninterrupted run:
/// same list rebuild steps, same Langevin noise (keyed by step), bitwise equal positions.
TEST_P(Integrators, RestartContinuesBitwise) {
  const BuiltSystem b = fccArgon(4);
  Config config = argonConfig(GetParam(), "langevin", 0.004);
  config.integrator.temperature = 150;
  auto run = startArgon(config, b, 150.0);
  for (int s = 0; s < 60; ++s) run->step();
  State saved;
  run->getState(saved);
  const std::vector<Vec3> reference = run->listReference();
  const long long buildsAtSave = run->neighborListBuilds();
  for (int s = 0; s < 60; ++s) run->step();
  State uninterrupted;
  run->getState(uninterrupted);

  auto restarted = makeBackend(config, b.system, nullptr);
  restarted->setState(saved, reference);
  restarted->computeForces();
  for (int s = 0; s < 60; ++s) restarted->step();
  State continued;
  restarted->getState(continued);
  EXPECT_EQ(continued.step, uninterrupted.step);
  EXPECT_EQ(restarted->neighborListBuilds() - 1, run->neighborListBuilds() - buildsAtSave);
  for (std::size_t i = 0; i < b.system.size(); ++i) {
    ASSERT_TRUE(continued.positions[i] == uninterrupted.positions[i]) << "particle " << i;
    ASSERT_TRUE(continued.velocities[i] == uninterrupted.velocities[i]) << "particle " << i;
  }
}

/// 16384 atoms: large enough that the list build, the pair loop and the per-particle
/// updates all run threaded; 1 and 2 threads give bitwise the same trajectory.
TEST_P(Integrators, TrajectoryBitwiseIndependentOfThreadCount) {
  const BuiltSystem b = fccArgon(16);
  std::vector<State> finals;
  for (int threads : {1, 2}) {
    Config config = argonConfig(GetParam(), "langevin", 0.004);
    config.run.threads = threads;
    auto backend = startArgon(config, b, 120.0);
    for (int s = 0; s < 8; ++s) backend->step();
    finals.emplace_back();
    backend->getState(finals.back());
  }
  for (std::size_t i = 0; i < b.system.size(); ++i) {
    ASSERT_TRUE(finals[0].positions[i] == finals[1].positions[i]) << "particle " << i;
    ASSERT_TRUE(finals[0].velocities[i] == finals[1].velocities[i]) << "particle " << i;
  }
}

/// Eight atoms under Langevin at 300 K: the thermostat acts on the centre of mass too, so the
/// temperature over the integrator's 3N degrees of freedom averages 300 K (over 3N - 3 it
/// would average 300 * 24/21 = 343 K, 15 standard errors away).
TEST_P(Integrators, LangevinTemperatureOfAFewAtomsCountsTheCentreOfMass) {
  const BuiltSystem b = randomLjSystem(8, {3, 3, 3}, 8);
  Config config = argonConfig(GetParam(), "langevin", 0.004);
  config.integrator.temperature = 300;
  config.integrator.friction = 10.0;
  auto backend = startArgon(config, b, 300.0);
  const double dof = degreesOfFreedom(b.system, IntegratorType::Langevin);
  State s;
  backend->getState(s);
  EXPECT_NEAR(temperatureOf(dof, kineticEnergy(b.system, s.velocities)), 300.0, 300.0 * tol::kDoubleSum);
  for (int k = 0; k < 250; ++k) backend->step();
  const int blocks = 25, perBlock = 400;  // a block (1.6 ps) >> the KE correlation time 1/(2 gamma) = 0.05 ps
  std::vector<double> blockMean(blocks, 0.0);
  for (int k = 0; k < blocks; ++k)
    for (int step = 0; step < perBlock; ++step) {
      backend->step();
      blockMean[k] += temperatureOf(dof, backend->kineticEnergy()) / perBlock;
    }
  double mean = 0, var = 0;
  for (double t : blockMean) mean += t / blocks;
  for (double t : blockMean) var += (t - mean) * (t - mean) / (blocks - 1);
  const double sigma = std::sqrt(var / blocks);
  std::printf("[ info ] 8 atoms, Langevin 300 K: mean T over 3N %.1f K (sigma %.1f K)\n", mean, sigma);
  EXPECT_NEAR(mean, 300.0, tol::kStatisticalSigmas * sigma);
  EXPECT_GT(std::fabs(300.0 * 24 / 21 - mean), tol::kStatisticalSigmas * sigma);  // the test can tell 3N from 3N-3
}

INSTANTIATE_TEST_SUITE_P(Backends, Integrators, ::testing::ValuesIn(kBackendNames), backendTestName);

TEST(InitialVelocities, ExactTemperatureZeroMomentumReproducible) {
  const BuiltSystem b = randomLjSystem(300, {3, 3, 3}, 4);
  const auto v = maxwellBoltzmannVelocities(b.system, 300.0, 12345, IntegratorType::Verlet);
  EXPECT_EQ(degreesOfFreedom(b.system, IntegratorType::Verlet), 3.0 * 300 - 3);
  EXPECT_NEAR(temperatureOf(degreesOfFreedom(b.system, IntegratorType::Verlet), kineticEnergy(b.system, v)), 300.0,
              300.0 * tol::kDoubleSum);
  Vec3 p{};
  double pScale = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    p += v[i] * b.system.mass[i];
    pScale += b.system.mass[i] * std::sqrt(norm2(v[i]));
  }
  for (int d = 0; d < 3; ++d) EXPECT_LT(std::fabs(p[d]), tol::kDoubleSum * pScale);
  const auto again = maxwellBoltzmannVelocities(b.system, 300.0, 12345, IntegratorType::Verlet);
  const auto other = maxwellBoltzmannVelocities(b.system, 300.0, 12346, IntegratorType::Verlet);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_TRUE(v[i] == again[i]);
  EXPECT_FALSE(v[0] == other[0]);
}

/// For Langevin the centre of mass keeps its thermal motion and the temperature over 3N is exact.
TEST(InitialVelocities, LangevinKeepsTheCentreOfMassMotion) {
  const BuiltSystem b = randomLjSystem(300, {3, 3, 3}, 4);
  const auto v = maxwellBoltzmannVelocities(b.system, 300.0, 12345, IntegratorType::Langevin);
  EXPECT_NEAR(temperatureOf(degreesOfFreedom(b.system, IntegratorType::Langevin), kineticEnergy(b.system, v)), 300.0,
              300.0 * tol::kDoubleSum);
  Vec3 p{};
  double mass = 0;
  for (std::size_t i = 0; i < v.size(); ++i) p += v[i] * b.system.mass[i], mass += b.system.mass[i];
  // The centre-of-mass velocity is drawn with variance kT/M per component: far from zero.
  EXPECT_GT(std::sqrt(norm2(p / mass)), 1e-6 * std::sqrt(units::kBoltzmann * 300.0 / mass));
}

/// Equipartition per species: <m v_x^2> = kT for the light and the heavy type alike.
TEST(InitialVelocities, EquipartitionPerMass) {
  const BuiltSystem b = randomLjSystem(3000, {6, 6, 6}, 5, 0.1);
  const double t = 250.0, kT = units::kBoltzmann * t;
  const auto v = maxwellBoltzmannVelocities(b.system, t, 99, IntegratorType::Verlet);
  for (int type = 0; type < 2; ++type) {
    double sum = 0;
    int count = 0;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (b.system.type[i] == type) {
        sum += b.system.mass[i] * norm2(v[i]) / 3;
        ++count;
      }
    // m v_x^2 / kT is chi-squared with one dof: variance 2; 3 count samples.
    const double sigma = kT * std::sqrt(2.0 / (3.0 * count));
    EXPECT_NEAR(sum / count, kT, tol::kStatisticalSigmas * sigma) << "type " << type;
  }
}

}  // namespace
}  // namespace faraday::test
