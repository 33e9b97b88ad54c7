// The run log (output.log_file) through the real executable, and how idle OpenMP threads wait.
#include <gtest/gtest.h>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

using RunLogTest = ArgonFolderTest;

TEST_F(RunLogTest, RecordsCommandConfigurationSystemSetupWarningsAndTiming) {
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--output.trajectory_file=", "--output.trajectory_interval=5"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string log = readText(dir / "out" / "run.log");
  EXPECT_HAS(log, "Command line: faraday run sim.cfg --output.trajectory_file= --output.trajectory_interval=5\n");
  EXPECT_HAS(log, "Working folder: " + fs::absolute(dir.path()).string());
  EXPECT_HAS(log, "Warning: command line: key 'output.trajectory_interval': has no effect with no output.trajectory_file");
  EXPECT_HAS(log, "  nonbonded.cutoff = 0.7\n");
  EXPECT_HAS(log, "atoms: 108");
  EXPECT_HAS(log, "OpenMP: 1 threads (run.threads = 1)");
  EXPECT_HAS(log, "electrostatics: none");
  EXPECT_HAS(log, "Time per phase");
  EXPECT_HAS(log, "Performance: ");
  EXPECT_HAS(log, " ns/day (20 steps");
  // The console gets the same run output, without the file-only lines.
  EXPECT_HAS(r.out, "Time per phase");
  EXPECT_EQ(r.out.find("Command line:"), std::string::npos);
  EXPECT_HAS(r.err, "faraday: warning: command line: key 'output.trajectory_interval'");
}

/// An [atom.NAME] section that no atom of the coordinate file uses gets a warning naming the
/// section and the file, on stderr and in the run log; rerun and map warn the same way.
TEST_F(RunLogTest, AnAtomSectionNoAtomUsesIsWarnedAbout) {
  writeText(dir / "sim.cfg", argonConfig() + "\n[atom.XE]\nmass = 131.29\ncharge = 0\nsigma = 0.4\nepsilon = 1.8\n");
  const std::string warning = "[atom.XE]: no atom of " + (dir / "argon.gro").string() + " is named XE; the section has no effect";
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.err, "faraday: warning: " + warning + "\n");
  EXPECT_HAS(readText(dir / "out" / "run.log"), "Warning: " + warning + "\n");
  EXPECT_HAS(runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run"}).err, "faraday: warning: " + warning);
  EXPECT_HAS(runFaraday(dir.path(), {"rerun", "sim.cfg"}).err, "faraday: warning: " + warning);
  EXPECT_HAS(runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--dry-run"}).err,
             "faraday: warning: " + warning);
  // Without the section, no warning.
  writeText(dir / "sim.cfg", argonConfig());
  EXPECT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run"}).err.find("warning"), std::string::npos);
}

TEST_F(RunLogTest, ARestartAppendsAndAnErrorIsRecorded) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=40", "--restart", "out/state.chk"}).exitCode, 0);
  std::string log = readText(dir / "out" / "run.log");
  EXPECT_HAS(log, "---- restart ----\nfaraday ");
  EXPECT_HAS(log, "Restart from step 20");
  EXPECT_NE(log.find("Time per phase"), log.rfind("Time per phase"));  // both runs
  // dt = 0.08 ps blows up after a few steps: the error that stops the run is the log's last line.
  const CommandResult bad = runFaraday(dir.path(), {"run", "sim.cfg", "--integrator.dt=0.08", "--run.steps=1000",
                                                    "--output.energy_interval=1", "--output.directory=bad"});
  EXPECT_EQ(bad.exitCode, 1);
  log = readText(dir / "bad" / "run.log");
  ASSERT_FALSE(lines(log).empty());
  EXPECT_EQ(lines(log).back().rfind("faraday: error: runaway", 0), 0u) << log;
}

TEST_F(RunLogTest, NoLogWhenTurnedOffOrOnADryRun) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--output.log_file="}).exitCode, 0);
  EXPECT_FALSE(fs::exists(dir / "out" / "run.log"));
  EXPECT_TRUE(fs::exists(dir / "out" / "state.chk"));
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--dry-run", "--output.directory=dry"}).exitCode, 0);
  EXPECT_FALSE(fs::exists(dir / "dry"));
}

/// Unless the user chose, idle OpenMP threads spin only briefly before they sleep (a
/// busy machine otherwise loses the cores to waiting threads); the run says how they wait.
TEST_F(RunLogTest, IdleOpenMpThreadsSpinBrieflyUnlessTheUserChose) {
  const std::string faraday = shellQuote(faradayExecutable());
  const std::string cd = "cd " + shellQuote(dir.path().string()) + " && env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT ";
  ASSERT_EQ(std::system((cd + faraday + " run sim.cfg --dry-run > plain.out 2>&1").c_str()), 0);
  EXPECT_HAS(readText(dir / "plain.out"), "idle threads wait: GOMP_SPINCOUNT=10000\n");
  ASSERT_EQ(std::system((cd + "OMP_WAIT_POLICY=passive " + faraday + " run sim.cfg --dry-run > chosen.out 2>&1").c_str()), 0);
  EXPECT_HAS(readText(dir / "chosen.out"), "idle threads wait: OMP_WAIT_POLICY=passive\n");
}

}  // namespace
}  // namespace faraday::test
