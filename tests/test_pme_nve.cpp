// Energy conservation of a NaCl melt with PME electrostatics on every backend: the total
// energy drift of a short NVE run after a Langevin relaxation (on the CPU, shared), measured
// by a least-squares slope and bounded, and its dt^2 scaling. The run needs the whole engine
// (pair forces, integrator), so it runs over the backends rather than over the
// ReciprocalSolver interface of test_pme_physics.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "engine/backends/Backend.h"
#include "engine/setup/FccLattice.h"
#include "integrators/InitialVelocities.h"
#include "integrators/Integrator.h"
#include "tests/BackendTestSystems.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/backends/BackendFactory.h"

namespace faraday {
namespace {

/// Joung-Cheatham (2008) SPC/E-compatible ion parameters.
std::vector<AtomType> naclTypes() {
  return {AtomType{"NA", 22.98977, 1.0, 0.2159538, 1.4754532}, AtomType{"CL", 35.453, -1.0, 0.4830453, 0.0534924}};
}

/// Rock-salt lattice of 8 cells^3 ions expanded to the melt density 1.55 g/cm^3
/// (a = (4 x 58.443 g/mol / N_A / 1.55 g/cm^3)^(1/3) = 0.6305 nm): a hot, disordering ionic
/// system at 1300 K without the huge forces of a random start.
BuiltSystem expandedRockSalt(int cells) {
  const double a = std::cbrt(4 * 58.443 / units::kAvogadro / 1.55e-21);
  const test::Ions ions = test::rockSalt(cells, a);
  BuiltSystem b;
  b.system.types = naclTypes();
  b.system.box = ions.box;
  for (std::size_t i = 0; i < ions.positions.size(); ++i) {
    const int t = ions.charges[i] > 0 ? 0 : 1;
    b.system.type.push_back(t);
    b.system.charge.push_back(b.system.types[t].charge);
    b.system.mass.push_back(b.system.types[t].mass);
    b.system.atomName.push_back(b.system.types[t].name);
    b.system.residueName.push_back(b.system.types[t].name);
    b.system.residueId.push_back(int(i) + 1);
    b.positions.push_back(ions.positions[i]);
  }
  return b;
}

Config meltConfig(const std::string& integrator, double dt) {
  Config c;
  c.run.platform = Platform::Cpu;
  c.run.threads = 0;
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = 0.1;
  c.nonbonded.ljShift = true;
  c.electrostatics.method = ElectrostaticsMethod::Pme;
  c.electrostatics.ewaldRtol = 1e-5;
  c.electrostatics.fourierSpacing = 0.12;
  c.electrostatics.pmeOrder = 4;
  c.integrator.type = test::choiceNamed<IntegratorType>(integrator);
  c.integrator.dt = dt;
  c.integrator.temperature = 1300;
  c.integrator.friction = 10;
  return c;
}

/// 2 x 4 cells^3 ions melted at 1300 K (Langevin BAOAB, friction 10/ps, 2 fs, 150 steps),
/// computed once per size for the tests below.
const BuiltSystem& melt(int cells) {
  static std::map<int, BuiltSystem> built;
  if (!built.count(cells)) built[cells] = expandedRockSalt(cells);
  return built[cells];
}
const State& relaxedMelt(int cells) {
  static std::map<int, State> relaxed;
  if (relaxed.count(cells)) return relaxed[cells];
  State state;
  state.positions = melt(cells).positions;
  state.velocities = maxwellBoltzmannVelocities(melt(cells).system, 1300, 7, IntegratorType::Langevin);
  state.box = melt(cells).system.box;
  auto relax = makeBackend(meltConfig("langevin", 0.002), melt(cells).system, nullptr);
  relax->setState(state, {});
  relax->computeForces();
  for (int s = 0; s < 150; ++s) relax->step();
  relax->getState(state);
  return relaxed[cells] = state;
}

/// Error of the total energy over `time` ps of NVE from the relaxed melt: the RMS of
/// E(t) - E(0) and the least-squares drift (kJ/mol/ps).
struct EnergyError {
  double rms = 0, drift = 0;
};
EnergyError nveEnergyError(const std::string& platform, int cells, double dt, double time,
                           const std::string& coulombModifier) {
  Config config = meltConfig("verlet", dt);
  config.run.platform = test::choiceNamed<Platform>(platform);
  config.nonbonded.coulombModifier = test::choiceNamed<CoulombModifier>(coulombModifier);
  auto nve = makeBackend(config, melt(cells).system, nullptr);
  nve->setState(relaxedMelt(cells), {});
  const double e0 = nve->computeForces().potential() + nve->kineticEnergy();
  const int steps = int(std::lround(time / dt));
  std::vector<double> total;
  for (int s = 0; s < steps; ++s) total.push_back(nve->step().potential() + nve->kineticEnergy() - e0);
  const double n = double(steps), mid = (n - 1) / 2;
  EnergyError r;
  double mean = 0, sxy = 0, sxx = 0;
  for (double e : total) mean += e / n;
  for (int s = 0; s < steps; ++s) {
    r.rms += total[s] * total[s] / n;
    sxy += (s - mid) * (total[s] - mean);
    sxx += (s - mid) * (s - mid);
  }
  r.rms = std::sqrt(r.rms);
  r.drift = sxy / sxx / dt;
  return r;
}

/// With the real-space Coulomb potential-shifted (the default) the energy is continuous at
/// the cutoff: velocity Verlet's energy error is second order (halving dt divides the error
/// of the total energy over 1 ps by ~4, as for argon) and there is no drift left from pairs
/// crossing the cutoff. Unshifted, each crossing adds a jump of up to k_C erfc(beta rc)/rc =
/// 1.4e-3 kJ/mol that does not shrink with dt: a drift that stays as dt halves.
class PmeNve : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

TEST_P(PmeNve, NaClMeltEnergyErrorScalesAsDtSquared) {
  const int cells = 4;  // 512 ions, box 2.52 nm
  EnergyError coarse[2], fine[2];
  const char* modifiers[2] = {"potential-shift", "none"};
  for (int m = 0; m < 2; ++m) {
    coarse[m] = nveEnergyError(GetParam(), cells, 0.002, 1.0, modifiers[m]);
    fine[m] = nveEnergyError(GetParam(), cells, 0.001, 1.0, modifiers[m]);
    std::printf("[ info ] %s: NaCl melt NVE, 512 ions, 1 ps, coulomb_modifier %s: rms |E - E0| dt 2 fs %.4g, dt 1 fs "
                "%.4g kJ/mol (ratio %.3f); drift %.4g, %.4g kJ/mol/ps\n",
                GetParam().c_str(), modifiers[m], coarse[m].rms, fine[m].rms, coarse[m].rms / fine[m].rms, coarse[m].drift, fine[m].drift);
  }
  EXPECT_GT(coarse[0].rms / fine[0].rms, tol::kVerletScalingMin);
  EXPECT_LT(coarse[0].rms / fine[0].rms, tol::kVerletScalingMax);
  EXPECT_LT(std::fabs(fine[0].drift), tol::kCoulombShiftDriftReduction * std::fabs(fine[1].drift));
}

TEST_P(PmeNve, NaClMeltEnergyDriftIsBounded) {
  const int cells = 5;
  const int n = int(melt(cells).system.size());  // 1000 ions
  const double dt = 0.002;  // ps
  Config config = meltConfig("verlet", dt);
  config.run.platform = test::choiceNamed<Platform>(GetParam());
  auto nve = makeBackend(config, melt(cells).system, nullptr);
  nve->setState(relaxedMelt(cells), {});
  Energies e = nve->computeForces();
  const int steps = 300;
  std::vector<double> t, total;
  double ke = nve->kineticEnergy();
  for (int s = 0; s <= steps; ++s) {
    if (s > 0) {
      e = nve->step();
      ke = nve->kineticEnergy();
    }
    t.push_back(s * dt);
    total.push_back(e.potential() + ke);
  }
  // Least-squares slope of E_total(t), kJ/mol/ps, and the RMS residual about the line.
  double mt = 0, me = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { mt += t[i]; me += total[i]; }
  mt /= t.size();
  me /= t.size();
  double stt = 0, ste = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { stt += (t[i] - mt) * (t[i] - mt); ste += (t[i] - mt) * (total[i] - me); }
  const double slope = ste / stt;
  double res = 0;
  for (std::size_t i = 0; i < t.size(); ++i) { const double d = total[i] - me - slope * (t[i] - mt); res += d * d; }
  res = std::sqrt(res / t.size());
  const double temperature = temperatureOf(degreesOfFreedom(melt(cells).system, IntegratorType::Verlet), ke);
  const double driftPerAtom = slope / n;
  std::printf("[ info ] %s: NaCl melt, %d ions, %d NVE steps of %.3f ps, T = %.0f K: drift %.3e kJ/mol/ps per "
              "atom, RMS fluctuation %.3e kJ/mol (kinetic %.1f kJ/mol)\n",
              GetParam().c_str(), n, steps, dt, temperature, driftPerAtom, res, ke);
  EXPECT_LT(std::fabs(driftPerAtom), tol::kNveDriftPerAtom);
  EXPECT_LT(res / ke, tol::kNveFluctuationOverKinetic);
}

INSTANTIATE_TEST_SUITE_P(Backends, PmeNve, ::testing::ValuesIn(test::kBackendNames), test::backendTestName);

}  // namespace
}  // namespace faraday
