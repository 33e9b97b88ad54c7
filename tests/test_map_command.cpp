// `faraday map` through the real executable: its output folder and file.
#include <gtest/gtest.h>

#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

using MapCommandTest = ArgonFolderTest;

/// faraday map creates its output folder as faraday run does, and finds an unwritable
/// map.file before it reads the frames.
TEST_F(MapCommandTest, CreatesTheOutputFolderAndChecksTheMapFileFirst) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);  // out/traj.dcd, 3 frames
  const CommandResult ok = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd",
                                                   "--map.file=m.dx", "--output.directory=maps/new"});
  ASSERT_EQ(ok.exitCode, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir / "maps" / "new" / "m.dx"));
  // /sys takes no new files, not even from root.
  const CommandResult denied =
      runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=out/traj.dcd", "--map.file=/sys/m.dx"});
  EXPECT_EQ(denied.exitCode, 1);
  EXPECT_HAS(denied.err, "faraday: error: /sys/m.dx: cannot be written: Permission denied");
}

}  // namespace
}  // namespace faraday::test
