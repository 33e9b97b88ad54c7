// Damaged trajectories (DCD and XTC): every truncation and damaged byte gives an error
// naming the file, never a crash, a hang or an unbounded allocation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/Error.h"
#include "engine/formats/DcdFile.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/formats/XtcFile.h"
#include "tests/XtcTestFrames.h"

namespace faraday::test {
namespace {

// ---- damaged files -------------------------------------------------------------------------

/// Three frames of 40 atoms, DCD or XTC, then every truncation and, at every byte, two kinds
/// of damage (all bits, one bit): reading all frames either works or throws Error naming
/// the file, never crashes, hangs or allocates without bound. XTC names the frame too, and
/// for both a truncation inside a frame is always an error naming the frame.
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
    if ((long long)cut > frameStarts[0] && !boundary) {
      EXPECT_EQ(count, -1) << "a cut inside a frame read without error, at " << cut;
      long long again = 0;
      EXPECT_NE(readAll(bytes.substr(0, cut), again).find("is cut short"), std::string::npos) << "cut at " << cut;
    }
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

}  // namespace
}  // namespace faraday::test
