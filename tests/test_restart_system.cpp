// A restart continues the system its checkpoint was written for, or refuses: another water
// model with the same atom count, a changed charge, LJ epsilon or bond constant, and a
// dropped -DFLEXIBLE are refused naming what differs, before anything is written.
#include <gtest/gtest.h>

#include <cstdlib>

#include "engine/run/SystemFingerprint.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// 510 flexible waters of tools/build_water.py in `folder` (conf.gro, topol.top, sim.cfg).
void buildWater(const fs::path& folder, const std::string& model) {
  const std::string command = "python3 " + shellQuote(sourceDir() + "/tools/build_water.py") +
                              " --copies 1 1 1 --model " + model + " --out " + shellQuote(folder.string()) + " > /dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
}

/// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class RestartSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("python3 -c 'import numpy' > /dev/null 2>&1") != 0)
      GTEST_SKIP() << "no python3 with numpy for tools/build_water.py";
    buildWater(dir / "tip3p", "tip3p");
    if (HasFatalFailure()) return;
    const CommandResult r = run("tip3p", {});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    checkpoint = (dir / "out" / "state.chk").string();
    ASSERT_TRUE(fs::exists(checkpoint));
    energyLog = readText(dir / "out" / "energy.csv");
  }
  /// `faraday run FOLDER/sim.cfg` into dir/out (on the CPU) for 4 steps, 8 with `--restart` in `extra`.
  CommandResult run(const std::string& folder, std::vector<std::string> extra) {
    const bool restart = std::find(extra.begin(), extra.end(), "--restart") != extra.end();
    std::vector<std::string> args = {"run", (dir / folder / "sim.cfg").string(), restart ? "--run.steps=8" : "--run.steps=4",
                                     "--output.directory=" + (dir / "out").string(), "--run.platform=cpu",
                                     "--run.threads=1", "--run.progress_interval=0", "--output.energy_interval=2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runFaraday(dir.path(), args);
  }
  /// A restart from the checkpoint that must be refused with `message`, the outputs untouched.
  void expectRefused(const std::string& folder, std::vector<std::string> extra, const std::string& message) {
    extra.insert(extra.end(), {"--restart", checkpoint});
    const CommandResult r = run(folder, extra);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_HAS(r.err, "faraday: error: " + checkpoint + ": checkpoint was written for a different system");
    EXPECT_HAS(r.err, message);
    EXPECT_EQ(readText(dir / "out" / "energy.csv"), energyLog) << "the energy log changed";
  }
  /// A copy of the TIP3P folder as `name` with its topology's texts changed (from, to).
  void variant(const std::string& name, const std::vector<std::pair<std::string, std::string>>& changes) {
    fs::create_directories(dir / name);
    for (const char* f : {"conf.gro", "sim.cfg"}) fs::copy_file(dir / "tip3p" / f, dir / name / f);
    std::string top = readText(dir / "tip3p" / "topol.top");
    for (const auto& [from, to] : changes) top = replaced(top, from, to);
    writeText(dir / name / "topol.top", top);
  }
  TempDir dir;
  std::string checkpoint, energyLog;
};

TEST_F(RestartSystemTest, AnotherWaterModelIsRefused) {
  buildWater(dir / "spce", "spce");
  expectRefused("spce", {}, " of atom 0 (OW, 0-based) is ");
}

TEST_F(RestartSystemTest, AChangedChargeEpsilonOrBondConstantIsRefused) {
  variant("charge", {{"OW    1     -0.8340", "OW    1     -0.8350"}, {"HW1   1     0.4170", "HW1   1     0.4180"}});
  expectRefused("charge", {}, "the charge of atom 0 (OW, 0-based) is -0.834 e in the checkpoint, -0.835 e now");
  variant("epsilon", {{"0.315061    0.636386", "0.315061    0.65"}});
  expectRefused("epsilon", {}, "the LJ parameters of atom 0 (OW, 0-based)");
  variant("bond", {{"1  2  1      0.09572      502416.0", "1  2  1      0.09572      400000.0"}});
  expectRefused("bond", {}, "the harmonic bond of atoms 0 (OW) and 1 (HW1), 0-based (harmonic bond 0 of the system) differs");
}

TEST_F(RestartSystemTest, DroppingFlexibleIsRefusedForThatReason) {
  expectRefused("tip3p", {"--system.defines="}, "");
  const CommandResult r = run("tip3p", {"--system.defines=", "--restart", checkpoint});
  EXPECT_HAS(r.err, "system.defines=-DFLEXIBLE in the checkpoint (not in this run)");
  EXPECT_EQ(r.err.find("energy log"), std::string::npos) << r.err;
}

TEST_F(RestartSystemTest, TheSameSystemStillContinues) {
  const CommandResult r = run("tip3p", {"--restart", checkpoint});
  EXPECT_EQ(r.exitCode, 0) << r.err;
}

/// The fingerprint's sections name the first difference of each kind of term.
TEST(SystemFingerprint, NamesTheFirstDifferingTerm) {
  System s;
  s.types = {{"A", 1, 0, 0.3, 0.5}};
  s.type = {0, 0, 0};
  s.charge = {0.1, -0.2, 0.1};
  s.mass = {1, 2, 3};
  s.atomName = {"A1", "A2", "A3"};
  s.topology.angles = {{0, 1, 2, 1.9, 300}};
  s.topology.constraints = {{0, 1, 0.1}};
  const SystemFingerprint saved = systemFingerprint(s);
  EXPECT_EQ(fingerprintDifference(saved, systemFingerprint(s), s), "");
  System t = s;
  t.topology.angles[0].kTheta = 301;
  EXPECT_HAS(fingerprintDifference(saved, systemFingerprint(t), t), "the angle of atoms 0 (A1), 1 (A2) and 2 (A3), 0-based");
  t = s;
  t.topology.constraints.clear();
  EXPECT_HAS(fingerprintDifference(saved, systemFingerprint(t), t),
             "the checkpoint's system has 1 constraint item(s), this one 0");
  t = s;
  t.topology.exclusionOffsets = {0, 1, 2, 2};
  t.topology.exclusions = {1, 0};
  EXPECT_HAS(fingerprintDifference(saved, systemFingerprint(t), t), "has 0 exclusion item(s), this one 1");
}

}  // namespace
}  // namespace faraday::test
