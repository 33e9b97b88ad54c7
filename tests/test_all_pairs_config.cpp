// The all-pairs and typed-force keys: loading, help and warnings, the symmetric typed table,
// a restart that continues bit for bit, bad input through the executable, and the examples
// (systems/plummer in virial equilibrium, every example through the dry run).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "engine/config/ConfigHelp.h"
#include "engine/config/LoadConfig.h"
#include "engine/config/KernelParams.h"
#include "engine/formats/CoordinateFile.h"
#include "engine/run/Checkpoint.h"
#include "engine/setup/SystemSetup.h"
#include "integrators/InitialVelocities.h"
#include "kernels/nbody/AllPairs.h"
#include "tests/AllPairsTestSupport.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

// ---- Configuration -------------------------------------------------------------------------------

class AllPairsConfig : public ::testing::Test {
 protected:
  fs::path write(const std::string& text) {
    writeText(dir / "sim.cfg", text);
    return dir / "sim.cfg";
  }
  TempDir dir;
};

TEST_F(AllPairsConfig, KeysLoadAndAppearInHelpAndEffective) {
  const Config c = loadConfig(write(gravityConfig()), {});
  EXPECT_TRUE(c.nonbonded.allPairs());
  EXPECT_EQ(choiceText(c.nonbonded.potential), "gravity");
  EXPECT_DOUBLE_EQ(c.gravity.g, 2e-6);
  EXPECT_DOUBLE_EQ(c.gravity.softening, 0.01);
  const Config defaults = loadConfig(write(argonConfig()), {});
  EXPECT_EQ(choiceText(defaults.nonbonded.mode), "cutoff");
  EXPECT_EQ(choiceText(defaults.nonbonded.potential), "lj-coulomb");
  EXPECT_DOUBLE_EQ(defaults.nonbonded.typedRmin, 0.01);
  const std::string help = configHelp();
  for (const char* key : {"nonbonded.mode", "nonbonded.potential", "nonbonded.typed_rmin", "gravity.g", "gravity.softening",
                          "typed.A-B.c1", "typed.A-B.c3"})
    EXPECT_HAS(help, key);
  std::map<std::string, std::string> effective(c.effective.begin(), c.effective.end());
  EXPECT_EQ(effective["nonbonded.mode"], "all-pairs");
  EXPECT_EQ(effective["gravity.softening"], "0.01");
}

TEST_F(AllPairsConfig, CutoffModeKeysWarnThatTheyHaveNoEffect) {
  const std::string text = gravityConfig();
  const fs::path file = write(text);
  const Config c = loadConfig(file, {"--electrostatics.method=pme", "--nonbonded.typed_rmin=0.02"});
  const std::string why = "has no effect with nonbonded.mode = all-pairs";
  ASSERT_EQ(c.warnings.size(), 4u);
  EXPECT_EQ(c.warnings[0], file.string() + ":" + std::to_string(lineOf(text, "cutoff =")) + ": key 'nonbonded.cutoff': " + why +
                               " (open boundaries, no cutoff, no electrostatics)");
  EXPECT_HAS(c.warnings[1], "key 'nonbonded.buffer': " + why);
  EXPECT_EQ(c.warnings[2], "command line: key 'nonbonded.typed_rmin': has no effect with nonbonded.potential = gravity");
  EXPECT_HAS(c.warnings[3], "command line: key 'electrostatics.method': " + why);
  // The typed sections and gravity's keys outside their potential.
  const Config lj = loadConfig(write(argonConfig() + "[gravity]\ng = 3\n[typed.AR-AR]\nc1 = 0\nc2 = 0.3\nc3 = 12\n"), {});
  ASSERT_EQ(lj.warnings.size(), 4u);
  EXPECT_HAS(lj.warnings[0], "key 'gravity.g': has no effect with nonbonded.potential = lj-coulomb");
  EXPECT_HAS(lj.warnings[1], "key 'typed.AR-AR.c1': has no effect with nonbonded.potential = lj-coulomb");
}

