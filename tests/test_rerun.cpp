// `faraday rerun` and the forces output (.npy), through the real executable.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

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

}  // namespace
}  // namespace faraday::test
