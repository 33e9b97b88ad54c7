// `faraday map` through the real executable: its output folder and file, progress and timing,
// a failed write, an interrupt.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstdio>

#include "engine/formats/CoordinateFile.h"
#include "engine/formats/DcdFile.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

using MapCommandTest = ArgonFolderTest;

/// faraday map creates its output folder as faraday run does.
TEST_F(MapCommandTest, CreatesTheOutputFolder) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);  // out/traj.dcd, 3 frames
  ASSERT_FALSE(fs::exists(dir / "maps"));
  const CommandResult ok = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd",
                                                   "--map.file=m.dx", "--output.directory=maps/new"});
  ASSERT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir / "maps" / "new" / "m.dx"));
}

/// An unwritable map.file fails before the first frame is read (no progress line, though
/// one is due after every frame), naming the key and the file.
TEST_F(MapCommandTest, UnwritableMapFileFailsBeforeAnyFrame) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  // /sys takes no new files, not even from root.
  const CommandResult denied = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd",
                                                       "--map.file=/sys/m.dx", "--run.progress_interval=1e-9"});
  EXPECT_EQ(denied.exitCode, 1);
  EXPECT_HAS(denied.err, "faraday: error: key 'map.file': /sys/m.dx: cannot be written: Permission denied");
  EXPECT_EQ(denied.err.find("frame"), std::string::npos) << denied.err;
  EXPECT_EQ(denied.out.find("Time per phase"), std::string::npos) << denied.out;
}

/// Progress lines (frames done / total, frames per second, time remaining) every
/// run.progress_interval seconds, none with 0; the time per phase at the end.
TEST_F(MapCommandTest, PrintsProgressAndTheTimePerPhase) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  const CommandResult r = runFaraday(
      dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.file=m.dx", "--run.progress_interval=1e-9"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.err, "frame 1/3");
  EXPECT_HAS(r.err, "frame 3/3");
  EXPECT_HAS(r.err, "frames/s  remaining 0:00:00");
  EXPECT_HAS(r.out, "Time per phase");
  EXPECT_HAS(r.out, "\nread ");
  EXPECT_HAS(r.out, "\noutput ");
  EXPECT_HAS(r.out, "total (wall)");
  EXPECT_HAS(r.out, "potential map: 3 frames x 108 atoms");
  const CommandResult quiet = runFaraday(
      dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.file=m.dx", "--run.progress_interval=0"});
  ASSERT_EQ(quiet.exitCode, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("frames/s"), std::string::npos) << quiet.err;
}

/// Runs `faraday ARGS` in `folder` with every file it writes limited to `bytes`
/// (RLIMIT_FSIZE, SIGXFSZ ignored): a write beyond that fails with EFBIG, as on a full disk.
CommandResult runWithFileSizeLimit(const fs::path& folder, const std::vector<std::string>& args, rlim_t bytes) {
  const pid_t pid = startFaraday(folder, args, [bytes] {
    ::signal(SIGXFSZ, SIG_IGN);
    const struct rlimit limit {bytes, bytes};
    ::setrlimit(RLIMIT_FSIZE, &limit);
  });
  CommandResult r;
  r.exitCode = waitFor(pid, 120);
  r.out = readText(folder / "faraday.out");
  r.err = readText(folder / "faraday.err");
  return r;
}

/// A map that does not fit on the disk: the error says why, and neither the map nor its
/// temporary file stays (for .dx and .mrc alike).
TEST_F(MapCommandTest, AFailedWriteLeavesNoTemporaryFile) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  for (const char* file : {"m.dx", "m.mrc"}) {
    // 35^3 points: 690 kB of DX text, 172 kB of MRC floats, both beyond 64 kB.
    const CommandResult r = runWithFileSizeLimit(
        dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.spacing=0.05", "--map.file=" + std::string(file),
                     "--output.directory=maps"},
        64 * 1024);
    EXPECT_EQ(r.exitCode, 1) << file;
    EXPECT_HAS(r.err, "faraday: error: " + (dir / "maps" / file).string() + ": write failed: File too large");
    EXPECT_FALSE(fs::exists(dir / "maps" / file));
    EXPECT_FALSE(fs::exists(dir / "maps" / (std::string(file) + ".tmp"))) << file;
  }
}

/// SIGTERM stops the map after the current frame; the map written is the average of the
/// frames done, the file says so, and the exit code is 143.
TEST_F(MapCommandTest, AnInterruptWritesTheAverageOfTheFramesDone) {
  {
    DcdWriter w(dir / "long.dcd", 108, 0, 10, 0.004);
    Coordinates c = readCoordinates(dir / "argon.gro");
    for (int f = 0; f < 3000; ++f) w.writeFrame(c.positions, c.box);
  }
  const pid_t pid = startFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=long.dcd", "--map.spacing=0.04",
                                              "--map.file=m.dx", "--atom.AR.charge=0.1", "--run.progress_interval=1e-9"});
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(waitUntil([&] { return readText(dir / "faraday.err").find("frame 3/3000") != std::string::npos; }));
  ::kill(pid, SIGTERM);
  const int code = waitFor(pid, 60);
  const std::string err = readText(dir / "faraday.err");
  EXPECT_EQ(code, 143) << err;
  long long done = 0;
  const std::size_t at = err.find("faraday: interrupted after ");
  ASSERT_NE(at, std::string::npos) << err;
  std::sscanf(err.c_str() + at, "faraday: interrupted after %lld of 3000 frames", &done);
  EXPECT_GE(done, 3);
  EXPECT_LT(done, 3000);
  EXPECT_HAS(err, (dir / "out" / "m.dx").string() + " is the average of the " + std::to_string(done) + " frame(s) mapped");
  EXPECT_HAS(readText(dir / "out" / "m.dx"), "average of " + std::to_string(done) + " frames");
  EXPECT_FALSE(fs::exists(dir / "out" / "m.dx.tmp"));
}

}  // namespace
}  // namespace faraday::test
