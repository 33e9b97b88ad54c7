// Triclinic boxes in files: GROMACS's own rhombic dodecahedron and truncated octahedron
// (.gro, PDB and XTC as `gmx editconf` and `gmx trjconv` wrote them, tests/data/triclinic,
// made by tools/triclinic_boxes.py) read into the reduced form; the same boxes written to and
// read back from .gro, PDB, XTC, DCD and the checkpoint; MDAnalysis reading the DCD unit cell
// and the XTC box (skipped where it is not installed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/formats/DcdFile.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/PdbFile.h"
#include "engine/formats/TextParse.h"
#include "engine/formats/XtcFile.h"
#include "core/Units.h"
#include "engine/run/Checkpoint.h"
#include "tests/EngineTestSupport.h"
#include "tests/ReaderCheck.h"
#include "tests/Tolerances.h"

namespace faraday::test {
namespace {

struct Shape {
  const char* name;
  double volumeOverCube;  ///< V / d^3, d the image distance (a_x)
};
/// The rhombic dodecahedron (xy-square) holds d^3 / sqrt 2, the truncated octahedron 4 sqrt 3 d^3 / 9.
const Shape kShapes[] = {{"dodecahedron", 1 / std::sqrt(2.0)}, {"octahedron", 4 * std::sqrt(3.0) / 9}};

fs::path triclinicData(const std::string& file) { return fs::path(sourceDir()) / "tests" / "data" / "triclinic" / file; }

/// The nine numbers of a .gro box line as GROMACS orders them.
Box boxOfGroLine(const std::string& line) {
  const std::vector<std::string> v = splitWhitespace(line);
  EXPECT_EQ(v.size(), 9u) << line;
  double x[9] = {};
  for (std::size_t k = 0; k < v.size() && k < 9; ++k) parseDouble(v[k], x[k]);
  return Box::fromVectors({x[0], x[3], x[4]}, {x[5], x[1], x[6]}, {x[7], x[8], x[2]});
}

/// Largest component difference of two boxes, nm.
double boxDifference(const Box& a, const Box& b) {
  double worst = 0;
  for (const auto& [u, v] : {std::pair{a.a, b.a}, std::pair{a.b, b.b}, std::pair{a.c, b.c}})
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(u[k] - v[k]));
  return worst;
}

/// The box with every component rounded to float (as XTC stores it).
Box floatBox(const Box& b) {
  const auto f = [](Vec3 v) { return Vec3{float(v.x), float(v.y), float(v.z)}; };
  return Box::fromVectors(f(b.a), f(b.b), f(b.c));
}

TEST(TriclinicFiles, GromacsGroBoxesAreReadAsTheirNineNumbersInReducedForm) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    const fs::path file = triclinicData(std::string(s.name) + ".gro");
    const Coordinates c = readGro(file);
    const Box expected = boxOfGroLine(lines(readText(file)).back());
    EXPECT_EQ(c.box, expected);  // GROMACS writes the reduced form: nothing to shift
    EXPECT_TRUE(c.box.isReducedForm());
    EXPECT_FALSE(c.box.isRectangular());
    EXPECT_EQ(c.size(), 151u);
    // The shape: its volume and its shortest image distance d = a_x, to the .gro's rounding
    // of each diagonal element (half of 1e-5 nm).
    const double d = c.box.a.x, rounding = tol::kGroHalfLastDecimal * 1e-5;
    EXPECT_NEAR(c.box.volume() / (d * d * d), s.volumeOverCube, 3 * rounding / c.box.smallestHeight() * s.volumeOverCube);
    EXPECT_NEAR(c.box.shortestImageDistance(), d, 4 * rounding);
  }
}

/// GROMACS's CRYST1 (lengths in 0.001 A, angles in 0.01 degrees) gives its .gro box, and the
/// same atoms.
TEST(TriclinicFiles, GromacsPdbCryst1GivesTheGroBox) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    const Coordinates gro = readGro(triclinicData(std::string(s.name) + ".gro"));
    const Coordinates pdb = readPdb(triclinicData(std::string(s.name) + ".pdb"));
    EXPECT_TRUE(pdb.box.isReducedForm());
    EXPECT_LT(boxDifference(pdb.box, gro.box), tol::kCryst1BoxNm);
    ASSERT_EQ(pdb.size(), gro.size());
    for (std::size_t i = 0; i < gro.size(); ++i)
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(pdb.positions[i][k], gro.positions[i][k], tol::kPdbRoundTrip);
  }
}

