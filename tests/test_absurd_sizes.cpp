// Absurd sizes fail at once with one line naming the file and line: molecule counts far
// beyond the coordinates or beyond any system (compared before a single copy is made) and a
// gigantic line (read in bounded memory).
#include <gtest/gtest.h>

#include <chrono>

#include "engine/config/LoadConfig.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "tests/EngineTestSupport.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// Seconds `f` takes.
template <typename F>
double secondsOf(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(AbsurdSizes, MoleculeCountsAreComparedBeforeAnyCopyIsMade) {
  TempDir dir;
  const fs::path file = dir / "t.top";
  for (const char* count : {"1000000000000", "2147483649", "100000"}) {
    const std::string top = std::string(kSmallForceField) +
                            "[ moleculetype ]\nTRI 3\n[ atoms ]\n1 A 1 TRI A1 1 0.0 12.0\n2 A 1 TRI A2 1 0.0 12.0\n"
                            "3 B 1 TRI B3 1 0.0 16.0\n[ system ]\nmany\n[ molecules ]\nTRI " + count + "\n";
    writeText(file, top);
    const std::string molecules = file.string() + ":" + std::to_string(lineOf(top, "[ molecules ]"));
    std::string e;
    EXPECT_LT(secondsOf([&] { e = errorOf([&] { readGromacsTopology(file, {}, {}, 151, "conf.gro"); }); }), 1.0) << count;
    if (std::string(count) == "100000")
      EXPECT_EQ(e, "conf.gro: 151 atoms, but the topology " + file.string() + " has 300000 (its [ molecules ] at " +
                       molecules + ")");
    else
      EXPECT_EQ(e, molecules + ": [ molecules ] lists " + std::to_string(3 * std::stoll(count)) +
                       " atoms, more than the 2147483647 a system can have");
  }
}

/// A line beyond LineFile::kMaxLineBytes stops the reading at that line, in bounded memory.
TEST(AbsurdSizes, AGiganticLineIsAnErrorNamingItsLine) {
  TempDir dir;
  {
    std::ofstream out(dir / "t.top", std::ios::binary);
    out << "; a comment\n;";
    const std::string block(1 << 20, 'x');
    for (int k = 0; k < 64; ++k) out << block;  // a 64 MB comment line
    out << "\n[ defaults ]\n";
  }
  std::string e;
  EXPECT_LT(secondsOf([&] { e = errorOf([&] { readGromacsTopology(dir / "t.top", {}); }); }), 1.0);
  EXPECT_EQ(e, (dir / "t.top").string() + ":2: line longer than 1048576 bytes, which no topology has");
  writeText(dir / "sim.cfg", "[run]\nsteps = 10 ; " + std::string(2 << 20, 'y') + "\n");
  EXPECT_HAS(errorOf([&] { loadConfig(dir / "sim.cfg", {}); }),
             "sim.cfg:2: line longer than 1048576 bytes, which no config file has");
}

}  // namespace
}  // namespace faraday::test
