// Ensembles of Langevin runs with bond constraints on every backend: the mean kinetic
// temperature of the vacuum peptide (h-bonds at 1, 2 and 4 fs with 1.5 and 3 amu hydrogens,
// all-bonds at 2 fs) and of the solvated peptide at 4 fs is the bath's, and so is that of a
// liquid of constrained methyl groups whose stiff H-C-H angles read 20% cold in BAOAB's
// on-step velocities at 4 fs; velocity Verlet with h-bonds conserves the vacuum peptide's energy
// at 1 and 2 fs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "tests/BackendTestSystems.h"
#include "tests/ConstraintTestSystems.h"
#include "tests/GromacsReference.h"
#include "tests/PeptideRuns.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// One system and its constraints, time step and hydrogen mass.
struct EnsembleCase {
  const char* name;
  bool solvated;  ///< the OPLS-AA peptide in rigid TIP3P, else the vacuum peptide
  const char* constraints;
  double dt, hydrogenMass;  ///< ps; amu (0: as they are)
};

const EnsembleCase kCases[] = {
    {"HBonds1fsH15", false, "h-bonds", 0.001, 1.5}, {"HBonds2fsH15", false, "h-bonds", 0.002, 1.5},
    {"HBonds4fsH15", false, "h-bonds", 0.004, 1.5}, {"HBonds1fsH3", false, "h-bonds", 0.001, 3.0},
    {"HBonds2fsH3", false, "h-bonds", 0.002, 3.0},   {"HBonds4fsH3", false, "h-bonds", 0.004, 3.0},
    {"AllBonds2fs", false, "all-bonds", 0.002, 0.0}, {"Solvated4fsH15", true, "h-bonds", 0.004, 1.5},
};

/// The configuration of `c` on `platform`: Langevin at 300 K, friction 1/ps, PME at 1 nm.
Config ensembleConfig(const EnsembleCase& c, const std::string& platform, const fs::path& dir) {
  std::string text = peptideConfig(c.dt, c.hydrogenMass, 1);
  if (c.solvated) {
    const std::string folder = gromacsSystemFolder("peptide_oplsaa_tip3p");
    text = "[system]\ncoordinates = " + folder + "/conf.gro\ntopology = " + folder +
           "/topol.top\nconstraints = h-bonds\nhydrogen_mass = 1.5\ntemperature = 300\n" +
           text.substr(text.find("[nonbonded]"));
  }
  writeText(dir / "sim.cfg", text);
  return loadConfig(dir / "sim.cfg", {"--run.platform=" + platform, "--system.constraints=" + std::string(c.constraints),
                                      "--integrator.seed=2026"});
}

/// Sampled time (ps) after the relaxation from the minimised start (discardPs: the vacuum
/// peptide's potential energy falls by ~200 kJ/mol over tens of ps), per backend. The vacuum
/// peptide's 376 to 388 degrees of freedom fluctuate by 22 K a sample and forget in about 1 ps
/// (1 ns gave standard errors of 0.63-0.71 K), the solvated peptide's 8,700 by 4.6 K: the GPU
/// runs 400 ps and 100 ps (errors near 1 K and 0.3 K), the CPU 40 ps and 20 ps (near 3 K and
/// 0.6 K, within CI's time: the solvated peptide takes ~0.15 s a step on one core; 8 ps read
/// 298.07 +- 0.50 K, too few independent blocks to trust).
double sampledPs(const EnsembleCase& c, const std::string& platform) {
  if (platform == "cuda") return c.solvated ? 100.0 : 400.0;
  return c.solvated ? 20.0 : 40.0;
}

/// The relaxation left out (ps): the solvated peptide's is over within a few ps.
double discardPs(const EnsembleCase& c, const std::string& platform) {
  if (platform == "cuda") return c.solvated ? 20.0 : 50.0;
  return c.solvated ? 4.0 : 10.0;
}

/// Blocks of at least 1 ps, longer than the kinetic temperature's memory (the thermostat's
/// 1/(2 friction) = 0.5 ps, and the potential energy's exchange with it): 8 ps of the solvated
/// peptide on the CPU in 20 blocks of 0.4 ps gave an error of 0.43 K, in 8 blocks of 1 ps 0.50 K,
/// where 24 ps in blocks of 1.2 ps gave 0.76 K: blocks that short understate it.
int blocksOf(double sampledPs) { return std::min(20, int(sampledPs / 1.0)); }

