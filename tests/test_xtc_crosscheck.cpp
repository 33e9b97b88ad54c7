// XTC files across programs: MDAnalysis reading Faraday's frames, Faraday reading (and on the
// grid writing the same bytes as) MDAnalysis', and gmx check and dump reading Faraday's
// (skipped where they are not installed).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/formats/XtcFile.h"
#include "tests/XtcTestFrames.h"

namespace faraday::test {
namespace {

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
      EXPECT_EQ(frame.box.diagonal(), (Vec3{g.box[0], g.box[4], g.box[8]}));
      EXPECT_LE(worstDifference(frame.positions, g.positions, tol::kXtcFloatRelative), 0.5 / precision) << "frame " << f;
    }
  }
  // On the grid, rounding in float and in double agree: the files must be the same.
  std::vector<TextFrame> grid(3);
  for (int f = 0; f < 3; ++f) {
    grid[std::size_t(f)] = {gridStep(f), gridTime(f), 1000, {}, gridFrame(f, 999)};
    const Vec3 l = gridBox(f).diagonal();
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
