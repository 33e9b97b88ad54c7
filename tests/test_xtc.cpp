// XTC trajectories: the coordinate codec against its definition, XtcWriter and XtcReader,
// restarts, damaged files (XTC and DCD), `faraday run`, `rerun` and `map` with XTC, files
// written by MDAnalysis and GROMACS, and MDAnalysis and gmx reading Faraday's files
// (skipped where they are not installed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

#include "engine/config/Config.h"
#include "engine/formats/DcdFile.h"
#include "core/Error.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/XtcCodec.h"
#include "engine/formats/XtcFile.h"
#include "tests/EngineTestSupport.h"
#include "tests/Tolerances.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/config/LoadConfig.h"
#include "engine/config/ConfigHelp.h"

namespace faraday::test {
namespace {

// ---- frames ----------------------------------------------------------------------------------

/// Coordinate k of atom i in frame f, in units of 0.001 nm: molecules of three atoms, the
/// second and third within 0.08 nm of the first (as water's hydrogens), over -1..3 nm.
/// tests/data/xtc_ref_mda_*.xtc hold these frames as MDAnalysis writes them.
int gridCoordinate(int f, std::size_t i, int k) {
  const int m = int(i / 3), j = int(i % 3);
  const int base = (m * 7919 + k * 104729 + f * 31) % 4001 - 1000;
  const int offset = j == 0 ? 0 : (j * 37 + k * 13 + f) % 160 - 80;
  return base + offset;
}
std::vector<Vec3> gridFrame(int f, std::size_t atoms) {
  std::vector<Vec3> p(atoms);
  for (std::size_t i = 0; i < atoms; ++i)
    for (int k = 0; k < 3; ++k) p[i][k] = gridCoordinate(f, i, k) / 1000.0;
  return p;
}
Box gridBox(int f) { return Box::rectangular(4.0 + 0.25 * f, 4.5, 5.0); }
long long gridStep(int f) { return 1000 + 500 * f; }
double gridTime(int f) { return 2.0 + f; }

void writeGridFrames(const fs::path& file, std::size_t atoms) {
  XtcWriter w(file, atoms, 1000);
  for (int f = 0; f < 3; ++f) w.writeFrame(gridFrame(f, atoms), gridBox(f), gridStep(f), gridTime(f));
}

/// `n` atoms in molecules of three: oxygens uniform in [lo, lo + extent)^3, hydrogens 0.1 nm
/// from their oxygen in random directions.
std::vector<Vec3> waterLike(std::size_t n, double lo, double extent, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % 3 == 0) {
      p[i] = {lo + extent * u(rng), lo + extent * u(rng), lo + extent * u(rng)};
    } else {
      const Vec3 d{g(rng), g(rng), g(rng)};
      p[i] = p[i - i % 3] + d * (0.1 / std::sqrt(norm2(d)));
    }
  }
  return p;
}

/// A random walk of `n` atoms whose step lengths span 1e-4 .. 1 nm: the small-difference
/// sizes must follow them up and down the table.
std::vector<Vec3> multiScaleChain(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(-4.0, 0.0);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> p(n);
  for (std::size_t i = 1; i < n; ++i) {
    const double scale = std::pow(10.0, exponent(rng));
    p[i] = p[i - 1] + Vec3{g(rng), g(rng), g(rng)} * scale;
  }
  return p;
}

// ---- the codec -------------------------------------------------------------------------------

std::vector<Vec3> roundTrip(const std::vector<Vec3>& positions, float precision, std::size_t* bytes = nullptr) {
  std::string block;
  xtc::encodeCoordinates(block, positions, precision);
  if (bytes) *bytes = block.size();
  xtc::XdrCursor in(reinterpret_cast<const unsigned char*>(block.data()), block.size());
  std::vector<Vec3> read;
  xtc::decodeCoordinates(in, positions.size(), read);
  EXPECT_EQ(in.offset(), block.size()) << "the block has bytes the reader did not use";
  return read;
}

