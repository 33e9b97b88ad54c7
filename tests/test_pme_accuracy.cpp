// Settings whose estimated PME force error is far beyond ewald_rtol (a coarse grid, a huge
// fourier_spacing, a tiny cutoff that makes beta huge) are errors naming the keys and the
// estimate, for run, rerun and map alike, unless electrostatics.accept_force_error says the
// user knows.
#include <gtest/gtest.h>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

class PmeAccuracyTest : public ::testing::Test {
 protected:
  /// `faraday COMMAND` on the NaCl crystal (1728 ions, 3.384 nm box), outputs into the temp folder.
  CommandResult crystal(const std::string& command, std::vector<std::string> extra) {
    std::vector<std::string> args = {command, sourceDir() + "/systems/nacl_crystal/sim.cfg",
                                     "--output.directory=" + (dir / "out").string(), "--run.platform=cpu",
                                     "--run.threads=1", "--run.progress_interval=0"};
    args.insert(args.end(), extra.begin(), extra.end());
    return runFaraday(dir.path(), args);
  }
  /// The command failed with one line naming the keys and the estimate, and wrote nothing.
  void expectRefused(const CommandResult& r, const std::string& what, const std::string& key) {
    EXPECT_NE(r.exitCode, 0);
    EXPECT_HAS(r.err, "faraday: error: " + what + ": estimated relative force error ");
    EXPECT_HAS(r.err, key);
    EXPECT_HAS(r.err, "electrostatics.pme_order = 4");
    EXPECT_HAS(r.err, "set electrostatics.accept_force_error = true to run anyway");
    EXPECT_EQ(lineOf(r.err, "faraday: error: "), long(lines(r.err).size())) << "the error is the last line: " << r.err;
    EXPECT_FALSE(fs::exists(dir / "out" / "energy.csv"));
  }
  TempDir dir;
};

TEST_F(PmeAccuracyTest, ACoarseGridIsRefusedNamingItsKey) {
  const CommandResult r = crystal("run", {"--electrostatics.grid=4 4 4", "--run.steps=5"});
  expectRefused(r, "electrostatics.method = pme", "the grid 4 x 4 x 4 (electrostatics.grid;");
}

TEST_F(PmeAccuracyTest, AHugeFourierSpacingIsRefused) {
  const CommandResult r = crystal("run", {"--electrostatics.fourier_spacing=100", "--run.steps=5"});
  expectRefused(r, "electrostatics.method = pme", "electrostatics.fourier_spacing = 100;");
}

TEST_F(PmeAccuracyTest, ATinyCutoffIsRefusedNamingIt) {
  const CommandResult r = crystal("run", {"--nonbonded.cutoff=0.01", "--run.steps=5"});
  expectRefused(r, "electrostatics.method = pme", "from nonbonded.cutoff = 0.01 and electrostatics.ewald_rtol = 1e-05");
}

TEST_F(PmeAccuracyTest, TheDefaultsRunAndTheKeyAcceptsAnEstimateKnowingly) {
  const CommandResult ok = crystal("run", {"--dry-run"});
  EXPECT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_EQ(ok.err.find("estimated relative force error"), std::string::npos) << ok.err;
  const CommandResult accepted =
      crystal("run", {"--dry-run", "--electrostatics.fourier_spacing=100", "--electrostatics.accept_force_error=true"});
  EXPECT_EQ(accepted.exitCode, 0) << accepted.err;
  EXPECT_HAS(accepted.err, "faraday: warning: electrostatics.method = pme: estimated relative force error ");
  EXPECT_HAS(accepted.err, "run anyway (electrostatics.accept_force_error = true)");
}

TEST_F(PmeAccuracyTest, RerunAndMapCheckTheirPmeToo) {
  expectRefused(crystal("rerun", {"--electrostatics.fourier_spacing=100"}), "electrostatics.method = pme",
                "electrostatics.fourier_spacing = 100;");
  ASSERT_EQ(crystal("run", {"--run.steps=0"}).exitCode, 0);  // out/traj.dcd, one frame
  fs::remove(dir / "out" / "energy.csv");
  const std::string trajectory = "--map.trajectory=" + (dir / "out" / "traj.dcd").string();
  for (const char* method : {"pme", "pmepot"}) {
    const CommandResult r = crystal("map", {trajectory, std::string("--map.method=") + method,
                                            "--map.file=" + (dir / "out" / "map.dx").string(),
                                            "--electrostatics.fourier_spacing=100"});
    expectRefused(r, std::string("map.method = ") + method, "electrostatics.fourier_spacing = 100;");
    EXPECT_FALSE(fs::exists(dir / "out" / "map.dx"));
  }
  const CommandResult pmepot = crystal("map", {trajectory, "--map.method=pmepot", "--map.ewald_factor=40",
                                               "--map.file=" + (dir / "out" / "map.dx").string()});
  expectRefused(pmepot, "map.method = pmepot", "(map.ewald_factor = 40)");
}

}  // namespace
}  // namespace faraday::test
