// `faraday map` through the real executable: its output folder and file, progress and timing.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace faraday::test