/// Every coordinate read back is round(x p) / p exactly, so within 0.5 / p of what was written.
void expectOnTheGrid(const std::vector<Vec3>& written, const std::vector<Vec3>& read, float precision) {
  ASSERT_EQ(read.size(), written.size());
  const double p = precision;
  long long offGrid = 0;
  double worst = 0;
  std::string first;
  for (std::size_t i = 0; i < written.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = written[i][k], r = read[i][k];
      if (r != double(std::llround(x * p)) / p && offGrid++ == 0)
        first = "atom " + std::to_string(i + 1) + " " + "xyz"[k] + ": wrote " + std::to_string(x) + ", read " +
                std::to_string(r);
      worst = std::max(worst, std::fabs(r - x) - tol::kXtcDoubleRounding * (std::fabs(x) + 1));
    }
  EXPECT_EQ(offGrid, 0) << first;
  EXPECT_LE(worst, 0.5 / p);
}

TEST(XtcCodec, FramesOfUpToNineAtomsStorePlainFloats) {
  for (std::size_t n : {1u, 3u, 9u}) {
    const std::vector<Vec3> p = waterLike(n, -2.0, 4.0, unsigned(n));
    std::size_t bytes = 0;
    const std::vector<Vec3> r = roundTrip(p, 1000, &bytes);
    EXPECT_EQ(bytes, 4 + 12 * n) << n;  // the atom count, then 3N floats
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) EXPECT_EQ(r[i][k], double(float(p[i][k]))) << n << " atoms, atom " << i;
  }
}

TEST(XtcCodec, CompressedFramesReadBackOnThePrecisionGrid) {
  for (std::size_t n : {10u, 11u, 100u, 3000u})
    for (float precision : {1000.0f, 100.0f, 333.3f, 100000.0f}) {
      SCOPED_TRACE(std::to_string(n) + " atoms, precision " + std::to_string(precision));
      const std::vector<Vec3> water = waterLike(n, -3.0, 6.0, unsigned(n));
      expectOnTheGrid(water, roundTrip(water, precision), precision);
      const std::vector<Vec3> chain = multiScaleChain(n, unsigned(n) + 1);
      expectOnTheGrid(chain, roundTrip(chain, precision), precision);
    }
}

/// Atoms close to the one before go as small differences in runs: a chain of 0.005 nm steps
/// takes under 3/4 of the bytes of the same atoms in random order (measured: 2.3 and 3.6
/// bytes per atom; plain floats take 12).
TEST(XtcCodec, CloseAtomsCompressAsRunsOfSmallDifferences) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Vec3> chain(3000);
  for (std::size_t i = 1; i < chain.size(); ++i) chain[i] = chain[i - 1] + Vec3{g(rng), g(rng), g(rng)} * 0.005;
  std::vector<Vec3> shuffled = chain;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  std::size_t close = 0, far = 0;
  expectOnTheGrid(chain, roundTrip(chain, 1000, &close), 1000);
  expectOnTheGrid(shuffled, roundTrip(shuffled, 1000, &far), 1000);
  EXPECT_LT(double(close), 0.75 * double(far));
}

/// Ranges beyond 2^24 integers send each coordinate alone; negative and mixed ranges, atoms
/// all at one point and coordinates near the 31-bit limit read back on the grid.
TEST(XtcCodec, LargeNegativeAndDegenerateCoordinatesReadBackOnTheGrid) {
  std::vector<Vec3> wide = waterLike(300, -1.0e5, 2.0e5, 3);  // 2e8 integers per dimension at 1000/nm
  expectOnTheGrid(wide, roundTrip(wide, 1000), 1000);
  std::vector<Vec3> mixed = waterLike(300, -2.0, 4.0, 4);
  for (std::size_t i = 0; i < mixed.size(); i += 7) mixed[i].y = -40000.0 + 11.0 * double(i);  // only y wide
  expectOnTheGrid(mixed, roundTrip(mixed, 1000), 1000);
  const std::vector<Vec3> same(50, Vec3{-1.234, 0.5, 7.0});  // sizes of 1: one bit per large coordinate
  expectOnTheGrid(same, roundTrip(same, 1000), 1000);
  const std::vector<Vec3> edge = {{-2.1e6, 2.1e6, 0}, {2.147e6, -2.147e6, 1}, {0, 0, 0}, {1, 1, 1}, {2, 2, 2},
                                  {3, 3, 3},          {4, 4, 4},              {5, 5, 5}, {6, 6, 6}, {7, 7, 7}};
  expectOnTheGrid(edge, roundTrip(edge, 1000), 1000);  // 2.147e9 < 2^31 - 2 integers
}