class StiffModes : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// 216 methyl groups (C-H constrained, as h-bonds makes them) with harmonic H-C-H angles of
/// 300 kJ/mol/rad^2 (an AMBER H-C-H angle's stiffness: w dt = 0.9 at 4 fs, so that those modes'
/// on-step velocities read (1 - (w dt / 2)^2) = 0.8 of the bath, a third of the degrees of
/// freedom). The temperature the run reports, of the midpoint velocities, is the bath's to
/// 0.5%; the on-step velocities' is several kelvin low, which shows what the case tells apart.
TEST_P(StiffModes, ConstrainedStarsWithStiffAnglesReadTheBathsTemperature) {
  BuiltSystem b = moleculeLiquid(MoleculeMix{0, 0, 216, 0, 0}, 0.5, 5);
  const double tetrahedral = std::acos(-1.0 / 3.0);
  for (const Molecule& m : b.system.topology.molecules)
    for (int h = 1; h < 4; ++h)
      b.system.topology.angles.push_back({m.first + h, m.first, m.first + (h % 3) + 1, tetrahedral, 300.0});
  Config c = moleculeConfig(GetParam(), "langevin", 0.004);
  c.integrator.temperature = 300;
  c.integrator.friction = 5;
  c.integrator.seed = 5;
  auto backend = makeBackend(c, b.system, nullptr);
  backend->setState(constrainedStart(c, b, 300, 9), {});
  backend->computeForces();
  for (int s = 0; s < 1000; ++s) backend->advance(false);
  const double dof = degreesOfFreedom(b.system, IntegratorType::Langevin);
  std::vector<double> reported, onStep;
  for (int s = 1; s <= 10000; ++s) {
    backend->advance(s % 5 == 0);
    if (s % 5 != 0) continue;
    reported.push_back(temperatureOf(dof, backend->kineticEnergy()));
    State now;
    backend->getState(now);
    onStep.push_back(temperatureOf(dof, kineticEnergy(b.system, now.velocities)));
  }
  const BlockAverage t = blockAverage(reported, 20), o = blockAverage(onStep, 20);
  std::printf("[ info ] methyls with stiff angles at 4 fs on %s: reported <T> %.2f +- %.2f K, on-step %.2f +- %.2f K "
              "over %.0f dof\n", GetParam().c_str(), t.mean, t.error, o.mean, o.error, dof);
  std::fflush(stdout);  // a run cut short by a time limit keeps the lines of the cases done
  EXPECT_LT(t.error, tol::kEnsembleStiffTemperatureError * 300);
  EXPECT_NEAR(t.mean, 300.0, tol::kStatisticalSigmas * t.error);
  EXPECT_GT(300.0 - o.mean, 2 * tol::kStatisticalSigmas * o.error);
}

INSTANTIATE_TEST_SUITE_P(Backends, StiffModes, ::testing::ValuesIn(kBackendNames), backendTestName);

class LangevinEnsemble : public ::testing::TestWithParam<std::tuple<std::string, int>> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(std::get<0>(GetParam())); }
};

/// The mean kinetic temperature as the run reports it is the bath's within
/// tol::kStatisticalSigmas standard errors (20 block averages), and the error is small enough
/// to see the on-step velocities' deficit (kEnsembleTemperatureErrorGpu, ...Cpu).
TEST_P(LangevinEnsemble, MeanKineticTemperatureIsTheBaths) {
  const auto& [platform, index] = GetParam();
  const EnsembleCase& c = kCases[index];
  TempDir dir;
  const Config config = ensembleConfig(c, platform, dir.path());
  const long long discard = (long long)std::llround(discardPs(c, platform) / c.dt);
  const long long steps = (long long)std::llround(sampledPs(c, platform) / c.dt);
  const EnsembleSample e = sampleEnsemble(config, discard, steps, 10, blocksOf(sampledPs(c, platform)));
  std::printf("[ info ] %s on %s: <T> %.2f +- %.2f K over %.0f dof, <U> %.2f +- %.2f kJ/mol (%lld steps)\n", c.name,
              platform.c_str(), e.temperature.mean, e.temperature.error, e.degreesOfFreedom, e.potential.mean,
              e.potential.error, steps);
  std::fflush(stdout);
  EXPECT_LT(e.temperature.error,
            platform == "cuda" ? tol::kEnsembleTemperatureErrorGpu : tol::kEnsembleTemperatureErrorCpu);
  EXPECT_NEAR(e.temperature.mean, 300.0, tol::kStatisticalSigmas * e.temperature.error);
}

std::string ensembleName(const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  return std::get<0>(info.param) + "_" + kCases[std::get<1>(info.param)].name;
}

INSTANTIATE_TEST_SUITE_P(Cases, LangevinEnsemble,
                         ::testing::Combine(::testing::ValuesIn(kBackendNames),
                                            ::testing::Range(0, int(std::size(kCases)))),
                         ensembleName);