TEST_F(AllPairsConfig, TypedTableIsSymmetric) {
  const std::string types = "[atom.NE]\nmass = 20.18\ncharge = 0\nsigma = 0.28\nepsilon = 0.3\n";
  const std::string ab = "[typed.AR-NE]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  std::string same = argonConfig() + types + ab + "[typed.NE-AR]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  const Config c = loadConfig(write(same + "[nonbonded]\npotential = typed\n"), {});
  ASSERT_EQ(c.typedPairs.size(), 1u);
  EXPECT_EQ(c.typedPairs[0].a + "-" + c.typedPairs[0].b, "AR-NE");
  const std::string differ = argonConfig() + types + ab + "[typed.NE-AR]\nc1 = 6\nc2 = 0.3\nc3 = 12\n";
  const fs::path file = write(differ);
  const std::string msg = errorOf([&] { loadConfig(file, {}); });
  EXPECT_HAS(msg, file.string() + ":" + std::to_string(lineOf(differ, "c1 = 6")));
  EXPECT_HAS(msg, "[typed.NE-AR] differs from [typed.AR-NE]: the table is symmetric");
  const std::string unknown = argonConfig() + "[typed.AR-XE]\nc1 = 5\nc2 = 0.3\nc3 = 12\n";
  EXPECT_HAS(errorOf([&] { loadConfig(write(unknown), {}); }), "[typed.AR-XE] does not name two atom types as A-B (known: AR)");
}

/// A restarted all-pairs run continues bit for bit (its checkpoint holds no list reference),
/// and the box of the coordinate file stays as it was.
TEST(AllPairsRun, RestartContinuesBitwise) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", gravityConfig());
  const auto run = [&dir](const std::string& out, int steps, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps)};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
  };
  run("full", 20);
  run("split", 10);
  const Checkpoint middle = readCheckpoint(dir / "split" / "state.chk", 108, "");
  run("split", 20, {"--restart", "split/state.chk"});
  const Checkpoint a = readCheckpoint(dir / "full" / "state.chk", 108, "");
  const Checkpoint b = readCheckpoint(dir / "split" / "state.chk", 108, "");
  EXPECT_EQ(a.step, 20);
  EXPECT_EQ(b.step, 20);
  EXPECT_TRUE(a.listReference.empty());
  ASSERT_EQ(a.positions.size(), b.positions.size());
  bool moved = false;
  for (std::size_t i = 0; i < a.positions.size(); ++i) {
    ASSERT_TRUE(a.positions[i] == b.positions[i] && a.velocities[i] == b.velocities[i]) << i;
    moved |= !(a.positions[i] == middle.positions[i]);
  }
  EXPECT_TRUE(moved) << "the comparison is not of two copies of the input";
  EXPECT_TRUE(a.box.diagonal() == readCoordinates(dir / "argon.gro").box.diagonal()) << "the coordinate file's box, carried along";
  EXPECT_EQ(readText(dir / "full" / "final.gro"), readText(dir / "split" / "final.gro"));
}

// ---- Bad input through the executable -------------------------------------------------------------

/// `faraday run sim.cfg` with argon.gro (108 atoms, one type AR): exit code 1, one error line
/// holding every one of `expected`, nothing written.
void expectRunError(const std::string& config, const std::vector<std::string>& expected) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writeText(dir / "sim.cfg", config);
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_EQ(r.err.rfind("faraday: error: ", 0), 0u) << r.err;
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out")) << "an output was created";
  for (const std::string& part : expected) EXPECT_HAS(r.err, part);
}

std::string typedConfig(const std::string& typedSection) {
  std::string text = argonConfig();
  text.replace(text.find("[electrostatics]"), 16, "[nonbonded]\npotential = typed\n[electrostatics]");
  return text + typedSection;
}

TEST(AllPairsBadInput, MissingTypedSection) {
  expectRunError(typedConfig(""), {"no [typed.AR-AR] section", "every pair of atom types", "argon.gro"});
}