TEST(XtcCodec, CoordinatesBeyondThirtyOneBitsOrNotFiniteAreRefusedNamingTheAtom) {
  std::vector<Vec3> p = waterLike(20, 0.0, 3.0, 5);
  p[12].z = 2.2e6;  // 2.2e9 integers at 1000/nm
  std::string block;
  try {
    xtc::encodeCoordinates(block, p, 1000);
    FAIL() << "a coordinate beyond 2^31 integers was written";
  } catch (const xtc::CodecError& e) {
    EXPECT_HAS(e.what, "atom 13: z = 2200000");
  }
  p[12].z = std::numeric_limits<double>::quiet_NaN();
  try {
    xtc::encodeCoordinates(block, p, 1000);
    FAIL() << "a NaN was written";
  } catch (const xtc::CodecError& e) {
    EXPECT_HAS(e.what, "atom 13 has a non-finite z coordinate");
  }
}

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
    EXPECT_EQ(frame.box.lengths(), (Vec3{3.0 + 0.125 * f, 3.5, 4.0}));
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
      EXPECT_EQ(frame.box.lengths(), gridBox(f).lengths());
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
  {
    XtcWriter writer = XtcWriter::append(dir / "cut.xtc", 12, 10, 1000, 1000);
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

/// An all-zero box means none (as GROMACS writes for vacuum); a triclinic one is refused.
TEST(XtcFile, TheBoxIsOptionalButMustBeRectangular) {
  TempDir dir;
  {
    XtcWriter writer(dir / "b.xtc", 12, 1000);
    writer.writeFrame(waterLike(12, 0, 2, 1), Box{}, 0, 0);
    writer.writeFrame(waterLike(12, 0, 2, 2), Box{{2, 0, 0}, {0.5, 2, 0}, {0, 0, 2}}, 10, 0.02);
  }
  XtcReader reader(dir / "b.xtc", 12);
  TrajectoryFrame frame;
  reader.readFrame(0, frame);
  EXPECT_FALSE(frame.hasBox);
  EXPECT_HAS(errorOf([&] { reader.readFrame(1, frame); }),
             "b.xtc: frame 2 of 2: the box is triclinic; only rectangular boxes are supported");
}

// ---- damaged files -------------------------------------------------------------------------

/// Three frames of 40 atoms, DCD or XTC, then every truncation and, at every byte, two kinds
/// of damage (all bits, one bit): reading all frames either works or throws Error naming
/// the file, never crashes, hangs or allocates without bound. XTC names the frame too, and
/// a truncation inside a frame is always an error.
class TrajectoryFuzz : public ::testing::TestWithParam<std::string> {};

TEST_P(TrajectoryFuzz, TruncatedAndDamagedFilesGiveErrorsNamingTheFile) {
  TempDir dir;
  const std::size_t atoms = 40;
  const bool xtc = GetParam() == "xtc";
  const fs::path good = dir / ("good." + GetParam()), bad = dir / ("bad." + GetParam());
  std::vector<long long> frameStarts, frameEnds;
  {
    std::unique_ptr<TrajectoryWriter> writer;
    if (xtc)
      writer = std::make_unique<XtcWriter>(good, atoms, 1000);
    else
      writer = std::make_unique<DcdWriter>(good, atoms, 0, 10, 0.002);
    for (int f = 0; f < 3; ++f) {
      State s;
      s.positions = waterLike(atoms, -1.0, 3.0, unsigned(f));
      s.box = Box::rectangular(3, 3, 3);
      s.step = 10 * f;
      s.time = 0.02 * f;
      frameStarts.push_back((long long)fs::file_size(good));
      writer->write(s);
      frameEnds.push_back((long long)fs::file_size(good));
    }
  }
  const std::string bytes = readText(good);
  // "" when every frame was read, else the error; frames() through `count`.
  const auto readAll = [&](const std::string& content, long long& count) -> std::string {
    writeText(bad, content);
    count = -1;
    try {
      const auto reader = openTrajectory(bad, (long long)atoms);
      count = reader->frames();
      TrajectoryFrame frame;
      for (long long f = 0; f < reader->frames(); ++f) reader->readFrame(f, frame);
      return "";
    } catch (const Error& e) {
      return e.what();
    }
  };
  long long cases = 0, errors = 0;
  const auto check = [&](const std::string& content, const std::string& what) {
    long long count = 0;
    const std::string error = readAll(content, count);
    ++cases;
    if (error.empty()) return count;
    ++errors;
    EXPECT_EQ(error.rfind(bad.string() + ": ", 0), 0u) << what << ": " << error;
    if (xtc)
      EXPECT_TRUE(error.find("frame ") != std::string::npos || error.find("the system has") != std::string::npos)
          << what << ": " << error;
    return count;
  };
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    const long long count = check(bytes.substr(0, cut), "cut at " + std::to_string(cut));
    const bool boundary = std::find(frameEnds.begin(), frameEnds.end(), (long long)cut) != frameEnds.end();
    EXPECT_LT(count, 3) << "cut at " << cut;
    if (xtc && cut > 0 && !boundary) EXPECT_EQ(count, -1) << "a cut inside a frame read without error, at " << cut;
  }
  for (std::size_t at = 0; at < bytes.size(); ++at)
    for (const unsigned char flip : {0xffu, 1u << (at % 8)}) {
      std::string damaged = bytes;
      damaged[at] = char(damaged[at] ^ flip);
      const long long before = errors;
      check(damaged, "byte " + std::to_string(at) + " xor " + std::to_string(flip));
      // The first word of a frame (XTC's magic number, DCD's record length) is always checked.
      for (const long long start : frameStarts)
        if ((long long)at >= start && (long long)at < start + 4) EXPECT_EQ(errors, before + 1) << "byte " << at;
    }
  std::printf("%s: %lld damaged or cut files, %lld errors\n", GetParam().c_str(), cases, errors);
}

