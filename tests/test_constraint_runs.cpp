// Runs of GROMACS systems with constraints on every backend: a peptide with h-bonds and
// repartitioned hydrogens at 4 fs, restarts that continue bit for bit, rigid SPC/E water in
// NVE on the GPU, and the bad input of constraints through the real executable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "engine/backends/BackendFactory.h"
#include "engine/config/LoadConfig.h"
#include "engine/run/Checkpoint.h"
#include "engine/run/Runaway.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/Integrator.h"
#include "tests/ConstraintTestSystems.h"
#include "tests/EngineTestSupport.h"
#include "tests/GromacsReference.h"
#include "tests/NveRuns.h"
#include "tests/PeptideRuns.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

class ConstraintRuns : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FARADAY_REQUIRE_BACKEND(GetParam()); }
};

/// 4 fs steps with h-bonds and 3 amu hydrogens (Amber's 3.024, rounded): 5 ps of Langevin
/// dynamics of the peptide stay on the constraints and within the runaway bounds, and the mean
/// temperature of the last 4 ps stays near the bath's (test_langevin_ensemble measures it
/// precisely).
TEST_P(ConstraintRuns, PeptideWithHBondsAndHeavyHydrogensIsStableAt4fs) {
  TempDir dir;
  writeText(dir / "sim.cfg", peptideConfig(0.004, 3, 1250));
  const Config config = loadConfig(dir / "sim.cfg", {"--run.platform=" + GetParam()});
  faraday::Setup setup = buildSetup(config);
  constrainInitialState(config, setup.system, setup.state, 300);
  auto backend = makeBackend(config, setup.system, nullptr);
  backend->setState(setup.state, {});
  backend->computeForces();
  const double dof = degreesOfFreedom(setup.system, IntegratorType::Langevin);
  double temperature = 0, worstLength = 0;
  int samples = 0;
  for (int s = 1; s <= 1250; ++s) {
    backend->advance(s % 10 == 0);
    if (s % 10 != 0) continue;
    ASSERT_LT(backend->nonFiniteParticle(), 0) << "step " << s;
    ASSERT_TRUE(std::isfinite(backend->energies().potential())) << "step " << s;
    if (s > 250) temperature += temperatureOf(dof, backend->kineticEnergy()), ++samples;
    if (s % 250 == 0) {
      State now;
      backend->getState(now);
      worstLength = std::max(worstLength, worstConstraintError(setup.system, now.positions));
      const auto runaway = findRunaway(setup.system, now, backend->forces(), config.integrator.dt);
      EXPECT_FALSE(runaway.has_value()) << "step " << s << ": " << runaway->reason;
    }
  }
  temperature /= samples;
  std::printf("[ info ] peptide at 4 fs, h-bonds, 3 amu hydrogens: mean T %.1f K over %g dof, worst length %.3g\n",
              temperature, dof, worstLength);
  EXPECT_LT(worstLength, config.integrator.constraintTolerance * tol::kConstraintLengthOverTolerance);
  EXPECT_GT(temperature, 300 * tol::kBaoabKineticTemperatureAt4fsLow);
  EXPECT_LT(temperature, 300 * tol::kBaoabKineticTemperatureAt4fsHigh);
}

/// A restart with constraints and repartitioned masses continues bit for bit.
TEST_P(ConstraintRuns, RestartWithConstraintsIsBitwiseTheUninterruptedRun) {
  TempDir dir;
  writeText(dir / "sim.cfg", peptideConfig(0.004, 3, 100));
  const auto run = [&](const std::string& out, long long steps, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps),
                                     "--run.platform=" + GetParam()};
    args.insert(args.end(), extra.begin(), extra.end());
    return runFaraday(dir.path(), args);
  };
  const CommandResult full = run("full", 100), half = run("split", 50);
  ASSERT_EQ(full.exitCode, 0) << full.err;
  ASSERT_EQ(half.exitCode, 0) << half.err;
  const CommandResult rest = run("split", 100, {"--restart", "split/state.chk"});
  ASSERT_EQ(rest.exitCode, 0) << rest.err;
  const Checkpoint a = readCheckpoint(dir / "full" / "state.chk", 151, ""), b = readCheckpoint(dir / "split" / "state.chk", 151, "");
  EXPECT_EQ(b.step, 100);
  ASSERT_EQ(a.positions.size(), b.positions.size());
  EXPECT_EQ(std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(std::memcmp(a.velocities.data(), b.velocities.data(), a.velocities.size() * sizeof(Vec3)), 0);
  EXPECT_EQ(readText(dir / "full" / "final.gro"), readText(dir / "split" / "final.gro"));
  // Other constraints or masses make another trajectory: such a restart is refused.
  const CommandResult other = run("other", 100, {"--restart", "split/state.chk", "--system.hydrogen_mass=2"});
  EXPECT_EQ(other.exitCode, 1);
  EXPECT_HAS(other.err, "system.hydrogen_mass");
}

