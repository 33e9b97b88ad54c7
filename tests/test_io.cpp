// Coordinate and trajectory files: .gro and PDB round trips, DCD written and read back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/formats/AtomicFile.h"
#include "engine/formats/DcdFile.h"
#include "core/Error.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/PdbFile.h"
#include "engine/formats/TextParse.h"
#include "engine/setup/SystemSetup.h"
#include "core/Units.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/formats/CoordinateFile.h"
#include "engine/config/LoadConfig.h"

namespace faraday::test {
namespace {

/// `n` atoms with mixed names and random positions k / perNm (nm) and velocities k / 10^4 (nm/ps).
Coordinates sampleCoordinates(std::size_t n, double perNm, bool velocities, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> cell(0, 4000);
  std::uniform_int_distribution<int> vel(-9999, 9999);
  Coordinates c;
  c.title = "sample";
  c.box = Box::rectangular(4.1, 4.2, 4.3);
  const char* names[] = {"OW", "HW1", "NA", "CL", "C12"};
  for (std::size_t i = 0; i < n; ++i) {
    c.residueId.push_back(int(i / 3) + 1);
    c.residueName.push_back(i % 2 ? "SOL" : "ION");
    c.atomName.push_back(names[i % 5]);
    c.positions.push_back({cell(rng) / perNm, cell(rng) / perNm, cell(rng) / perNm});
    if (velocities) c.velocities.push_back({vel(rng) / 1e4, vel(rng) / 1e4, vel(rng) / 1e4});
  }
  return c;
}

void expectSameNames(const Coordinates& a, const Coordinates& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(a.atomName, b.atomName);
  EXPECT_EQ(a.residueName, b.residueName);
  EXPECT_EQ(a.residueId, b.residueId);
}

TEST(GroFile, RoundTripIsExactForValuesOnTheDecimalGrid) {
  TempDir dir;
  // k / 1000 nm and k / 10^4 nm/ps print exactly with 3 and 4 decimals, and the correctly
  // rounded quotient is the double that strtod parses back, so the round trip is exact.
  const Coordinates c = sampleCoordinates(50, 1000, true, 1);
  writeGro(dir / "a.gro", c);
  const Coordinates r = readGro(dir / "a.gro");
  expectSameNames(c, r);
  EXPECT_EQ(r.title, c.title);
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(r.positions[i], c.positions[i]) << i;
    EXPECT_EQ(r.velocities[i], c.velocities[i]) << i;
    EXPECT_EQ(r.line[i], long(i) + 3);
  }
  EXPECT_EQ(r.box.diagonal(), c.box.diagonal());
  EXPECT_FALSE(fs::exists(dir / "a.gro.tmp"));
}

TEST(GroFile, HigherPrecisionIsReadFromTheDecimalPoints) {
  TempDir dir;
  Coordinates c = sampleCoordinates(20, 1000, false, 2);
  for (Vec3& r : c.positions) r = r * 1.0001234567;  // off the 3-decimal grid
  const int decimals = 6;
  writeGro(dir / "p.gro", c, decimals);
  const Coordinates r = readGro(dir / "p.gro");
  ASSERT_EQ(r.size(), c.size());
  EXPECT_TRUE(r.velocities.empty());
  const double tolerance = tol::kGroHalfLastDecimal * std::pow(10.0, -decimals);
  for (std::size_t i = 0; i < c.size(); ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.positions[i][k], c.positions[i][k], tolerance);
  // The same values at 3 decimals differ by more than the 6-decimal tolerance somewhere.
  writeGro(dir / "q.gro", c, 3);
  const Coordinates q = readGro(dir / "q.gro");
  double worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i) worst = std::max(worst, std::fabs(q.positions[i].x - c.positions[i].x));
  EXPECT_GT(worst, tolerance);
}