INSTANTIATE_TEST_SUITE_P(Formats, TrajectoryFuzz, ::testing::Values("dcd", "xtc"));

// ---- configuration -----------------------------------------------------------------------

TEST(XtcConfig, TheFormatFollowsTheExtensionAndThePrecisionIsAKey) {
  TempDir dir;
  writeText(dir / "argon.gro", argonGro(2));
  writeText(dir / "sim.cfg", argonConfig());
  const auto load = [&](const std::vector<std::string>& overrides) { return loadConfig(dir / "sim.cfg", overrides); };
  EXPECT_EQ(load({"--output.trajectory_file=t.XTC"}).output.trajectoryFile, "t.XTC");
  EXPECT_EQ(load({"--output.xtc_precision=100"}).output.xtcPrecision, 100.0);
  EXPECT_EQ(load({}).output.xtcPrecision, 1000.0);
  EXPECT_HAS(errorOf([&] { load({"--output.trajectory_file=traj.trr"}); }),
             "command line: key 'output.trajectory_file': unknown trajectory format '.trr' in traj.trr (expected .dcd or .xtc)");
  EXPECT_HAS(errorOf([&] { load({"--rerun.trajectory=t.nc"}); }), "key 'rerun.trajectory': unknown trajectory format '.nc'");
  EXPECT_HAS(errorOf([&] { load({"--map.trajectory=t"}); }), "key 'map.trajectory': unknown trajectory format ''");
  EXPECT_HAS(errorOf([&] { load({"--output.xtc_precision=0"}); }),
             "command line: key 'output.xtc_precision': must be > 0 1/nm (got 0)");
  // The precision key does nothing for a DCD: a warning says so.
  const auto warnings = [&](const std::vector<std::string>& overrides) {
    std::string all;
    for (const std::string& w : load(overrides).warnings) all += w + "\n";
    return all;
  };
  EXPECT_HAS(warnings({"--output.xtc_precision=100"}),
             "command line: key 'output.xtc_precision': has no effect with output.trajectory_file = \"traj.dcd\" (not .xtc)");
  EXPECT_EQ(warnings({"--output.xtc_precision=100", "--output.trajectory_file=traj.xtc"}), "");
  EXPECT_HAS(configHelp(), "output.xtc_precision");
  EXPECT_HAS(configHelp(), ".xtc (GROMACS XTC, nm)");
}