/// GROMACS's XTC of the same frame: the box's rows, in float, are the .gro box.
TEST(TriclinicFiles, GromacsXtcBoxIsTheGroBoxInFloat) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    const Coordinates gro = readGro(triclinicData(std::string(s.name) + ".gro"));
    XtcReader reader(triclinicData(std::string(s.name) + ".xtc"), 151);
    TrajectoryFrame frame;
    reader.readFrame(0, frame);
    ASSERT_TRUE(frame.hasBox);
    EXPECT_EQ(frame.box, floatBox(gro.box));
  }
}

/// Written and read back: .gro (GROMACS's box line, character for character), PDB (GROMACS's
/// CRYST1 line), XTC (float), DCD (lengths and angle cosines in double) and the checkpoint
/// (exact); every box read back is in reduced form.
TEST(TriclinicFiles, BoxesRoundTripThroughEveryFormat) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    TempDir dir;
    const fs::path gmxGro = triclinicData(std::string(s.name) + ".gro");
    const Coordinates c = readGro(gmxGro);
    const Box& box = c.box;

    writeGro(dir / "a.gro", c);
    EXPECT_EQ(lines(readText(dir / "a.gro")).back(), lines(readText(gmxGro)).back());
    EXPECT_EQ(readGro(dir / "a.gro").box, box);

    writePdb(dir / "a.pdb", c);
    const auto cryst1 = [](const std::string& text) { return text.substr(text.find("CRYST1"), 70); };
    EXPECT_EQ(cryst1(readText(dir / "a.pdb")), cryst1(readText(triclinicData(std::string(s.name) + ".pdb"))));
    const Box pdbBox = readPdb(dir / "a.pdb").box;
    EXPECT_TRUE(pdbBox.isReducedForm());
    EXPECT_LT(boxDifference(pdbBox, box), tol::kCryst1BoxNm);

    TrajectoryFrame frame;
    {
      XtcWriter w(dir / "a.xtc", c.size(), 1000);
      w.writeFrame(c.positions, box, 0, 0);
    }
    XtcReader(dir / "a.xtc", (long long)c.size()).readFrame(0, frame);
    EXPECT_EQ(frame.box, floatBox(box));

    {
      DcdWriter w(dir / "a.dcd", c.size(), 0, 10, 0.002);
      w.writeFrame(c.positions, box);
    }
    DcdReader(dir / "a.dcd", (long long)c.size()).readFrame(0, frame);
    EXPECT_TRUE(frame.box.isReducedForm());
    EXPECT_LT(boxDifference(frame.box, box), tol::kDcdCellRoundTrip);

    Checkpoint k;
    k.box = box;
    k.positions = c.positions;
    k.velocities.assign(c.size(), Vec3{});
    k.physics = "atoms=151\n";
    writeCheckpoint(dir / "a.chk", k);
    EXPECT_EQ(readCheckpoint(dir / "a.chk", c.size(), "").box, box);
  }
}

/// The DCD unit cell record is [A, cos gamma, B, cos beta, cos alpha, C] (Angstrom), as
/// CHARMM, NAMD > 2.5, OpenMM and VMD write it; a record with the angles in degrees (NAMD
/// 2.5) reads as the same box.
TEST(TriclinicFiles, DcdUnitCellHoldsTheAngleCosinesAndReadsDegreesToo) {
  TempDir dir;
  const Coordinates c = readGro(triclinicData("octahedron.gro"));
  {
    DcdWriter w(dir / "o.dcd", c.size(), 0, 10, 0.002);
    w.writeFrame(c.positions, c.box);
  }
  std::string bytes = readText(dir / "o.dcd");
  const std::size_t record = 276 + 4;  // after the header, title and atom-count records and the cell marker
  double cell[6];
  std::memcpy(cell, bytes.data() + record, sizeof cell);
  const Vec3 L = c.box.edgeLengths();
  const double cosAB = dot(c.box.a, c.box.b) / (L.x * L.y), cosAC = dot(c.box.a, c.box.c) / (L.x * L.z),
               cosBC = dot(c.box.b, c.box.c) / (L.y * L.z);
  const double expected[6] = {10 * L.x, cosAB, 10 * L.y, cosAC, cosBC, 10 * L.z};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(cell[k], expected[k], tol::kDoubleSum * std::fabs(expected[k])) << k;
  const double deg = 180 / units::kPi;
  const double degrees[6] = {cell[0], std::acos(cosAB) * deg, cell[2], std::acos(cosAC) * deg,
                             std::acos(cosBC) * deg, cell[5]};
  std::memcpy(bytes.data() + record, degrees, sizeof degrees);
  writeText(dir / "d.dcd", bytes);
  TrajectoryFrame frame;
  DcdReader(dir / "d.dcd", (long long)c.size()).readFrame(0, frame);
  EXPECT_LT(boxDifference(frame.box, c.box), tol::kDcdCellRoundTrip);
}