/// Nine box numbers: zero off-diagonals give the rectangular box, others the triclinic one
/// (brought to the reduced form); a first vector off the x axis is one error naming the line.
TEST(GroFile, NineBoxNumbersAreTheTriclinicBoxInReducedForm) {
  TempDir dir;
  std::vector<std::string> v = lines(groText(sampleCoordinates(3, 1000, false, 3)));
  v.back() = "   4.10000   4.20000   4.30000   0.00000   0.00000   0.00000   0.00000   0.00000   0.00000";
  writeText(dir / "z.gro", joinLines(v));
  EXPECT_TRUE(readGro(dir / "z.gro").box.isRectangular());
  EXPECT_DOUBLE_EQ(readGro(dir / "z.gro").box.diagonal().z, 4.3);
  // c_y = 2.5 > b_y / 2: c - b (b as given, so c_x = 1 - 3); b_x = 3 > a_x / 2: b - a.
  v.back() = "   4.10000   4.20000   4.30000   0.00000   0.00000   3.00000   0.00000   1.00000   2.50000";
  writeText(dir / "t.gro", joinLines(v));
  const Box box = readGro(dir / "t.gro").box;
  EXPECT_TRUE(box.isReducedForm());
  EXPECT_EQ(box.a, (Vec3{4.1, 0, 0}));
  EXPECT_NEAR(box.b.x, 3.0 - 4.1, 1e-15);
  EXPECT_EQ(box.b.y, 4.2);
  EXPECT_NEAR(box.c.x, 1.0 - 3.0, 1e-15);
  EXPECT_NEAR(box.c.y, 2.5 - 4.2, 1e-15);
  EXPECT_EQ(box.c.z, 4.3);
  v.back() = "   4.10000   4.20000   4.30000   0.00000   0.00000   1.00000   0.20000   0.00000   0.00000";
  writeText(dir / "r.gro", joinLines(v));
  EXPECT_HAS(errorOf([&] { readGro(dir / "r.gro"); }),
             ":6: box '" + trimmed(v.back()) + "' cannot be brought to the reduced triclinic form: v1(y), v1(z) and "
             "v2(z) must be 0");
}

/// A triclinic box is written as GROMACS writes it: nine numbers, v1(x) v2(y) v3(z) v1(y)
/// v1(z) v2(x) v2(z) v3(x) v3(y); a rectangular one as three.
TEST(GroFile, TriclinicBoxIsWrittenAsNineNumbers) {
  Coordinates c = sampleCoordinates(3, 1000, false, 4);
  EXPECT_EQ(lines(groText(c)).back(), "   4.10000   4.20000   4.30000");
  c.box = Box::fromVectors({4.1, 0, 0}, {1.5, 4.2, 0}, {-2.0, 1.25, 4.3});
  EXPECT_EQ(lines(groText(c)).back(),
            "   4.10000   4.20000   4.30000   0.00000   0.00000   1.50000   0.00000  -2.00000   1.25000");
}

TEST(PdbFile, RoundTripKeepsNamesPositionsAndBox) {
  TempDir dir;
  const Coordinates c = sampleCoordinates(40, 10000, false, 4);
  writePdb(dir / "a.pdb", c);
  const Coordinates r = readPdb(dir / "a.pdb");
  expectSameNames(c, r);
  EXPECT_TRUE(r.velocities.empty());
  for (std::size_t i = 0; i < c.size(); ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.positions[i][k], c.positions[i][k], tol::kPdbRoundTrip);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(r.box.diagonal()[k], c.box.diagonal()[k], tol::kPdbRoundTrip);
  // readCoordinates picks the reader by extension.
  EXPECT_EQ(readCoordinates(dir / "a.pdb").size(), c.size());
}

/// CRYST1 with angles gives the triclinic box (a along x, b in the xy plane); angles of no
/// cell, or no CRYST1 at all, are an error naming the file.
TEST(PdbFile, Cryst1AnglesGiveATriclinicBoxAndMissingCryst1IsAnError) {
  TempDir dir;
  std::string text = pdbText(sampleCoordinates(3, 1000, false, 5));
  const std::string cryst = text.substr(text.find("CRYST1"), 55);
  std::string skewed = cryst;
  skewed.replace(33, 7, "  60.00");  // alpha: the angle between b and c
  std::string bad = text;
  bad.replace(bad.find(cryst), cryst.size(), skewed);
  writeText(dir / "s.pdb", bad);
  // c = 4.3 nm at 60 degrees from b = 4.2 nm has c_y = 2.15 > b_y / 2: the reduced form
  // holds c - b, the same lattice.
  const Box box = readPdb(dir / "s.pdb").box;
  EXPECT_TRUE(box.isReducedForm());
  EXPECT_NEAR(box.c.y, 4.3 * 0.5 - 4.2, 1e-12);
  EXPECT_NEAR(Box::fromVectors(box.a, box.b, box.c + box.b).angles().x, 60.0, 1e-12);
  EXPECT_NEAR(box.angles().y, 90.0, 1e-12);
  EXPECT_NEAR(box.angles().z, 90.0, 1e-12);
  skewed.replace(33, 21, " 150.00  30.00  30.00");
  bad = text;
  bad.replace(bad.find(cryst), cryst.size(), skewed);
  writeText(dir / "c.pdb", bad);
  EXPECT_HAS(errorOf([&] { readPdb(dir / "c.pdb"); }), "CRYST1 alpha 150, beta 30, gamma 30 degrees describe no cell");
  std::string nobox = text;
  nobox.erase(nobox.find("CRYST1"), nobox.find('\n', nobox.find("CRYST1")) - nobox.find("CRYST1") + 1);
  writeText(dir / "n.pdb", nobox);
  try {
    readPdb(dir / "n.pdb");
    FAIL() << "PDB without CRYST1 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CRYST1"), std::string::npos);
  }
}