// ---- runs ------------------------------------------------------------------------------------

using XtcRun = ArgonFolderTest;

/// The same run written as DCD and as XTC: the XTC frames are the DCD's to the precision;
/// faraday rerun reads the steps and times of the XTC and gets the run's energies up to the
/// rounding, and faraday map averages it.
TEST_F(XtcRun, FaradayRunWritesAnXtcThatRerunAndMapRead) {
  ASSERT_EQ(runFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=dcd"}).exitCode, 0);
  const CommandResult run =
      runFaraday(dir.path(), {"run", "sim.cfg", "--output.directory=xtc", "--output.trajectory_file=traj.xtc"});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  DcdReader dcd(dir / "dcd" / "traj.dcd", 108);
  XtcReader xtc(dir / "xtc" / "traj.xtc", 108);
  ASSERT_EQ(xtc.frames(), 3);
  ASSERT_EQ(dcd.frames(), 3);
  TrajectoryFrame a, b;
  for (long long f = 0; f < 3; ++f) {
    dcd.readFrame(f, a);
    xtc.readFrame(f, b);
    EXPECT_EQ(b.step, 10 * f);
    EXPECT_EQ(b.time, double(float(0.04 * double(f))));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.box.lengths()[k], a.box.lengths()[k], a.box.lengths()[k] * tol::kFloat32Relative);
    double worst = 0;
    for (std::size_t i = 0; i < 108; ++i)
      for (int k = 0; k < 3; ++k)
        worst = std::max(worst, std::fabs(b.positions[i][k] - a.positions[i][k]) -
                                    std::fabs(a.positions[i][k]) * (tol::kFloat32Relative + tol::kXtcDoubleRounding));
    EXPECT_LE(worst, 0.5 / 1000) << "frame " << f;
    // The first frame is the .gro's, on the 0.001 nm grid already.
    if (f > 0) EXPECT_GT(worst, 0.0) << "frame " << f << ": the XTC is not rounded to 0.001 nm";
  }

  const CommandResult rerun = runFaraday(dir.path(), {"rerun", "sim.cfg", "--rerun.trajectory=xtc/traj.xtc"});
  ASSERT_EQ(rerun.exitCode, 0) << rerun.err;
  EXPECT_HAS(rerun.out, "rerun: 3 frame(s) x 108 atoms");
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 1), (std::vector<double>{0, 10, 20}));
  EXPECT_EQ(csvColumn(dir / "out" / "rerun.csv", 2), (std::vector<double>{0, 0.04, 0.08}));
  const std::vector<double> energies = csvColumn(dir / "out" / "rerun.csv", 3), expected = csvColumn(dir / "xtc" / "energy.csv", 2);
  ASSERT_EQ(energies.size(), expected.size());
  for (std::size_t f = 0; f < energies.size(); ++f)
    EXPECT_NEAR(energies[f], expected[f], tol::kXtcTrajectoryEnergy * std::fabs(expected[f])) << "frame " << f;

  const CommandResult map = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=xtc/traj.xtc", "--map.file=m.dx"});
  ASSERT_EQ(map.exitCode, 0) << map.err;
  EXPECT_HAS(map.out, "potential map: 3 frames x 108 atoms");
  writeText(dir / "small.gro", argonGro(2));
  const CommandResult wrong = runFaraday(dir.path(), {"map", "sim.cfg", "--map.trajectory=xtc/traj.xtc",
                                                      "--system.coordinates=small.gro", "--nonbonded.cutoff=0.4"});
  EXPECT_EQ(wrong.exitCode, 1);
  EXPECT_HAS(wrong.err, (dir / "xtc" / "traj.xtc").string() + ": trajectory has 108 atoms, the system has 32");
}

