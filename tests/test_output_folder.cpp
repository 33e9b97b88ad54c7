// The output folder: one faraday process at a time writes into it (a lock that a killed
// process does not leave blocking), and a new run keeps the results it would replace as
// numbered backups #NAME.N#, as GROMACS does.
#include <gtest/gtest.h>

#include <unistd.h>

#include "engine/output/OutputFolder.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// The number of fields of every line of a CSV file, one entry per line.
std::vector<std::size_t> fieldCounts(const fs::path& file) {
  std::vector<std::size_t> counts;
  for (const std::string& line : lines(readText(file))) counts.push_back(std::size_t(std::count(line.begin(), line.end(), ',')) + 1);
  return counts;
}

TEST(OutputLock, ASecondHolderIsRefusedNamingTheFolderAndTheHolder) {
  TempDir dir;
  const fs::path folder = dir / "out";
  {
    const OutputLock first(folder, "faraday run", "output.directory");
    EXPECT_TRUE(first.note().empty()) << first.note();
    EXPECT_HAS(readText(folder / "faraday.lock"), "pid " + std::to_string(::getpid()) + " on ");
    // flock(2) locks belong to the open file: a second open in this process conflicts too.
    const std::string e = errorOf([&] { OutputLock second(folder, "faraday rerun", "output.directory"); });
    EXPECT_HAS(e, "key 'output.directory': " + folder.string() + " is in use by another faraday process (pid " +
                      std::to_string(::getpid()));
    EXPECT_HAS(e, "faraday run; lock " + (folder / "faraday.lock").string());
  }
  EXPECT_FALSE(fs::exists(folder / "faraday.lock")) << "the lock file stays after its holder ended";
  const OutputLock again(folder, "faraday map", "map.file");
  EXPECT_TRUE(again.note().empty());
}

/// A lock file whose holder is gone (no flock on it) is taken over, and the note says whose it was.
TEST(OutputLock, AStaleLockFileIsTakenOver) {
  TempDir dir;
  fs::create_directories(dir / "out");
  writeText(dir / "out" / "faraday.lock", "pid 4194000 on elsewhere, since 2020-01-01 00:00:00, faraday run\n");
  const OutputLock lock(dir / "out", "faraday run", "output.directory");
  EXPECT_HAS(lock.note(), "took over the lock " + (dir / "out" / "faraday.lock").string() +
                              " left by pid 4194000 on elsewhere, since 2020-01-01 00:00:00, faraday run");
  EXPECT_HAS(readText(dir / "out" / "faraday.lock"), "pid " + std::to_string(::getpid()));
}

/// The folders the lock created go with it when nothing was written into them; a folder
/// that holds an output stays.
TEST(OutputLock, FoldersItCreatedGoWhenEmpty) {
  TempDir dir;
  { const OutputLock lock(dir / "a" / "b", "faraday run", "output.directory"); }
  EXPECT_FALSE(fs::exists(dir / "a"));
  {
    const OutputLock lock(dir / "a" / "b", "faraday run", "output.directory");
    writeText(dir / "a" / "b" / "energy.csv", "x\n");
  }
  EXPECT_TRUE(fs::exists(dir / "a" / "b" / "energy.csv"));
  EXPECT_FALSE(fs::exists(dir / "a" / "b" / "faraday.lock"));
  writeText(dir / "file", "");
  EXPECT_HAS(errorOf([&] { OutputLock lock(dir / "file" / "sub", "faraday run", "output.directory"); }),
             "key 'output.directory': cannot create " + (dir / "file" / "sub").string());
}