TEST(AllPairsBadInput, TypedExponentNotAboveTwo) {
  const std::string text = typedConfig("[typed.AR-AR]\nc1 = 0\nc2 = 0.3\nc3 = 2\n");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "c3 = 2")) + ": key 'typed.AR-AR.c3': must be > 2"});
}

TEST(AllPairsBadInput, SofteningNotPositiveOrMissing) {
  std::string text = gravityConfig();
  text.replace(text.find("softening = 0.01"), 16, "softening = 0");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "softening = 0")) + ": key 'gravity.softening': must be > 0"});
  text.replace(text.find("softening = 0"), 13, "");
  expectRunError(text, {"key 'gravity.softening': required key is missing"});
}

TEST(AllPairsBadInput, LangevinWithAllPairs) {
  std::string text = gravityConfig();
  text.replace(text.find("type = verlet"), 13, "type = langevin");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "type = langevin")) + ": key 'integrator.type'",
                        "all-pairs runs with integrator.type = verlet only"});
}

TEST(AllPairsBadInput, GravityInCutoffMode) {
  std::string text = gravityConfig();
  text.replace(text.find("mode = all-pairs\n"), 17, "");
  expectRunError(text, {"sim.cfg:" + std::to_string(lineOf(text, "potential = gravity")) + ": key 'nonbonded.potential'",
                        "gravity needs nonbonded.mode = all-pairs"});
}

TEST(AllPairsBadInput, AllPairsWithLjCoulombOrAMap) {
  std::string text = gravityConfig();
  text.replace(text.find("potential = gravity\n"), 20, "");
  expectRunError(text, {"key 'nonbonded.mode': all-pairs needs nonbonded.potential = gravity or typed"});
  expectRunError(gravityConfig() + "[map]\nspacing = 0.2\n", {"potential maps need nonbonded.mode = cutoff"});
}

// ---- The examples -------------------------------------------------------------------------------

/// systems/plummer is written in virial equilibrium: 2 K = -W with W the softened virial
/// sum r_ij . F_ij, to the precision of the .gro's decimals.
TEST(AllPairsExamples, PlummerIsInVirialEquilibrium) {
  const Config c = loadConfig(fs::path(sourceDir()) / "systems" / "plummer" / "sim.cfg", {"--run.threads=1"});
  const faraday::Setup s = buildSetup(c);
  ASSERT_TRUE(s.velocitiesFromFile);
  std::vector<Vec3> f;
  const AllPairsResult r = allPairsForces(s.state.positions, s.system.mass, s.system.type, allPairsParams(c, s.system), f, 0);
  const double kinetic = kineticEnergy(s.system, s.state.velocities);
  EXPECT_NEAR(2 * kinetic / -r.virial.trace(), 1.0, tol::kGroVirialRatio);
  Vec3 momentum;
  double sumMomenta = 0;
  for (std::size_t i = 0; i < s.system.size(); ++i) {
    momentum += s.state.velocities[i] * s.system.mass[i];
    sumMomenta += std::sqrt(norm2(s.state.velocities[i])) * s.system.mass[i];
  }
  EXPECT_LT(std::sqrt(norm2(momentum)), tol::kGroVirialRatio * sumMomenta) << "centre of mass at rest";
}

TEST(AllPairsExamples, ExamplesPassTheDryRun) {
  for (const char* example : {"plummer", "collision", "typed"}) {
    TempDir dir;
    const std::string cfg = (fs::path(sourceDir()) / "systems" / example / "sim.cfg").string();
    const CommandResult r = runFaraday(dir.path(), {"run", cfg, "--dry-run"});
    EXPECT_EQ(r.exitCode, 0) << example << ": " << r.err;
    EXPECT_TRUE(r.err.empty()) << example << ": " << r.err;  // no warnings either
    EXPECT_HAS(r.out, "Dry run: configuration and input are valid");
  }
}

}  // namespace
}  // namespace faraday::test