/// A restart from a checkpoint drops the frames written after it (here a whole one and a
/// cut one, as a run killed while writing leaves them) and continues: the file is the
/// uninterrupted run's, byte for byte.
TEST_F(XtcRun, RestartContinuesAfterTheCheckpointStep) {
  const std::vector<std::string> xtc = {"--output.trajectory_file=traj.xtc", "--output.xtc_precision=10000"};
  const auto run = [&](const std::string& out, long long steps, std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "sim.cfg", "--output.directory=" + out, "--run.steps=" + std::to_string(steps)};
    args.insert(args.end(), xtc.begin(), xtc.end());
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = runFaraday(dir.path(), args);
    EXPECT_EQ(r.exitCode, 0) << r.err;
  };
  run("full", 40, {});
  run("split", 10, {});
  fs::copy_file(dir / "split" / "state.chk", dir / "step10.chk");
  run("split", 30, {"--restart", "step10.chk"});  // frames 0 .. 30
  const std::string written = readText(dir / "split" / "traj.xtc");
  writeText(dir / "split" / "traj.xtc", written.substr(0, written.size() - 100));  // frame 30 cut
  EXPECT_EQ(XtcReader(dir / "full" / "traj.xtc", 108).frames(), 5);
  run("split", 40, {"--restart", "step10.chk"});
  EXPECT_TRUE(readText(dir / "split" / "traj.xtc") == readText(dir / "full" / "traj.xtc"));
  EXPECT_EQ(XtcReader(dir / "split" / "traj.xtc", 108).frames(), 5);
}

// ---- other programs ------------------------------------------------------------------------

/// Runs tools/xtc_check.py ARGS in `dir`; the exit code (77: MDAnalysis missing), output in check.out.
int xtcCheck(const fs::path& dir, const std::string& args) {
  const std::string command = "cd " + shellQuote(dir.string()) + " && python3 " +
                              shellQuote(sourceDir() + "/tools/xtc_check.py") + " " + args + " > check.out 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define SKIP_WITHOUT_MDANALYSIS(dir)                                                             \
  if (xtcCheck(dir, "dump /dev/null /dev/null") == 77)                                            \
  GTEST_SKIP() << "MDAnalysis is not importable (pip install MDAnalysis): " << readText((dir) / "check.out")

struct TextFrame {
  long long step = 0;
  double time = 0, precision = 0;
  double box[9] = {};
  std::vector<Vec3> positions;
};

/// The frames of xtc_check.py's text.
std::vector<TextFrame> readTextFrames(const fs::path& file) {
  std::istringstream in(readText(file));
  std::vector<TextFrame> frames;
  std::string word;
  while (in >> word) {
    EXPECT_EQ(word, "frame");
    TextFrame f;
    std::size_t atoms = 0;
    in >> f.step >> f.time >> f.precision >> atoms >> word;
    for (double& b : f.box) in >> b;
    f.positions.resize(atoms);
    for (Vec3& r : f.positions) in >> r.x >> r.y >> r.z;
    if (!in) break;
    frames.push_back(std::move(f));
  }
  return frames;
}

void writeTextFrames(const fs::path& file, const std::vector<TextFrame>& frames) {
  std::ostringstream out;
  out.precision(17);
  for (const TextFrame& f : frames) {
    out << "frame " << f.step << " " << f.time << " " << f.precision << " " << f.positions.size() << "\nbox";
    for (double b : f.box) out << " " << b;
    out << "\n";
    for (const Vec3& r : f.positions) out << r.x << " " << r.y << " " << r.z << "\n";
  }
  writeText(file, out.str());
}

/// Largest |a - b| - |b| relative over all coordinates.
double worstDifference(const std::vector<Vec3>& a, const std::vector<Vec3>& b, double relative) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(a[i][k] - b[i][k]) - std::fabs(b[i][k]) * relative);
  return worst;
}

