// Outputs that are devices or FIFOs (/dev/null out of habit, a pipe to another program) are
// written through: never renamed over, never backed up, never replaced by a plain file. The
// devices are mknod copies of /dev/null and /dev/full in a temporary folder.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "engine/formats/AtomicFile.h"
#include "engine/formats/NpyFile.h"
#include "tests/EngineTestSupport.h"

namespace faraday::test {
namespace {

/// A character device like /dev/null (1, 3) or /dev/full (1, 7) at `file`; false when this
/// process may not make device nodes.
bool makeDevice(const fs::path& file, unsigned minor) {
  return ::mknod(file.c_str(), S_IFCHR | 0666, ::makedev(1, minor)) == 0;
}

bool isCharacterDevice(const fs::path& file) {
  struct stat s {};
  return ::lstat(file.c_str(), &s) == 0 && S_ISCHR(s.st_mode);
}

/// The names in `folder`, sorted, one per line.
std::string listing(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return joinLines(names);
}

class SpecialOutputTest : public ArgonFolderTest {
 protected:
  void SetUp() override {
    ArgonFolderTest::SetUp();
    fs::create_directories(dev);
    if (!makeDevice(dev / "null", 3) || !makeDevice(dev / "full", 7) || !makeDevice(dev / "null.dx", 3) ||
        !makeDevice(dev / "null.mrc", 3))
      GTEST_SKIP() << "mknod is not permitted here (" << std::strerror(errno) << "): no device files to test with";
  }
  /// Every device is still a device, and nothing else appeared beside them.
  void expectDevicesIntact() {
    for (const char* name : {"null", "full", "null.dx", "null.mrc"})
      EXPECT_TRUE(isCharacterDevice(dev / name)) << name << " is no longer a character device";
    EXPECT_EQ(listing(dev), "full\nnull\nnull.dx\nnull.mrc\n");
  }
  fs::path dev = dir / "dev";
};

TEST_F(SpecialOutputTest, WritingThroughADeviceKeepsItADevice) {
  const fs::path null = dev / "null";
  writeFileAtomically(null, "first", /*keepPrevious=*/true);
  writeFileAtomically(null, "second", /*keepPrevious=*/true);
  checkWritable(null);
  AtomicFileWriter writer(null);
  EXPECT_TRUE(writer.writesThrough());
  writer.out() << "x";
  writer.commit();
  expectDevicesIntact();
  const std::string e = errorOf([&] { writeFileAtomically(dev / "full", std::string(100000, 'x')); });
  EXPECT_HAS(e, (dev / "full").string() + ": write failed: No space left on device");
  expectDevicesIntact();
}

/// A symbolic link to a device is written through too; one to a regular file is replaced
/// atomically as before.
TEST_F(SpecialOutputTest, SymbolicLinksFollowTheirTarget) {
  fs::create_symlink(dev / "null", dir / "to_null");
  writeFileAtomically(dir / "to_null", "x", true);
  EXPECT_TRUE(fs::is_symlink(dir / "to_null"));
  EXPECT_FALSE(fs::exists(dir / "to_null.prev"));
  writeText(dir / "real.txt", "old");
  fs::create_symlink(dir / "real.txt", dir / "to_real");
  writeFileAtomically(dir / "to_real", "new", true);
  EXPECT_EQ(readText(dir / "to_real"), "new");
  EXPECT_TRUE(fs::exists(fs::symlink_status(dir / "to_real.prev")));
  expectDevicesIntact();
}

TEST_F(SpecialOutputTest, RunOutputsIntoDevicesLeaveThemDevices) {
  const std::string null = (dev / "null").string();
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--output.final_coordinates=" + null,
                                                  "--output.checkpoint_file=" + null, "--output.forces_file=" + null,
                                                  "--map.method=direct", "--map.spacing=0.5", "--map.interval=10",
                                                  "--map.file=" + (dev / "null.dx").string()});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  expectDevicesIntact();
  const CommandResult mrc = runFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=out2", "--map.method=direct",
                                                    "--map.spacing=0.5", "--map.interval=10",
                                                    "--map.file=" + (dev / "null.mrc").string()});
  EXPECT_EQ(mrc.exitCode, 0) << mrc.err;
  expectDevicesIntact();
}

TEST_F(SpecialOutputTest, AFullDeviceIsAnErrorNamingItAndStaysADevice) {
  const std::string full = (dev / "full").string();
  const CommandResult r = runFaraday(dir.path(), {"run", "sim.cfg", "--output.forces_file=" + full});
  EXPECT_NE(r.exitCode, 0);
  EXPECT_HAS(r.err, full + ": write failed: No space left on device");
  expectDevicesIntact();
}

TEST_F(SpecialOutputTest, RerunOutputsIntoDevicesLeaveThemDevices) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);
  const std::string null = (dev / "null").string();
  const CommandResult r = runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=out/traj.dcd",
                                                  "--rerun.energy_file=" + null, "--output.forces_file=" + null});
  EXPECT_EQ(r.exitCode, 0) << r.err;
  expectDevicesIntact();
}

/// A FIFO with a reader gets the whole file; one without a reader is an error at once, not a
/// hang, and stays a FIFO.
TEST(SpecialOutput, AFifoIsWrittenThroughOrRefusedWithoutAReader) {
  TempDir dir;
  const fs::path fifo = dir / "forces.npy";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0) << std::strerror(errno);
  const std::string e = errorOf([&] { NpyFramesWriter w(fifo, 2, 3); });
  EXPECT_HAS(e, fifo.string() + ": cannot be written: a FIFO that no process reads");
  // The reading end, opened first without waiting; the few bytes fit the pipe's buffer.
  const int readEnd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(readEnd, 0) << std::strerror(errno);
  {
    NpyFramesWriter w(fifo, 2, 3);
    for (int f = 0; f < 3; ++f) w.write({Vec3{1, 2, 3}, Vec3{4, 5, double(f)}});
    w.commit();
  }
  std::string received;
  char buffer[4096];
  for (ssize_t n; (n = ::read(readEnd, buffer, sizeof buffer)) > 0;) received.append(buffer, std::size_t(n));
  ::close(readEnd);
  ASSERT_GT(received.size(), 10u);
  EXPECT_EQ(received.substr(0, 6), "\x93NUMPY");
  EXPECT_HAS(received, "'shape': (3, 2, 3)");
  EXPECT_EQ(received.size() - (received.find('\n') + 1), 3u * 2 * 3 * 8) << "the data of the 3 frames";
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(listing(dir.path()), "forces.npy\n");
}

}  // namespace
}  // namespace faraday::test
