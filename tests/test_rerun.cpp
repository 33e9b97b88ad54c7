// `faraday rerun` and the forces output (.npy), through the real executable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>

#include <sys/resource.h>
#include <sys/wait.h>

#include "engine/formats/DcdFile.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

/// A .npy file as NumPy's format 1.0 defines it: the header dict and the float64 data.
struct Npy {
  std::string header;
  std::vector<double> data;
};

Npy readNpy(const fs::path& file) {
  const std::string bytes = readText(file);
  Npy npy;
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t length = std::uint8_t(bytes[8]) | std::size_t(std::uint8_t(bytes[9])) << 8;
  EXPECT_EQ((10 + length) % 64, 0u) << "header not padded to 64 bytes";
  npy.header = bytes.substr(10, length);
  EXPECT_EQ(npy.header.back(), '\n');
  npy.data.resize((bytes.size() - 10 - length) / 8);
  std::memcpy(npy.data.data(), bytes.data() + 10 + length, npy.data.size() * 8);
  return npy;
}

using RerunTest = ArgonFolderTest;

/// The energies and forces of the frames of a run's trajectory are those the run had, up
/// to the float32 positions of the DCD.
TEST_F(RerunTest, FramesOfARunGiveItsEnergiesAndForces) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--output.forces_file=final.npy"}).exitCode, 0);
  const CommandResult r =
      runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=out/traj.dcd", "--output.forces_file=forces.npy"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_HAS(r.out, "rerun: 3 frame(s) x 108 atoms");
  EXPECT_EQ(lines(readText(dir / "out" / "rerun.csv"))[0].rfind("#\"Frame\",\"Step\",\"Time (ps)\",\"Potential Energy (kJ/mole)\",\"LJ (kJ/mole)\"", 0), 0u);
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 1), (std::vector<double>{0, 10, 20}));
  const std::vector<double> rerun = csvColumn(dir / "out" / "rerun.csv", 3), run = csvColumn(dir / "out" / "energy.csv", 2);
  ASSERT_EQ(rerun.size(), run.size());
  for (std::size_t f = 0; f < run.size(); ++f)
    EXPECT_NEAR(rerun[f], run[f], tol::kFloat32TrajectoryEnergy * std::fabs(run[f])) << "frame " << f;

  const Npy all = readNpy(dir / "out" / "forces.npy"), last = readNpy(dir / "out" / "final.npy");
  EXPECT_HAS(all.header, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 108, 3), }");
  EXPECT_HAS(last.header, "'shape': (108, 3), }");
  ASSERT_EQ(all.data.size(), 3u * 108 * 3);
  ASSERT_EQ(last.data.size(), 108u * 3);
  double largest = 0, worst = 0;
  for (std::size_t k = 0; k < last.data.size(); ++k) {
    largest = std::max(largest, std::fabs(last.data[k]));
    worst = std::max(worst, std::fabs(all.data[2 * 108 * 3 + k] - last.data[k]));
  }
  EXPECT_GT(largest, 1.0);
  EXPECT_LT(worst, tol::kFloat32TrajectoryForce * largest);
}

/// A single point: run.steps = 0 writes the forces at the input coordinates, and a rerun
/// without a trajectory evaluates the same coordinates: the same numbers, bit for bit.
TEST_F(RerunTest, SinglePointForcesFromRunAndRerunAgree) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--run.steps=0", "--output.forces_file=run.npy"}).exitCode, 0);
  ASSERT_EQ(runFaraday(dir.path(), {"rerun", "sim.cfg", "--output.forces_file=rerun.npy"}).exitCode, 0);
  const Npy a = readNpy(dir / "out" / "run.npy"), b = readNpy(dir / "out" / "rerun.npy");
  EXPECT_HAS(b.header, "'shape': (1, 108, 3)");
  ASSERT_EQ(a.data.size(), b.data.size());
  EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), a.data.size() * 8), 0);
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 3), std::vector<double>{csvColumn(dir / "out" / "energy.csv", 2)[0]});
}