/// The configurational side of the 4 fs ensemble: the vacuum peptide's mean potential energy is
/// OpenMM's (tests/data/gromacs/peptide_amber_vacuum/openmm_langevin_4fs.json, LangevinMiddle on
/// the same topology, 12 runs of 250 ps after 50 ps, made by tools/langevin_ensemble.py). Faraday
/// runs with OpenMM's nonbonded terms (LJ and Coulomb not shifted, dispersion correction, PME of
/// order 5: the energies at the given coordinates agree to 0.002 kJ/mol) and the same protocol.
/// The peptide changes shape over hundreds of ps, so runs' means scatter by tens of kJ/mol and the
/// error is that of the mean of the runs' means.
TEST(PeptidePotentialEnergy, MeanAt4fsIsOpenMMs) {
  FARADAY_REQUIRE_BACKEND("cuda");
  const std::string json = readText(fs::path(gromacsSystemFolder("peptide_amber_vacuum")) / "openmm_langevin_4fs.json");
  using gromacs_reference_detail::numberField;
  const double reference = numberField(json, "potential_kJ_mol");
  const double referenceError = numberField(json, "potential_error_kJ_mol");
  const int replicas = int(numberField(json, "replicas"));
  const double discardPs = numberField(json, "discard_ps"), sampledPs = numberField(json, "sampled_ps_per_replica");
  std::vector<double> means;
  for (int k = 0; k < replicas; ++k) {
    TempDir dir;
    writeText(dir / "sim.cfg", peptideConfig(0.004, 1.5, 1));
    const std::string seed = std::to_string(2026 + k);
    const Config config = loadConfig(
        dir / "sim.cfg", {"--run.platform=cuda", "--integrator.seed=" + seed, "--system.velocity_seed=" + seed,
                          "--nonbonded.lj_shift=false", "--nonbonded.coulomb_modifier=none",
                          "--nonbonded.dispersion_correction=true", "--electrostatics.pme_order=5"});
    means.push_back(sampleEnsemble(config, std::llround(discardPs / 0.004), std::llround(sampledPs / 0.004), 10)
                        .potential.mean);
  }
  const BlockAverage u = blockAverage(means, replicas);
  const double sigmas = (u.mean - reference) / std::hypot(u.error, referenceError);
  std::printf("[ info ] vacuum peptide at 4 fs on cuda: <U> %.2f +- %.2f kJ/mol over %d runs, OpenMM %.2f +- %.2f "
              "(%+.2f combined errors)\n", u.mean, u.error, replicas, reference, referenceError, sigmas);
  std::fflush(stdout);
  EXPECT_LT(u.error, tol::kPeptidePotentialError);
  EXPECT_LT(std::fabs(sigmas), tol::kStatisticalSigmas);
}

class ConstrainedNve : public ::testing::TestWithParam<std::tuple<std::string, double>> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(std::get<0>(GetParam())); }
};

/// Velocity Verlet (RATTLE) of the vacuum peptide with h-bonds (1.5 amu hydrogens) from 300 K
/// velocities: after 10 ps (the peptide relaxes from its minimised start, releasing ~200 kJ/mol
/// of potential energy, and the energy errors of that relaxation scale as dt^2: -0.4 kJ/mol/ps
/// at 2 fs over the first 10 ps on the CPU), the total energy's drift per atom stays below
/// tol::kPeptideNveDriftPerAtom over 10 ps on the CPU and 100 ps on the GPU.
TEST_P(ConstrainedNve, PeptideWithHBondsConservesEnergy) {
  const auto& [platform, dt] = GetParam();
  TempDir dir;
  writeText(dir / "sim.cfg", peptideConfig(dt, 1.5, 1));
  const Config config = loadConfig(dir / "sim.cfg", {"--run.platform=" + platform, "--integrator.type=verlet"});
  faraday::Setup setup = buildSetup(config);
  constrainInitialState(config, setup.system, setup.state, 300);
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  backend->computeForces();
  for (long long s = 0; s < std::llround(10.0 / dt); ++s) backend->advance(false);
  const long long steps = std::llround((platform == "cuda" ? 100.0 : 10.0) / dt);
  std::vector<double> total;
  for (long long s = 1; s <= steps; ++s) {
    backend->advance(s % 10 == 0);
    if (s % 10 == 0) total.push_back(backend->energies().potential() + backend->kineticEnergy());
  }
  const double drift = slope(total) / (10 * dt) / double(setup.system.size());
  std::printf("[ info ] peptide NVE with h-bonds at %g fs on %s: drift %.3g kJ/mol/ps per atom over %g ps\n", dt * 1e3,
              platform.c_str(), drift, double(steps) * dt);
  std::fflush(stdout);
  EXPECT_LT(std::fabs(drift), tol::kPeptideNveDriftPerAtom);
}

std::string nveName(const ::testing::TestParamInfo<std::tuple<std::string, double>>& info) {
  return std::get<0>(info.param) + "_" + std::to_string(int(std::lround(std::get<1>(info.param) * 1e3))) + "fs";
}

INSTANTIATE_TEST_SUITE_P(Steps, ConstrainedNve,
                         ::testing::Combine(::testing::ValuesIn(kBackendNames), ::testing::Values(0.001, 0.002)),
                         nveName);

}  // namespace
}  // namespace faraday::test