/// MDAnalysis reads Faraday's DCD of both shapes: its dimensions are the box's edge lengths
/// and angles, its box vectors (mdamath.triclinic_vectors) the box's, and the coordinates
/// are the written ones.
TEST(TriclinicFiles, MdanalysisReadsTheDcdUnitCell) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    TempDir dir;
    const Coordinates c = readGro(triclinicData(std::string(s.name) + ".gro"));
    {
      DcdWriter w(dir / "t.dcd", c.size(), 0, 10, 0.002);
      w.writeFrame(c.positions, c.box);
    }
    RUN_READER_CHECK_OR_SKIP(dir.path(), "dcd", "t.dcd", "t.txt");
    const auto words = readerCheckWords(dir / "t.txt");
    ASSERT_EQ(words.size(), 3 + c.size());
    const std::vector<double> dims = numbersOf(words[1]), vectors = numbersOf(words[2]);
    ASSERT_EQ(dims.size(), 6u);
    ASSERT_EQ(vectors.size(), 9u);
    const Vec3 L = c.box.edgeLengths() * 10.0, angles = c.box.angles();
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(dims[k], L[k], tol::kFloat32Relative * L[k]) << k;
      EXPECT_NEAR(dims[3 + k], angles[k], tol::kFloat32Relative * angles[k]) << k;
    }
    const Vec3 rows[3] = {c.box.a * 10.0, c.box.b * 10.0, c.box.c * 10.0};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(vectors[3 * r + k], rows[r][k], tol::kMdanalysisBoxVectorRel * L[r]) << r << k;
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::vector<double> x = {std::stod(words[3 + i][0]), std::stod(words[3 + i][1]), std::stod(words[3 + i][2])};
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(x[k], 10 * c.positions[i][k], tol::kFloat32Relative * 10 * std::fabs(c.positions[i][k])) << i;
    }
  }
}

/// MDAnalysis reads Faraday's XTC box of both shapes as its three rows, in float.
TEST(TriclinicFiles, MdanalysisReadsTheXtcBox) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(s.name);
    TempDir dir;
    const Coordinates c = readGro(triclinicData(std::string(s.name) + ".gro"));
    {
      XtcWriter w(dir / "t.xtc", c.size(), 1000);
      w.writeFrame(c.positions, c.box, 5, 0.01);
    }
    const std::string command = "cd " + shellQuote(dir.path().string()) + " && python3 " +
                                shellQuote(sourceDir() + "/tools/xtc_check.py") + " dump t.xtc t.txt > check.out 2>&1";
    const int status = std::system(command.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 77) GTEST_SKIP() << "MDAnalysis is not importable: " << readText(dir / "check.out");
    ASSERT_EQ(code, 0) << readText(dir / "check.out");
    const auto words = readerCheckWords(dir / "t.txt");
    ASSERT_GE(words.size(), 2u);
    const std::vector<double> row = numbersOf(words[1]);
    ASSERT_EQ(row.size(), 9u);
    const Box f = floatBox(c.box);
    const Vec3 rows[3] = {f.a, f.b, f.c};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(float(row[3 * r + k]), float(rows[r][k])) << r << k;  // 9 digits: the float
  }
}

using TriclinicRerun = ArgonFolderTest;

/// A trajectory frame whose box cannot be brought to the reduced form (its first vector off
/// the x axis) stops `faraday rerun` with one line naming the file and the frame (counted
/// from 1), a non-zero exit and nothing written.
TEST_F(TriclinicRerun, AFrameBoxThatCannotBeReducedWritesNothing) {
  const Coordinates argon = readGro(dir / "argon.gro");
  {
    XtcWriter w(dir / "bad.xtc", argon.size(), 1000);
    w.writeFrame(argon.positions, argon.box, 0, 0);
    w.writeFrame(argon.positions, Box::fromVectors({1.7226, 0.4, 0}, {0, 1.7226, 0}, {0, 0, 1.7226}), 10, 0.04);
  }
  const CommandResult r = runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=bad.xtc"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
  EXPECT_HAS(r.err, "bad.xtc: frame 2 of 2: the unit cell cannot be brought to the reduced triclinic form");
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
}  // namespace faraday::test
