// Faraday's reading of real GROMACS topologies against grompp's: the cases (a topology and
// the counts `gmx dump` gives of grompp's .tpr) come from tools/check_topology_counts.py,
// which needs GROMACS and sets FARADAY_GROMPP_CASES; without it the test is skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/formats/TextParse.h"
#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// The counts compared, by the names the script writes.
std::map<std::string, double> countsOf(const GromacsTopology& top) {
  const Topology& t = top.topology;
  return {{"atoms", double(top.size())},
          {"bonds", double(t.bonds.size())},
          {"morse", double(t.morseBonds.size())},
          {"angles", double(t.angles.size())},
          {"urey_bradley", double(t.ureyBradleys.size())},
          {"proper_dihedrals", double(t.properDihedrals.size())},
          {"periodic_impropers", double(t.periodicImpropers.size())},
          {"impropers", double(t.impropers.size())},
          {"rb_dihedrals", double(t.rbDihedrals.size())},
          {"cmaps", double(t.cmaps.size())},
          {"pairs14", double(t.pairs14.size())},
          {"exclusions", double(t.exclusions.size() / 2)},
          {"constraints", double(t.constraints.size())},
          {"settles", double(t.settles.size())},
          {"position_restraints", double(t.positionRestraints.size())},
          {"charge", top.netCharge()}};
}

TEST(GromppCounts, MatchGmxDump) {
  const char* dir = std::getenv("FARADAY_GROMPP_CASES");
  if (!dir || !*dir) GTEST_SKIP() << "no FARADAY_GROMPP_CASES: run tools/check_topology_counts.py (needs GROMACS)";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path() / "case.txt");
    if (!in) continue;
    ++cases;
    std::string top, defines, line;
    std::map<std::string, double> expected;
    while (std::getline(in, line)) {
      const auto space = line.find(' ');
      const std::string key = line.substr(0, space), value = space == std::string::npos ? "" : line.substr(space + 1);
      if (key == "top") top = value;
      else if (key == "defines") defines = value;
      else parseDouble(value, expected[key]);
    }
    const GromacsTopology read = readGromacsTopology(top, splitWhitespace(defines), {});
    const auto counts = countsOf(read);
    std::ofstream out(entry.path() / "faraday_counts.txt");
    for (const auto& [key, value] : counts) out << key << " " << formatNumber(value) << "\n";
    for (const auto& [key, value] : expected) {
      ASSERT_TRUE(counts.count(key)) << key;
      if (key == "charge") EXPECT_NEAR(counts.at(key), value, tol::kGromppNetCharge) << entry.path() << " " << key;
      else EXPECT_EQ(counts.at(key), value) << entry.path() << " " << key;
    }
  }
  EXPECT_GT(cases, 0) << "no case.txt under " << dir;
}

}  // namespace
}  // namespace faraday::test