TEST(Backups, NumberUpAsGromacsDoesAndLeaveDevicesAlone) {
  TempDir dir;
  writeText(dir / "energy.csv", "first\n");
  EXPECT_EQ(backUpFile(dir / "energy.csv"), dir / "#energy.csv.1#");
  writeText(dir / "energy.csv", "second\n");
  EXPECT_EQ(backUpFiles({dir / "energy.csv", dir / "missing.dcd"}),
            std::vector<std::string>{"backed up " + (dir / "energy.csv").string() + " to " + (dir / "#energy.csv.2#").string()});
  EXPECT_FALSE(fs::exists(dir / "energy.csv"));
  EXPECT_EQ(readText(dir / "#energy.csv.1#"), "first\n");
  EXPECT_EQ(readText(dir / "#energy.csv.2#"), "second\n");
  EXPECT_TRUE(backUpFile(dir / "missing.dcd").empty());
  EXPECT_TRUE(backUpFile("/dev/null").empty());
  EXPECT_TRUE(fs::exists("/dev/null"));
  for (int n = 3; n <= 99; ++n) writeText(dir / ("#energy.csv." + std::to_string(n) + "#"), "");
  writeText(dir / "energy.csv", "third\n");
  EXPECT_HAS(errorOf([&] { backUpFile(dir / "energy.csv"); }), "energy.csv: cannot back it up: 99 backups");
  EXPECT_EQ(readText(dir / "energy.csv"), "third\n");
}

TEST(Backups, EachCommandBacksUpTheFilesItWrites) {
  Config config;
  config.output.directory = "/o";
  config.output.forcesFile = "f.npy";
  config.map.enabled = true;
  const auto names = [](const std::vector<fs::path>& files) {
    std::vector<std::string> v;
    for (const fs::path& f : files) v.push_back(f.filename().string());
    return v;
  };
  EXPECT_EQ(names(commandOutputs(config, Command::Run)),
            (std::vector<std::string>{"energy.csv", "traj.dcd", "final.gro", "state.chk", "state.chk.prev", "run.log",
                                      "f.npy", "potential.dx"}));
  EXPECT_EQ(names(commandOutputs(config, Command::Rerun)), (std::vector<std::string>{"f.npy", "rerun.csv"}));
  EXPECT_EQ(names(commandOutputs(config, Command::Map)), std::vector<std::string>{"potential.dx"});
}

using OutputFolderTest = ArgonFolderTest;

/// Two runs into one folder: the second is refused at once, naming the folder and the first
/// run, and writes nothing; the first one's files stay whole.
TEST_F(OutputFolderTest, ASecondRunIntoTheSameFolderIsRefused) {
  const pid_t first = startFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=100000000", "--output.energy_interval=1"});
  ASSERT_GT(first, 0);
  ASSERT_TRUE(waitUntil([&] { return lines(readText(dir / "out" / "energy.csv")).size() >= 3; }));
  const std::string holder = readText(dir / "out" / "faraday.lock");
  EXPECT_HAS(holder, "pid " + std::to_string(first) + " on ");
  fs::create_directories(dir / "second");
  const CommandResult second = runFaraday(dir / "second", {"run", "../sim.cfg", "--integrator.seed=2"});
  EXPECT_EQ(second.exitCode, 1);
  EXPECT_EQ(lines(second.err).size(), 1u) << second.err;
  EXPECT_HAS(second.err, "faraday: error: key 'output.directory': " + (dir / "out").string() + " is in use by another "
                         "faraday process (pid " + std::to_string(first) + " on ");
  ::kill(first, SIGTERM);
  EXPECT_EQ(waitFor(first, 60), 143);
  const std::vector<std::size_t> fields = fieldCounts(dir / "out" / "energy.csv");
  ASSERT_GE(fields.size(), 3u);
  for (std::size_t row = 0; row < fields.size(); ++row) EXPECT_EQ(fields[row], fields[0]) << "line " << row + 1;
  EXPECT_FALSE(fs::exists(dir / "out" / "#energy.csv.1#"));
  EXPECT_FALSE(fs::exists(dir / "out" / "faraday.lock"));
}