/// A bad frame stops the rerun naming the frame and atom, and nothing is written.
TEST_F(RerunTest, ABadFrameWritesNothing) {
  {
    DcdWriter w(dir / "bad.dcd", 108, 0, 1, 0.002);
    std::vector<Vec3> p(108, Vec3{0.5, 0.5, 0.5});
    for (std::size_t i = 0; i < p.size(); ++i) p[i].x = 0.015 * double(i);
    w.writeFrame(p, Box::rectangular(1.7226, 1.7226, 1.7226));
    p[17].z = std::numeric_limits<double>::quiet_NaN();
    w.writeFrame(p, Box::rectangular(1.7226, 1.7226, 1.7226));
  }
  const CommandResult r = runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=bad.dcd"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_HAS(r.err, "bad.dcd: frame 2 of 2, atom 18: non-finite z coordinate");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

/// A rerun of a trajectory of `frames` frames of 4000 argon atoms (fcc, each frame shifted a
/// little), written as traj.dcd beside argon.gro and sim.cfg.
class LongRerunTest : public ::testing::Test {
 protected:
  void writeInputs(int frames) {
    writeText(dir / "argon.gro", argonGro(10));
    writeText(dir / "sim.cfg", argonConfig());
    const BuiltSystem argon = fccArgon(10);
    DcdWriter w(dir / "traj.dcd", argon.positions.size(), 0, 10, 0.004);
    std::vector<Vec3> p = argon.positions;
    for (int f = 0; f < frames; ++f) {
      for (std::size_t i = 0; i < p.size(); ++i) p[i].x = argon.positions[i].x + 1e-3 * double((i * 7 + std::size_t(f)) % 11);
      w.writeFrame(p, argon.system.box);
    }
  }
  std::vector<std::string> rerunArgs(const std::string& out) const {
    return {"rerun", "sim.cfg", "--rerun.trajectory=traj.dcd", "--output.forces_file=f.npy", "--output.directory=" + out};
  }
  TempDir dir;
};

/// Peak resident memory (kB) of `faraday ARGS` run in `folder`; -1 when it did not exit 0.
long peakMemoryKb(const fs::path& folder, const std::vector<std::string>& args) {
  const pid_t pid = startFaraday(folder, args);
  int status = 0;
  struct rusage usage {};
  if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return usage.ru_maxrss;
}

/// Frames are written as they are evaluated: memory does not grow with the trajectory. Kept,
/// the 200 extra frames' positions and forces alone would take 200 x 2 x 96 kB = 38 MB.
TEST_F(LongRerunTest, MemoryDoesNotGrowWithTheFrames) {
  writeInputs(220);
  // The same trajectory's first 20 frames, as a file of its own.
  {
    DcdReader all(dir / "traj.dcd");
    DcdWriter w(dir / "first20.dcd", all.atoms(), 0, 10, 0.004);
    TrajectoryFrame f;
    for (int k = 0; k < 20; ++k) all.readFrame(k, f), w.writeFrame(f.positions, f.box);
  }
  const long many = peakMemoryKb(dir.path(), rerunArgs("many"));
  ASSERT_GT(many, 0) << readText(dir / "faraday.err");
  const long few = peakMemoryKb(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=first20.dcd",
                                             "--output.forces_file=f.npy", "--output.directory=few"});
  ASSERT_GT(few, 0) << readText(dir / "faraday.err");
  EXPECT_LT(many - few, 8 * 1024) << "peak memory: 20 frames " << few << " kB, 220 frames " << many << " kB";
  EXPECT_EQ(csvColumn(dir / "many" / "rerun.csv", 0).size(), 220u);
  const Npy a = readNpy(dir / "many" / "f.npy"), b = readNpy(dir / "few" / "f.npy");
  EXPECT_HAS(a.header, "'shape': (220, 4000, 3), }");
  // The first 20 frames give the same bits either way.
  ASSERT_EQ(b.data.size(), 20u * 4000 * 3);
  ASSERT_EQ(a.data.size(), 220u * 4000 * 3);
  EXPECT_EQ(std::memcmp(a.data.data(), b.data.data(), b.data.size() * 8), 0);
}