/// Frames Faraday writes, read by MDAnalysis: the same steps, times, boxes and coordinates
/// (MDAnalysis computes n / p in float).
TEST(XtcCrossCheck, MdanalysisReadsFaradaysFrames) {
  TempDir dir;
  SKIP_WITHOUT_MDANALYSIS(dir.path());
  for (std::size_t atoms : {5u, 300u}) {
    SCOPED_TRACE(std::to_string(atoms) + " atoms");
    const std::vector<std::vector<Vec3>> written = {waterLike(atoms, -2, 5, 1), multiScaleChain(atoms, 2),
                                                    waterLike(atoms, -500, 1000, 3)};
    {
      XtcWriter writer(dir / "f.xtc", atoms, 1000);
      for (std::size_t f = 0; f < written.size(); ++f)
        writer.writeFrame(written[f], Box::rectangular(5.0 + double(f), 6, 7), 100 * (long long)f, 0.2 * double(f));
    }
    ASSERT_EQ(xtcCheck(dir.path(), "dump f.xtc f.txt"), 0) << readText(dir / "check.out");
    const std::vector<TextFrame> read = readTextFrames(dir / "f.txt");
    XtcReader reader(dir / "f.xtc", (long long)atoms);
    ASSERT_EQ(read.size(), written.size());
    TrajectoryFrame ours;
    for (std::size_t f = 0; f < read.size(); ++f) {
      reader.readFrame((long long)f, ours);
      EXPECT_EQ(read[f].step, ours.step);
      EXPECT_EQ(float(read[f].time), float(ours.time));
      if (atoms > 9) EXPECT_EQ(read[f].precision, 1000.0);
      EXPECT_EQ(read[f].box[0], 5.0 + double(f));
      EXPECT_EQ(read[f].box[4], 6.0);
      EXPECT_EQ(read[f].box[8], 7.0);
      EXPECT_EQ(read[f].box[1], 0.0);
      ASSERT_EQ(read[f].positions.size(), atoms);
      EXPECT_LE(worstDifference(read[f].positions, ours.positions, tol::kXtcFloatRelative), 0.0) << "frame " << f;
    }
  }
}

