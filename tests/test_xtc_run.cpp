// XTC in runs: the trajectory keys, `faraday run` writing an XTC that `rerun` and `map` read,
// and a restart that continues the file byte for byte.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "engine/config/ConfigHelp.h"
#include "engine/config/LoadConfig.h"
#include "engine/formats/DcdFile.h"
#include "engine/formats/XtcFile.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

// ---- configuration -----------------------------------------------------------------------

TEST(XtcConfig, TheFormatFollowsTheExtensionAndThePrecisionIsAKey) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(2));
  writeText(dir / "sim.cfg", argonConfig());
  const auto load = [&](const std::vector<std::string>& overrides) { return loadConfig(dir / "sim.cfg", overrides); };
  EXPECT_EQ(load({"--output.trajectory_file=t.XTC"}).output.trajectoryFile, "t.XTC");
  EXPECT_EQ(load({"--output.xtc_precision=100"}).output.xtcPrecision, 100.0);
  EXPECT_EQ(load({}).output.xtcPrecision, 1000.0);
  EXPECT_HAS(errorOf([&] { load({"--output.trajectory_file=traj.trr"}); }),
             "command line: key 'output.trajectory_file': unknown trajectory format '.trr' in traj.trr (expected .dcd or .xtc)");
  EXPECT_HAS(errorOf([&] { load({"--rerun.trajectory=t.nc"}); }), "key 'rerun.trajectory': unknown trajectory format '.nc'");
  EXPECT_HAS(errorOf([&] { load({"--map.trajectory=t"}); }), "key 'map.trajectory': unknown trajectory format ''");
  EXPECT_HAS(errorOf([&] { load({"--output.xtc_precision=0"}); }),
             "command line: key 'output.xtc_precision': must be > 0 1/nm (got 0)");
  // The precision key does nothing for a DCD: a warning says so.
  const auto warnings = [&](const std::vector<std::string>& overrides) {
    std::string all;
    for (const std::string& w : load(overrides).warnings) all += w + "\n";
    return all;
  };
  EXPECT_HAS(warnings({"--output.xtc_precision=100"}),
             "command line: key 'output.xtc_precision': has no effect with output.trajectory_file = \"traj.dcd\" (not .xtc)");
  EXPECT_EQ(warnings({"--output.xtc_precision=100", "--output.trajectory_file=traj.xtc"}), "");
  EXPECT_HAS(configHelp(), "output.xtc_precision");
  EXPECT_HAS(configHelp(), ".xtc (GROMACS XTC, nm)");
}

// ---- runs ------------------------------------------------------------------------------------

using XtcRun = ArgonFolderTest;

/// The same run written as DCD and as XTC: the XTC frames are the DCD's to the precision;
/// faraday rerun reads the steps and times of the XTC and gets the run's energies up to the
/// rounding, and faraday map averages it.
TEST_F(XtcRun, FaradayRunWritesAnXtcThatRerunAndMapRead) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=dcd"}).exitCode, 0);
  const CommandResult run =
      runFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=xtc", "--output.trajectory_file=traj.xtc"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  DcdReader dcd(dir / "dcd" / "traj.dcd", 108);
  XtcReader xtc(dir / "xtc" / "traj.xtc", 108);
  ASSERT_EQ(xtc.frames(), 3);
  ASSERT_EQ(dcd.frames(), 3);
  TrajectoryFrame a, b;
  for (long long f = 0; f < 3; ++f) {
    dcd.readFrame(f, a);
    xtc.readFrame(f, b);
    EXPECT_EQ(b.step, 10 * f);
    EXPECT_EQ(b.time, double(float(0.04 * double(f))));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.box.diagonal()[k], a.box.diagonal()[k], a.box.diagonal()[k] * tol::kFloat32Relative);
    double worst = 0;
    for (std::size_t i = 0; i < 108; ++i)
      for (int k = 0; k < 3; ++k)
        worst = std::max(worst, std::fabs(b.positions[i][k] - a.positions[i][k]) -
                                    std::fabs(a.positions[i][k]) * (tol::kFloat32Relative + tol::kXtcDoubleRounding));
    EXPECT_LE(worst, 0.5 / 1000) << "frame " << f;
    // The first frame is the .gro's, on the 0.001 nm grid already.
    if (f > 0) EXPECT_GT(worst, 0.0) << "frame " << f << ": the XTC is not rounded to 0.001 nm";
  }

  const CommandResult rerun = runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=xtc/traj.xtc"});
  ASSERT_EQ(rerun.exitCode, 0) << rerun.err;
  EXPECT_HAS(rerun.out, "rerun: 3 frame(s) x 108 atoms");
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 1), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 2), (std::vector<double>{0, 0.04, 0.08}));
  const std::vector<double> energies = csvColumn(dir / "out" / "rerun.csv", 3), expected = csvColumn(dir / "xtc" / "energy.csv", 2);
  ASSERT_EQ(energies.size(), expected.size());
  for (std::size_t f = 0; f < energies.size(); ++f)
    EXPECT_NEAR(energies[f], expected[f], tol::kXtcTrajectoryEnergy * std::fabs(expected[f])) << "frame " << f;

  const CommandResult map = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=xtc/traj.xtc", "--map.file=m.dx"});
  ASSERT_EQ(map.exitCode, 0) << map.err;
  EXPECT_HAS(map.out, "potential map: 3 frames x 108 atoms");
  writeText(dir / "small.gro", argonGro(2));
  const CommandResult wrong = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=xtc/traj.xtc",
                                                      "--system.coordinates=small.gro", "--nonbonded.cutoff=0.4"});
  EXPECT_EQ(wrong.exitCode, 1);
  EXPECT_HAS(wrong.err, (dir / "xtc" / "traj.xtc").string() + ": trajectory has 108 atoms, the system has 32");
}

/// A restart from a checkpoint drops the frames written after it (here a whole one and a
/// cut one, as a run killed while writing leaves them) and continues: the file is the
/// uninterrupted run's, byte for byte.
TEST_F(XtcRun, RestartContinuesAfterTheCheckpointStep) {
  const std::vector<std::string> xtc = {"--output.trajectory_file=traj.xtc", "--output.xtc_precision=10000"};
  const auto run = [&](const std::string& out, long long steps, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps)};
    args.insert(args.end(), xtc.begin(), xtc.end());
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
  };
  run("full", 40, {});
  run("split", 10, {});
  fs::copy_file(dir / "split" / "state.chk", dir / "step10.chk");
  run("split", 30, {"--restart", "step10.chk"});  // frames 0 .. 30
  const std::string written = readText(dir / "split" / "traj.xtc");
  writeText(dir / "split" / "traj.xtc", written.substr(0, written.size() - 100));  // frame 30 cut
  EXPECT_EQ(XtcReader(dir / "full" / "traj.xtc", 108).frames(), 5);
  run("split", 40, {"--restart", "step10.chk"});
  EXPECT_TRUE(readText(dir / "split" / "traj.xtc") == readText(dir / "full" / "traj.xtc"));
  EXPECT_EQ(XtcReader(dir / "split" / "traj.xtc", 108).frames(), 5);
}

}  // namespace
}  // namespace faraday::test