/// SIGTERM (or SIGINT, SIGHUP) stops the rerun after the current frame: rerun.csv and the
/// forces are complete files of the frames done, and the exit code is 128 + the signal.
TEST_F(LongRerunTest, AnInterruptLeavesCompleteFilesOfTheFramesDone) {
  writeInputs(300);
  const pid_t pid = startFaraday(dir.path(), rerunArgs("out"));
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(waitUntil([&] { return lines(readText(dir / "out" / "rerun.csv.tmp")).size() >= 4; }));
  // Meanwhile the forces file being written is a valid .npy of the frames so far.
  const Npy partial = readNpy(dir / "out" / "f.npy.tmp");
  ::kill(pid, SIGTERM);
  const int code = waitFor(pid, 60);
  const std::string err = readText(dir / "faraday.err");
  EXPECT_EQ(code, 143) << err;
  const std::vector<double> frames = csvColumn(dir / "out" / "rerun.csv", 0);
  ASSERT_GE(frames.size(), 3u);
  ASSERT_LT(frames.size(), 300u);
  EXPECT_HAS(err, "faraday: interrupted after frame " + std::to_string(frames.size()) + " of 300: ");
  const Npy forces = readNpy(dir / "out" / "f.npy");
  EXPECT_HAS(forces.header, "'shape': (" + std::to_string(frames.size()) + ", 4000, 3), }");
  EXPECT_EQ(forces.data.size(), frames.size() * 4000 * 3);
  // Its header counts the frames whose data are in the file (the data go first).
  long long counted = -1;
  std::sscanf(partial.header.c_str() + partial.header.find("'shape': (") + 10, "%lld", &counted);
  EXPECT_GE(counted, 2);
  EXPECT_LE(std::size_t(counted) * 12000, partial.data.size());
  EXPECT_FALSE(fs::exists(dir / "out" / "rerun.csv.tmp"));
  EXPECT_FALSE(fs::exists(dir / "out" / "f.npy.tmp"));
}

/// The outputs are created before the first frame: an output that cannot be written is the
/// error, not the bad first frame it never reads.
TEST_F(RerunTest, OutputsAreCheckedBeforeTheFirstFrame) {
  {
    DcdWriter w(dir / "bad.dcd", 108, 0, 1, 0.002);
    w.writeFrame(std::vector<Vec3>(108, Vec3{std::numeric_limits<double>::quiet_NaN(), 0, 0}),
                 Box::rectangular(1.7226, 1.7226, 1.7226));
  }
  fs::create_directories(dir / "out");
  writeText(dir / "out" / "taken", "");
  const CommandResult r =
      runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=bad.dcd", "--rerun.energy_file=taken/rerun.csv"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_HAS(r.err, "faraday: error: " + (dir / "out" / "taken" / "rerun.csv").string() + ": cannot create: Not a directory");
  EXPECT_FALSE(fs::exists(dir / "out" / "faraday.lock"));
}

/// A DCD cut off inside a frame (as a killed run leaves it) is an error naming the file and
/// the frame, for rerun and map, not a trajectory of one frame less.
TEST_F(RerunTest, ADcdCutInsideAFrameIsAnErrorForRerunAndMap) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg"}).exitCode, 0);  // out/traj.dcd, 3 frames
  const std::string bytes = readText(dir / "out" / "traj.dcd");
  writeText(dir / "cut.dcd", bytes.substr(0, bytes.size() - 100));
  for (const char* command : {"rerun", "map"}) {
    const CommandResult r = runFaraday(dir.path(), {command, "sim.cfg", "--" + std::string(command) + ".trajectory=cut.dcd",
                                                    "--output.directory=new"});
    EXPECT_EQ(r.exitCode, 1) << command;
    EXPECT_HAS(r.err, "faraday: error: " + (dir / "cut.dcd").string() + ": frame 3 is cut short: the file ends after ");
    EXPECT_FALSE(fs::exists(dir / "new")) << command;
  }
}

}  // namespace
}  // namespace faraday::test