/// A step the constraints cannot follow (Langevin noise of 1e7 K in one step) stops the run
/// at that step, naming the atoms, with the last good state saved; on the GPU the kernels flag
/// it in the step's status and the check at the step's report reads it.
TEST_P(ConstraintRuns, AConstraintThatCannotConvergeStopsTheRunNamingTheStepAndTheAtoms) {
  TempDir dir;
  writeText(dir / "sim.cfg", peptideConfig(0.002, 0, 100));
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--run.platform=" + GetParam(),
                                                  "--integrator.temperature=1e7", "--integrator.friction=1000",
                                                  "--output.energy_interval=1"});
  EXPECT_EQ(r.exitCode, 1);
  // One error line, the last (the setup's notes and warnings come before it).
  const std::string error = lines(r.err).back();
  EXPECT_EQ(error.rfind("faraday: error: constraints failed at step 1: the positions of atoms ", 0), 0u) << r.err;
  EXPECT_HAS(error, "(0-based indices) could not be constrained");
  EXPECT_HAS(error, "last good state (step 0) saved to ");
  EXPECT_EQ(r.err.find("faraday: error:"), r.err.rfind("faraday: error:")) << r.err;
  EXPECT_EQ(readCheckpoint(dir / "out" / "state.chk", 151, "").step, 0);
  EXPECT_FALSE(fs::exists(dir / "out" / "final.gro"));
}

INSTANTIATE_TEST_SUITE_P(Backends, ConstraintRuns, ::testing::ValuesIn(kBackendNames), backendTestName);

/// Hydrogens too heavy for their heavy atoms, or constraints without a topology: one line
/// naming the key and the atoms, exit 1, nothing written.
TEST(ConstraintRunsBadInput, HeavyHydrogensAndConstraintsWithoutATopology) {
  TempDir dir;
  writeText(dir / "sim.cfg", peptideConfig(0.004, 5, 10));
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--run.platform=cpu"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.err, "faraday: error: key 'system.hydrogen_mass': 5 amu leaves atom 0 (N, ASN 138) with 2.034 amu, "
                   "lighter than its hydrogen 3 (H3, ASN 138) (0-based indices); use a smaller hydrogen mass\n");
  EXPECT_FALSE(fs::exists(dir / "out"));
  writeText(dir / "argon.gro", argonGro(2));
  writeText(dir / "argon.cfg", argonConfig(10, 0.4));
  const CommandResult a = runFaraday(dir.path(), {"run", "argon.cfg", "--system.constraints=all-bonds"});
  EXPECT_EQ(a.exitCode, 1);
  EXPECT_HAS(a.err, "key 'system.constraints': all-bonds makes a topology's bonds rigid and needs one (system.topology)");
  EXPECT_EQ(lines(a.err).size(), 1u) << a.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

/// Rigid SPC/E water (884 molecules, SETTLE) in NVE with PME on the GPU: after 5 ps of Langevin
/// equilibration (the start is the minimised flexible water), 10 ps of velocity Verlet at 2 fs
/// drift by less than the bound. (The CPU backend takes ~60 ms a step for this box here: the
/// run would take twenty minutes; the CPU's NVE tests are the molecular liquid's.)
TEST(ConstraintRunsGpu, RigidSpceWaterConservesEnergy) {
  FARADAY_REQUIRE_GPU();
  const GromacsReference r = loadGromacsReference("spce_water");
  Config c = gromacsReferenceConfig(r, "cuda");
  c.system.defines = "";
  c.electrostatics.grid = {0, 0, 0};
  c.electrostatics.fourierSpacing = 0.12;
  c.integrator.dt = 0.002;
  const faraday::Setup setup = buildSetup(c);
  ASSERT_EQ(setup.system.topology.settles.size(), 884u);
  const double drift = nveDriftPerAtom(c, setup, 2500, 5000, 10);
  std::printf("[ info ] rigid SPC/E NVE on the GPU, 10 ps at 2 fs: drift %.3g kJ/mol/ps per atom\n", drift);
  EXPECT_LT(std::fabs(drift), tol::kRigidWaterNveDriftPerAtom);
}

}  // namespace
}  // namespace faraday::test