TEST(SystemSetup, PdbAndGroInputsGiveTheSameSystem) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(3));
  writePdb(dir / "argon.pdb", readGro(dir / "argon.gro"));
  writeText(dir / "sim.cfg", argonConfig());
  const Config gro = loadConfig(dir / "sim.cfg", {});
  const Config pdb = loadConfig(dir / "sim.cfg", {"--system.coordinates=" + (dir / "argon.pdb").string()});
  const faraday::Setup a = buildSetup(gro), b = buildSetup(pdb);
  ASSERT_EQ(a.system.size(), 108u);
  ASSERT_EQ(b.system.size(), a.system.size());
  EXPECT_EQ(a.system.atomName, b.system.atomName);
  EXPECT_EQ(a.system.mass, b.system.mass);
  EXPECT_FALSE(a.velocitiesFromFile);
  for (std::size_t i = 0; i < a.system.size(); ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.state.positions[i][k], b.state.positions[i][k], tol::kPdbRoundTrip);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(a.system.box.diagonal()[k], b.system.box.diagonal()[k], tol::kPdbRoundTrip);
  // Same seed and masses: the same Maxwell-Boltzmann velocities.
  EXPECT_EQ(a.state.velocities, b.state.velocities);
}

TEST(SystemSetup, TheArgonExampleIsAValidLiquidArgonSystem) {
  const Config c = loadConfig(fs::path(sourceDir()) / "systems" / "argon" / "sim.cfg", {});
  const faraday::Setup s = buildSetup(c);
  ASSERT_EQ(s.system.size(), 4000u);
  EXPECT_EQ(choiceText(c.electrostatics.method), "none");
  EXPECT_FALSE(s.system.hasCharges());
  EXPECT_DOUBLE_EQ(c.nonbonded.cutoff, 1.0);
  // Liquid argon near the triple point: 1.3 .. 1.5 g/cm^3 (amu / (N_A nm^3) = 1e21 / N_A g/cm^3).
  const double density = 4000 * 39.948 / (units::kAvogadro * s.system.box.volume() * 1e-21);
  EXPECT_GT(density, 1.3);
  EXPECT_LT(density, 1.5);
}

TEST(DcdFile, FramesReadBackEqualToFloatPrecisionWithTheBoxInEveryFrame) {
  TempDir dir;
  const std::size_t atoms = 37;
  const long long interval = 25;
  const double timestep = 0.002;
  std::vector<std::vector<Vec3>> frames;
  std::vector<Box> boxes;
  {
    DcdWriter writer(dir / "t.dcd", atoms, 0, interval, timestep);
    for (int f = 0; f < 4; ++f) {
      Coordinates c = sampleCoordinates(atoms, 8131, false, 10 + unsigned(f));
      const Box box = Box::rectangular(3.0 + 0.1 * f, 3.5, 4.0 - 0.05 * f);
      writer.writeFrame(c.positions, box);
      frames.push_back(c.positions);
      boxes.push_back(box);
      // NSET is updated as frames are appended: a reader sees every frame written so far.
      EXPECT_EQ(DcdReader(dir / "t.dcd").frames(), f + 1);
    }
  }
  DcdReader reader(dir / "t.dcd", atoms);
  EXPECT_EQ(reader.atoms(), atoms);
  EXPECT_EQ(reader.frames(), 4);
  EXPECT_EQ(reader.firstStep(), 0);
  EXPECT_EQ(reader.interval(), interval);
  EXPECT_NEAR(reader.timestep(), timestep, timestep * tol::kFloat32Relative);
  TrajectoryFrame frame;
  for (int f = 0; f < 4; ++f) {
    reader.readFrame(f, frame);
    ASSERT_TRUE(frame.hasBox);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(frame.box.diagonal()[k], boxes[f].diagonal()[k], tol::kDoubleSum);
    for (std::size_t i = 0; i < atoms; ++i)
      for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(frame.positions[i][k], frames[f][i][k], std::fabs(frames[f][i][k]) * tol::kFloat32Relative);
  }
}