/// A run killed with SIGKILL leaves its lock file behind, but no lock: the next run takes it
/// over and says so.
TEST_F(OutputFolderTest, AKilledRunDoesNotBlockTheNextOne) {
  const pid_t killed = startFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=100000000", "--output.energy_interval=1"});
  ASSERT_GT(killed, 0);
  ASSERT_TRUE(waitUntil([&] { return lines(readText(dir / "out" / "energy.csv")).size() >= 3; }));
  ::kill(killed, SIGKILL);
  EXPECT_EQ(waitFor(killed, 60), -1);  // killed by the signal
  ASSERT_TRUE(fs::exists(dir / "out" / "faraday.lock"));
  const CommandResult next = runFaraday(dir.path(), {"run", "sim.cfg"});
  ASSERT_EQ(next.exitCode, 0) << next.err;
  EXPECT_HAS(next.err, "faraday: note: took over the lock " + (dir / "out" / "faraday.lock").string() + " left by pid " +
                           std::to_string(killed) + " on ");
  EXPECT_FALSE(fs::exists(dir / "out" / "faraday.lock"));
}

/// A new run over a finished one keeps every file it replaces as #NAME.1#, then #NAME.2#, and
/// says so on stderr and in its run log.
TEST_F(OutputFolderTest, ANewRunBacksUpTheResultsItWouldReplace) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=40"}).exitCode, 0);
  std::map<std::string, std::string> finished;
  for (const char* name : {"energy.csv", "traj.dcd", "final.gro", "state.chk", "run.log"})
    finished[name] = readText(dir / "out" / name);
  const CommandResult shorter = runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=20"});
  ASSERT_EQ(shorter.exitCode, 0) << shorter.err;
  for (const auto& [name, content] : finished) {
    const fs::path backup = dir / "out" / ("#" + name + ".1#");
    EXPECT_EQ(readText(backup), content) << name;
    EXPECT_HAS(shorter.err, "faraday: note: backed up " + (dir / "out" / name).string() + " to " + backup.string());
    EXPECT_HAS(readText(dir / "out" / "run.log"), "Note: backed up " + (dir / "out" / name).string());
  }
  EXPECT_EQ(csvColumn(dir / "out" / "#energy.csv.1#", 0), (std::vector<double>{0, 10, 20, 30, 40}));
  EXPECT_EQ(csvColumn(dir / "out" / "energy.csv", 0), (std::vector<double>{0, 10, 20}));
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=10"}).exitCode, 0);
  EXPECT_EQ(csvColumn(dir / "out" / "#energy.csv.2#", 0), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(csvColumn(dir / "out" / "#energy.csv.1#", 0), (std::vector<double>{0, 10, 20, 30, 40}));
}

/// rerun and map keep their earlier results the same way, once the new ones are complete.
TEST_F(OutputFolderTest, RerunAndMapBackUpTheirEarlierResults) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  const std::vector<std::string> rerun = {"rerun", "sim.cfg", "--rerun.trajectory=out/traj.dcd",
                                          "--output.forces_file=f.npy", "--output.directory=rr"};
  ASSERT_EQ(runFaraday(dir.path(), rerun).exitCode, 0);
  const std::string csv = readText(dir / "rr" / "rerun.csv"), npy = readText(dir / "rr" / "f.npy");
  const CommandResult again = runFaraday(dir.path(), rerun);
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(readText(dir / "rr" / "#rerun.csv.1#"), csv);
  EXPECT_EQ(readText(dir / "rr" / "#f.npy.1#"), npy);
  EXPECT_HAS(again.err, "faraday: note: backed up " + (dir / "rr" / "rerun.csv").string());
  const std::vector<std::string> map = {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.file=m.dx",
                                        "--output.directory=maps"};
  ASSERT_EQ(runFaraday(dir.path(), map).exitCode, 0);
  const std::string dx = readText(dir / "maps" / "m.dx");
  const CommandResult mapAgain = runFaraday(dir.path(), map);
  ASSERT_EQ(mapAgain.exitCode, 0) << mapAgain.err;
  EXPECT_EQ(readText(dir / "maps" / "#m.dx.1#"), dx);
  EXPECT_HAS(mapAgain.err, "faraday: note: backed up " + (dir / "maps" / "m.dx").string());
}

}  // namespace
}  // namespace faraday::test