/// Frames MDAnalysis writes, read by Faraday: within half a precision step of what it was
/// given (it rounds x p in float), with their steps, times and boxes; and on the 0.001 nm
/// grid both write the same bytes.
TEST(XtcCrossCheck, FaradayReadsMdanalysisFramesAndWritesTheSameBytes) {
  TempDir dir;
  SKIP_WITHOUT_MDANALYSIS(dir.path());
  for (const double precision : {1000.0, 100.0}) {
    std::vector<TextFrame> given(3);
    for (std::size_t f = 0; f < given.size(); ++f) {
      given[f].step = 7 + 5 * (long long)f;
      given[f].time = 1.5 * double(f);
      given[f].precision = precision;
      given[f].box[0] = given[f].box[4] = given[f].box[8] = 3.0 + 0.5 * double(f);
      for (const Vec3& r : f == 1 ? multiScaleChain(600, 9) : waterLike(600, -3, 6, unsigned(f)))
        given[f].positions.push_back({float(r.x), float(r.y), float(r.z)});  // MDAnalysis takes float32
    }
    writeTextFrames(dir / "in.txt", given);
    ASSERT_EQ(xtcCheck(dir.path(), "write in.txt m.xtc"), 0) << readText(dir / "check.out");
    XtcReader reader(dir / "m.xtc", 600);
    ASSERT_EQ(reader.frames(), 3);
    TrajectoryFrame frame;
    for (long long f = 0; f < 3; ++f) {
      const TextFrame& g = given[std::size_t(f)];
      reader.readFrame(f, frame);
      EXPECT_EQ(frame.step, g.step);
      EXPECT_EQ(frame.time, g.time);
      EXPECT_EQ(frame.box.lengths(), (Vec3{g.box[0], g.box[4], g.box[8]}));
      EXPECT_LE(worstDifference(frame.positions, g.positions, tol::kXtcFloatRelative), 0.5 / precision) << "frame " << f;
    }
  }
  // On the grid, rounding in float and in double agree: the files must be the same.
  std::vector<TextFrame> grid(3);
  for (int f = 0; f < 3; ++f) {
    grid[std::size_t(f)] = {gridStep(f), gridTime(f), 1000, {}, gridFrame(f, 999)};
    const Vec3 l = gridBox(f).lengths();
    grid[std::size_t(f)].box[0] = l.x, grid[std::size_t(f)].box[4] = l.y, grid[std::size_t(f)].box[8] = l.z;
  }
  writeTextFrames(dir / "grid.txt", grid);
  ASSERT_EQ(xtcCheck(dir.path(), "write grid.txt mda.xtc"), 0) << readText(dir / "check.out");
  writeGridFrames(dir / "faraday.xtc", 999);
  EXPECT_TRUE(readText(dir / "faraday.xtc") == readText(dir / "mda.xtc")) << "Faraday and MDAnalysis write different bytes";
}

/// `gmx check` reads every frame of a Faraday XTC without a warning, and `gmx dump` shows its
/// coordinates (printed with 6 digits).
TEST(XtcCrossCheck, GmxCheckAndDumpReadFaradaysXtc) {
  TempDir dir;
  if (std::system("gmx --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gmx (GROMACS) is not installed";
  const std::vector<Vec3> p = waterLike(300, -1, 4, 11);
  {
    XtcWriter writer(dir / "g.xtc", 300, 1000);
    for (int f = 0; f < 4; ++f) writer.writeFrame(p, Box::rectangular(4, 4, 4), 50LL * f, 0.1 * f);
  }
  const std::string quoted = shellQuote((dir / "g.xtc").string());
  ASSERT_EQ(std::system(("gmx check -f " + quoted + " > " + shellQuote((dir / "check.txt").string()) + " 2>&1").c_str()), 0);
  const std::string check = readText(dir / "check.txt");
  EXPECT_HAS(check, "# Atoms  300");
  EXPECT_HAS(check, "Precision 0.001 (nm)");
  EXPECT_HAS(check, "Last frame          3 time    0.300");
  EXPECT_HAS(check, "Coords           4");
  EXPECT_EQ(check.find("WARNING"), std::string::npos) << check;
  EXPECT_EQ(check.find("Incomplete"), std::string::npos) << check;
  ASSERT_EQ(std::system(("gmx dump -f " + quoted + " > " + shellQuote((dir / "dump.txt").string()) + " 2> /dev/null").c_str()), 0);
  const std::string dump = readText(dir / "dump.txt");
  EXPECT_HAS(dump, "natoms=       300  step=       150  time=3.0000001e-01  prec=      1000");
  std::size_t seen = 0;
  double worst = 0;
  for (const std::string& line : lines(dump)) {
    std::size_t index = 0;
    double v[3];
    if (std::sscanf(line.c_str(), " x[%zu]={%lf, %lf, %lf}", &index, &v[0], &v[1], &v[2]) != 4) continue;
    ASSERT_LT(index, p.size());
    for (int k = 0; k < 3; ++k)
      worst = std::max(worst, std::fabs(v[k] - p[index][k]) - std::fabs(p[index][k]) * tol::kGmxDumpRelative);
    ++seen;
  }
  EXPECT_EQ(seen, 4u * 300);
  EXPECT_LE(worst, 0.5 / 1000);
}

}  // namespace
}  // namespace faraday::test
