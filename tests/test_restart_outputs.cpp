// What a restart does to the outputs it continues: it must not start beyond run.steps, nor
// continue a trajectory that ends before the checkpoint, and the energy log it keeps has
// complete rows only. Every refusal happens before anything is written.
#include <gtest/gtest.h>

#include "engine/formats/DcdFile.h"
#include "engine/formats/XtcFile.h"
#include "engine/run/EnergyLog.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

using RestartOutputsTest = ArgonFolderTest;

/// Every file of `folder` with its content.
std::map<std::string, std::string> contentsOf(const fs::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::directory_iterator(folder)) files[entry.path().filename().string()] = readText(entry.path());
  return files;
}

/// A 40-step run with a checkpoint every 10 steps (state.chk at 40, state.chk.prev at 30),
/// restarted from step 30 with run.steps = 20: refused naming run.steps, by a dry run too,
/// and the finished run's files are untouched.
TEST_F(RestartOutputsTest, ARestartBeyondRunStepsIsRefusedNamingTheKey) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=40", "--output.checkpoint_interval=10"}).exitCode, 0);
  const auto before = contentsOf(dir / "out");
  for (const char* dry : {"--dry-run", ""}) {
    std::vector<std::string> args = {"run", "sim.cfg", "--run.steps=20", "--restart", "out/state.chk.prev"};
    if (*dry) args.push_back(dry);
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_HAS(r.err, "faraday: error: key 'run.steps': 20 is before the checkpoint's step 30");
    EXPECT_EQ(contentsOf(dir / "out"), before);
  }
  // Up to the checkpoint's step itself is allowed: nothing is left to run.
  EXPECT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=30", "--restart", "out/state.chk.prev", "--dry-run"}).exitCode, 0);
}

/// The checkpoint of a 60-step run continued into the folder of a 20-step run: its trajectory
/// ends 40 steps before the checkpoint, and the restart is refused, changing nothing.
TEST_F(RestartOutputsTest, ATrajectoryEndingBeforeTheCheckpointIsRefused) {
  for (const char* format : {"dcd", "xtc"}) {
    SCOPED_TRACE(format);
    const std::string trajectory = std::string("--output.trajectory_file=traj.") + format;
    ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", trajectory, "--output.directory=short"}).exitCode, 0);
    ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", trajectory, "--run.steps=60", "--output.directory=long"}).exitCode, 0);
    const auto before = contentsOf(dir / "short");
    const CommandResult r = runFaraday(
        dir.path(), {"run", "sim.cfg", trajectory, "--run.steps=80", "--output.directory=short", "--restart", "long/state.chk"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
    EXPECT_HAS(r.err, "faraday: error: " + (dir / "short" / ("traj." + std::string(format))).string() +
                          ": trajectory ends at step 20 (3 frames), before the restart step 60");
    EXPECT_EQ(contentsOf(dir / "short"), before);
    fs::remove_all(dir / "short");
    fs::remove_all(dir / "long");
  }
}

/// The writers refuse the same gap, and keep the frames up to the step otherwise.
TEST(TrajectoryAppend, AGapBeforeTheRestartStepIsAnError) {
  TempDir dir;
  const Box box = Box::rectangular(2, 2, 2);
  {
    DcdWriter dcd(dir / "t.dcd", 4, 0, 10, 0.002);
    XtcWriter xtc(dir / "t.xtc", 4, 1000);
    for (int f = 0; f < 3; ++f) {
      dcd.writeFrame(std::vector<Vec3>(4, Vec3{double(f), 0, 0}), box);
      xtc.writeFrame(std::vector<Vec3>(4, Vec3{double(f), 0, 0}), box, 10 * f, 0.02 * f);
    }
  }
  EXPECT_EQ(DcdWriter::framesToKeep(dir / "t.dcd", 4, 10, 29), 3);
  EXPECT_EQ(XtcWriter::framesToKeep(dir / "t.xtc", 4, 10, 29), 3);
  EXPECT_EQ(DcdWriter::framesToKeep(dir / "t.dcd", 4, 10, 15), 2);
  const auto size = fs::file_size(dir / "t.dcd");
  EXPECT_HAS(errorOf([&] { DcdWriter::append(dir / "t.dcd", 4, 10, 30); }),
             "t.dcd: trajectory ends at step 20 (3 frames), before the restart step 30");
  EXPECT_HAS(errorOf([&] { XtcWriter::append(dir / "t.xtc", 4, 10, 30, 1000); }),
             "t.xtc: trajectory ends at step 20 (3 frames), before the restart step 30");
  EXPECT_EQ(fs::file_size(dir / "t.dcd"), size);
  EXPECT_EQ(DcdReader(dir / "t.dcd").frames(), 3);
}

/// A run stopped while writing a row (here: a row cut to "52"): the restart drops the cut row
/// and says so, and every row it keeps and writes has all the columns.
TEST_F(RestartOutputsTest, ARestartDropsACutOffEnergyRow) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  std::ofstream(dir / "out" / "energy.csv", std::ios::app) << "52";
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=40", "--restart", "out/state.chk"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.err, "faraday: note: " + (dir / "out" / "energy.csv").string() +
                        ":5: an incomplete row (cut off when the run stopped); the restart drops it");
  const std::vector<std::string> rows = lines(readText(dir / "out" / "energy.csv"));
  ASSERT_EQ(rows.size(), 6u);
  const auto fields = [](const std::string& row) { return std::count(row.begin(), row.end(), ',') + 1; };
  for (const std::string& row : rows) EXPECT_EQ(fields(row), fields(rows[0])) << row;
  EXPECT_EQ(csvColumn(dir / "out" / "energy.csv", 0), (std::vector<double>{0, 10, 20, 30, 40}));
}

TEST(EnergyLogContinuation, KeepsCompleteRowsUpToTheStepAndRefusesOtherColumns) {
  TempDir dir;
  const std::string header = EnergyLog::header();
  const std::string row10 = "10" + std::string(std::size_t(std::count(header.begin(), header.end(), ',')), ',');
  std::string row20 = row10;
  row20.replace(0, 2, "20");
  writeText(dir / "e.csv", header + "\n" + row10 + "\n" + "15,1,2\n" + row20 + "\n" + row20.substr(0, 6));
  const EnergyLogContinuation c = energyLogContinuation(dir / "e.csv", 20, {});
  EXPECT_EQ(c.kept, (std::vector<std::string>{header, row10, row20}));
  EXPECT_EQ(c.dropped, (std::vector<long>{3, 5}));
  EXPECT_EQ(energyLogContinuation(dir / "e.csv", 10, {}).kept.size(), 2u);
  writeText(dir / "cut.csv", header.substr(0, 9));  // stopped while writing the header
  EXPECT_TRUE(energyLogContinuation(dir / "cut.csv", 10, {}).kept.empty());
  writeText(dir / "other.csv", "#\"Step\",\"Time (ps)\"\n0,0\n");
  EXPECT_HAS(errorOf([&] { energyLogContinuation(dir / "other.csv", 10, {}); }),
             (dir / "other.csv").string() + ":1: not an energy log with the columns this run writes");
}

}  // namespace
}  // namespace faraday::test