TEST(DcdFile, HeaderHasTheCharmmLayoutThatVmdAndMdanalysisRead) {
  TempDir dir;
  {
    DcdWriter writer(dir / "h.dcd", 5, 100, 50, 0.004);
    writer.writeFrame(std::vector<Vec3>(5, Vec3{1, 2, 3}), Box::rectangular(2, 3, 4));
    writer.writeFrame(std::vector<Vec3>(5, Vec3{1, 2, 3}), Box::rectangular(2, 3, 4));
  }
  const std::string b = readText(dir / "h.dcd");
  auto i32 = [&](std::size_t at) {
    std::int32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  auto f64 = [&](std::size_t at) {
    double v;
    std::memcpy(&v, b.data() + at, 8);
    return v;
  };
  EXPECT_EQ(i32(0), 84);
  EXPECT_EQ(b.substr(4, 4), "CORD");
  EXPECT_EQ(i32(8), 2);     // NSET
  EXPECT_EQ(i32(12), 100);  // ISTART
  EXPECT_EQ(i32(16), 50);   // NSAVC
  EXPECT_EQ(i32(48), 1);    // unit cell flag
  EXPECT_EQ(i32(84), 24);   // CHARMM version
  EXPECT_EQ(i32(88), 84);
  EXPECT_EQ(i32(268), 5);   // atom count
  const std::size_t frame = 276;
  EXPECT_EQ(i32(frame), 48);
  // A, cos gamma, B, cos beta, cos alpha, C in Angstrom and angle cosines.
  const double expected[6] = {20, 0, 30, 0, 0, 40};
  for (int k = 0; k < 6; ++k) EXPECT_EQ(f64(frame + 4 + 8 * std::size_t(k)), expected[k]) << k;
  EXPECT_EQ(i32(frame + 52), 48);
  EXPECT_EQ(i32(frame + 56), 20);  // X record: 5 floats
  EXPECT_EQ(b.size(), 276u + 2 * (56 + 3 * (8 + 20)));
}

TEST(DcdFile, AppendKeepsFramesUpToTheRestartStep) {
  TempDir dir;
  {
    DcdWriter writer(dir / "r.dcd", 4, 0, 10, 0.002);
    for (int f = 0; f < 5; ++f) writer.writeFrame(std::vector<Vec3>(4, Vec3{double(f), 0, 0}), Box::rectangular(2, 2, 2));
  }
  {
    DcdWriter writer = DcdWriter::append(dir / "r.dcd", 4, 10, 25);  // frames at 0, 10, 20 stay
    EXPECT_EQ(writer.frames(), 3);
    writer.writeFrame(std::vector<Vec3>(4, Vec3{9, 0, 0}), Box::rectangular(2, 2, 2));
  }
  DcdReader reader(dir / "r.dcd", 4);
  ASSERT_EQ(reader.frames(), 4);
  TrajectoryFrame frame;
  reader.readFrame(2, frame);
  EXPECT_EQ(frame.positions[0].x, 2.0);
  reader.readFrame(3, frame);
  EXPECT_EQ(frame.positions[0].x, 9.0);
}

/// A frame with a NaN coordinate (or a cell that is no box) stops the reader naming the
/// file, the frame and the atom; the frames before it read as usual.
TEST(DcdFile, NonFiniteCoordinatesAreRejectedNamingFrameAndAtom) {
  TempDir dir;
  const std::size_t atoms = 9;
  {
    DcdWriter writer(dir / "t.dcd", atoms, 0, 10, 0.002);
    for (int f = 0; f < 3; ++f) {
      Coordinates c = sampleCoordinates(atoms, 77, false, unsigned(f));
      if (f == 1) c.positions[4].y = std::numeric_limits<double>::quiet_NaN();
      writer.writeFrame(c.positions, Box::rectangular(3, 3, 3));
    }
    writer.writeFrame(sampleCoordinates(atoms, 77, false, 5).positions,
                      Box::rectangular(3, std::numeric_limits<double>::infinity(), 3));
  }
  DcdReader reader(dir / "t.dcd", atoms);
  TrajectoryFrame frame;
  reader.readFrame(0, frame);
  reader.readFrame(2, frame);
  const std::string nan = errorOf([&] { reader.readFrame(1, frame); });
  EXPECT_NE(nan.find((dir / "t.dcd").string() + ": frame 2 of 4, atom 5: non-finite y coordinate"), std::string::npos)
      << nan;
  const std::string cell = errorOf([&] { reader.readFrame(3, frame); });
  EXPECT_NE(cell.find("frame 4 of 4: the unit cell cannot be brought to the reduced triclinic form"), std::string::npos) << cell;
}

/// A DCD that ends inside a frame (a killed writer) is an error naming the file and the frame;
/// a restart, which drops that frame, may still read it.
TEST(DcdFile, AFileEndingInsideAFrameIsAnError) {
  TempDir dir;
  {
    DcdWriter writer(dir / "t.dcd", 5, 0, 10, 0.002);
    for (int f = 0; f < 3; ++f) writer.writeFrame(std::vector<Vec3>(5, Vec3{1, 2, 3}), Box::rectangular(2, 3, 4));
  }
  const std::string bytes = readText(dir / "t.dcd");
  writeText(dir / "cut.dcd", bytes.substr(0, bytes.size() - 7));
  EXPECT_HAS(errorOf([&] { DcdReader(dir / "cut.dcd", 5); }),
             (dir / "cut.dcd").string() + ": frame 3 is cut short: the file ends after 133 of its 140 bytes");
  EXPECT_EQ(DcdReader(dir / "cut.dcd", 5, /*allowCutLastFrame=*/true).frames(), 2);
  EXPECT_EQ(DcdWriter::append(dir / "cut.dcd", 5, 10, 15).frames(), 2);
  EXPECT_EQ(DcdReader(dir / "cut.dcd", 5).frames(), 2);
}

/// AtomicFileWriter: PATH is the old file or the new one, never half of one; a stream that
/// fails (a full disk) or a writer dropped before commit() leaves no temporary file.
TEST(AtomicFile, AFailedStreamOrAnAbandonedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  writeText(dir / "m.dx", "old\n");
  {
    AtomicFileWriter w(dir / "m.dx");
    w.out() << "new, half";
    EXPECT_TRUE(fs::exists(dir / "m.dx.tmp"));
    w.out().setstate(std::ios::badbit);
    EXPECT_HAS(errorOf([&] { w.commit(); }), (dir / "m.dx").string() + ": write failed");
  }
  EXPECT_EQ(readText(dir / "m.dx"), "old\n");
  EXPECT_FALSE(fs::exists(dir / "m.dx.tmp"));
  {
    AtomicFileWriter w(dir / "m.dx");
    w.out() << "abandoned";
  }
  EXPECT_EQ(readText(dir / "m.dx"), "old\n");
  EXPECT_FALSE(fs::exists(dir / "m.dx.tmp"));
  {
    AtomicFileWriter w(dir / "m.dx");
    w.out() << "new\n";
    w.commit(true);
  }
  EXPECT_EQ(readText(dir / "m.dx"), "new\n");
  EXPECT_EQ(readText(dir / "m.dx.prev"), "old\n");
  EXPECT_FALSE(fs::exists(dir / "m.dx.tmp"));
}

TEST(DcdFile, ReaderChecksTheAtomCountAndNamesTheFile) {
  TempDir dir;
  { DcdWriter writer(dir / "w.dcd", 4, 0, 1, 0.002); }
  try {
    DcdReader reader(dir / "w.dcd", 5);
    FAIL() << "atom count not checked";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("w.dcd"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("4 atoms, the system has 5"), std::string::npos) << e.what();
  }
  writeText(dir / "junk.dcd", "not a trajectory at all");
  EXPECT_THROW(DcdReader(dir / "junk.dcd"), Error);
  EXPECT_THROW(DcdReader(dir / "missing.dcd"), Error);
}

}  // namespace
}  // namespace faraday::test
