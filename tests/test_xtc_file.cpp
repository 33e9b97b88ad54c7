// XtcWriter and XtcReader: frames with their step, time and box, the bytes MDAnalysis and
// GROMACS write, appending after a restart, and errors naming the file, frame and atom.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/formats/XtcCodec.h"
#include "engine/formats/XtcFile.h"
#include "tests/XtcTestFrames.h"

namespace faraday::test {
namespace {

// ---- files -----------------------------------------------------------------------------------

TEST(XtcFile, FramesReadBackWithTheirStepTimeAndBox) {
  TempDir dir;
  const std::size_t atoms = 37;
  std::vector<std::vector<Vec3>> frames;
  {
    XtcWriter writer(dir / "t.xtc", atoms, 1000);
    for (int f = 0; f < 4; ++f) {
      frames.push_back(waterLike(atoms, -1.0, 3.0, 10 + unsigned(f)));
      writer.writeFrame(frames.back(), Box::rectangular(3.0 + 0.125 * f, 3.5, 4.0), 25LL * f, 0.05 * f);
      // Flushed at once: a reader sees every frame written so far.
      EXPECT_EQ(XtcReader(dir / "t.xtc").frames(), f + 1);
    }
  }
  XtcReader reader(dir / "t.xtc", atoms);
  EXPECT_EQ(reader.atoms(), atoms);
  ASSERT_EQ(reader.frames(), 4);
  TrajectoryFrame frame;
  for (int f = 0; f < 4; ++f) {
    reader.readFrame(f, frame);
    EXPECT_EQ(frame.step, 25 * f);
    EXPECT_EQ(reader.step(f), 25 * f);
    EXPECT_EQ(frame.time, double(float(0.05 * f)));  // ps, float in the file
    ASSERT_TRUE(frame.hasBox);
    EXPECT_EQ(frame.box.diagonal(), (Vec3{3.0 + 0.125 * f, 3.5, 4.0}));
    expectOnTheGrid(frames[std::size_t(f)], frame.positions, 1000);
  }
  // openTrajectory picks the reader by extension.
  EXPECT_EQ(openTrajectory(dir / "t.xtc", atoms)->frames(), 4);
}

/// The frames of gridFrame() as MDAnalysis 2.11 wrote them (gmx trjconv 2022.5 writes the
/// same bytes): XtcWriter writes these bytes, and XtcReader reads them as written.
TEST(XtcFile, WritesAndReadsTheBytesOfMdanalysisAndGromacs) {
  TempDir dir;
  for (std::size_t atoms : {4u, 31u}) {
    SCOPED_TRACE(std::to_string(atoms) + " atoms");
    const fs::path reference = fs::path(sourceDir()) / "tests" / "data" / ("xtc_ref_mda_" + std::to_string(atoms) + ".xtc");
    writeGridFrames(dir / "grid.xtc", atoms);
    const std::string expected = readText(reference);
    ASSERT_FALSE(expected.empty()) << reference;
    EXPECT_TRUE(readText(dir / "grid.xtc") == expected) << "XtcWriter's bytes differ from " << reference;
    XtcReader reader(reference, (long long)atoms);
    ASSERT_EQ(reader.frames(), 3);
    TrajectoryFrame frame;
    for (int f = 0; f < 3; ++f) {
      reader.readFrame(f, frame);
      EXPECT_EQ(frame.step, gridStep(f));
      EXPECT_EQ(frame.time, gridTime(f));
      EXPECT_EQ(frame.box.diagonal(), gridBox(f).diagonal());
      const std::vector<Vec3> p = gridFrame(f, atoms);
      for (std::size_t i = 0; i < atoms; ++i)
        for (int k = 0; k < 3; ++k)  // plain floats up to 9 atoms, else integers / 1000
          EXPECT_EQ(frame.positions[i][k], atoms <= 9 ? double(float(p[i][k])) : p[i][k]) << f << " " << i;
    }
  }
}

TEST(XtcFile, AppendKeepsFramesUpToTheRestartStepAndDropsACutFrame) {
  TempDir dir;
  const auto frame = [](int f) { return std::vector<Vec3>(12, Vec3{double(f), 0.5, -0.25}); };
  const Box box = Box::rectangular(2, 2, 2);
  {
    XtcWriter writer(dir / "r.xtc", 12, 1000);
    for (int f = 0; f < 5; ++f) writer.writeFrame(frame(f), box, 10LL * f, 0.02 * f);
  }
  {
    XtcWriter writer = XtcWriter::append(dir / "r.xtc", 12, 10, 25, 1000);  // frames at 0, 10, 20 stay
    EXPECT_EQ(writer.frames(), 3);
    writer.writeFrame(frame(9), box, 30, 0.06);
  }
  XtcReader reader(dir / "r.xtc", 12);
  ASSERT_EQ(reader.frames(), 4);
  TrajectoryFrame f;
  const double firstX[] = {0, 1, 2, 9};
  for (long long i = 0; i < 4; ++i) {
    reader.readFrame(i, f);
    EXPECT_EQ(f.positions[0].x, firstX[i]);
    EXPECT_EQ(f.step, 10 * i);
  }

  // A run stopped inside a frame: the cut frame goes, the whole ones before it stay.
  const std::string bytes = readText(dir / "r.xtc");
  writeText(dir / "cut.xtc", bytes.substr(0, bytes.size() - 9));
  EXPECT_HAS(errorOf([&] { XtcReader(dir / "cut.xtc", 12); }), "cut.xtc: frame 4 is cut short");
  // Continuing it from step 1000 would leave a gap after its last whole frame (step 20).
  EXPECT_HAS(errorOf([&] { XtcWriter::append(dir / "cut.xtc", 12, 10, 1000, 1000); }),
             "cut.xtc: trajectory ends at step 20 (3 frames), before the restart step 1000");
  {
    XtcWriter writer = XtcWriter::append(dir / "cut.xtc", 12, 10, 25, 1000);
    EXPECT_EQ(writer.frames(), 3);
  }
  EXPECT_EQ(XtcReader(dir / "cut.xtc", 12).frames(), 3);

  EXPECT_HAS(errorOf([&] { XtcWriter::append(dir / "r.xtc", 12, 5, 25, 1000); }),
             "r.xtc: existing trajectory has one frame every 10 steps, the config says 5: cannot append");
  EXPECT_HAS(errorOf([&] { XtcWriter::append(dir / "r.xtc", 13, 10, 25, 1000); }),
             "r.xtc: trajectory has 12 atoms, the system has 13");
}

TEST(XtcFile, ReaderChecksTheAtomCountAndNamesTheFile) {
  TempDir dir;
  writeGridFrames(dir / "w.xtc", 31);
  EXPECT_HAS(errorOf([&] { XtcReader(dir / "w.xtc", 30); }), (dir / "w.xtc").string() + ": trajectory has 31 atoms, the system has 30");
  writeText(dir / "junk.xtc", "not a trajectory at all, but long enough to hold an XTC header of 56 bytes");
  EXPECT_HAS(errorOf([&] { XtcReader(dir / "junk.xtc"); }), "junk.xtc: frame 1 (at byte 0): not an XTC frame: magic number");
  EXPECT_HAS(errorOf([&] { XtcReader(dir / "missing.xtc"); }), "missing.xtc: trajectory file not found");
  // An empty file has no frames (a run stopped before its first one).
  writeText(dir / "empty.xtc", "");
  EXPECT_EQ(XtcReader(dir / "empty.xtc", 31).frames(), 0);
  // Frames of another atom count in the middle of a file.
  writeGridFrames(dir / "a.xtc", 10);
  writeText(dir / "mixed.xtc", readText(dir / "w.xtc") + readText(dir / "a.xtc"));
  EXPECT_HAS(errorOf([&] { XtcReader(dir / "mixed.xtc"); }), "mixed.xtc: frame 4 (at byte 600): 10 atoms, the first frame has 31");
}

/// Offset of the first coordinate of a frame of at most 9 atoms (plain floats).
constexpr std::size_t kFirstFloat = 56;

void putFloatAt(std::string& bytes, std::size_t at, float value) {
  std::string word;
  xtc::putFloat(word, value);
  bytes.replace(at, 4, word);
}

TEST(XtcFile, NonFiniteCoordinatesAreRefusedNamingFrameAndAtom) {
  TempDir dir;
  writeGridFrames(dir / "g.xtc", 3);
  std::string bytes = readText(dir / "g.xtc");
  const std::size_t frameBytes = bytes.size() / 3;
  putFloatAt(bytes, frameBytes + kFirstFloat + 4 * (3 * 1 + 1), std::numeric_limits<float>::quiet_NaN());  // frame 2, atom 2, y
  writeText(dir / "t.xtc", bytes);
  XtcReader reader(dir / "t.xtc", 3);
  TrajectoryFrame frame;
  reader.readFrame(0, frame);
  reader.readFrame(2, frame);
  EXPECT_HAS(errorOf([&] { reader.readFrame(1, frame); }),
             (dir / "t.xtc").string() + ": frame 2 of 3, atom 2: non-finite y coordinate (frames and atoms count from 1)");
  // The writer refuses what it cannot store, naming the step and the atom.
  XtcWriter writer(dir / "w.xtc", 12, 1000);
  std::vector<Vec3> p = waterLike(12, 0, 2, 1);
  p[7].x = std::numeric_limits<double>::infinity();
  EXPECT_HAS(errorOf([&] { writer.writeFrame(p, Box::rectangular(2, 2, 2), 40, 0.08); }),
             "w.xtc: cannot write the frame of step 40: atom 8 has a non-finite x coordinate");
  EXPECT_HAS(errorOf([&] { writer.writeFrame(waterLike(12, 0, 2, 1), Box::rectangular(2, 2, 2), 1LL << 32, 0); }),
             "cannot write the frame of step 4294967296: XTC stores steps in 32 bits");
}

/// An all-zero box means none (as GROMACS writes for vacuum); a triclinic one is read as
/// written (its rows, in float), one not in the orientation of the reduced form is refused.
TEST(XtcFile, TheBoxIsOptionalAndMayBeTriclinic) {
  TempDir dir;
  const Box triclinic{{2, 0, 0}, {0.5, 2, 0}, {-0.75, 0.25, 2}};
  {
    XtcWriter writer(dir / "b.xtc", 12, 1000);
    writer.writeFrame(waterLike(12, 0, 2, 1), Box{}, 0, 0);
    writer.writeFrame(waterLike(12, 0, 2, 2), triclinic, 10, 0.02);
    writer.writeFrame(waterLike(12, 0, 2, 3), Box{{2, 0.5, 0}, {0, 2, 0}, {0, 0, 2}}, 20, 0.04);
  }
  XtcReader reader(dir / "b.xtc", 12);
  TrajectoryFrame frame;
  reader.readFrame(0, frame);
  EXPECT_FALSE(frame.hasBox);
  reader.readFrame(1, frame);
  ASSERT_TRUE(frame.hasBox);
  EXPECT_EQ(frame.box, triclinic);  // every component is a float
  EXPECT_HAS(errorOf([&] { reader.readFrame(2, frame); }),
             "b.xtc: frame 3 of 3: the unit cell cannot be brought to the reduced triclinic form");
}

}  // namespace
}  // namespace faraday::test
