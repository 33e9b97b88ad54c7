// Faraday's reading of real GROMACS topologies against grompp's: the cases (a topology and
// the counts `gmx dump` gives of grompp's .tpr) come from tools/check_topology_counts.py,
// which needs GROMACS and sets FARADAY_GROMPP_CASES; without it the test is skipped. The
// test also writes every term it read (faraday_terms.txt) for the script to compare
// parameter by parameter with the .tpr's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "core/Units.h"
#include "engine/formats/TextParse.h"
#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// One line per term: the gmx dump name of its function, its atoms (0-based, system-wide)
/// and its parameters in the topology file's units (degrees), but for the G96 forms in the
/// .tpr's (b0^2 and cos(theta0), which grompp stores); LJPAIR a b gives the LJ table entry of
/// the types of atoms a and b, for one atom of each pair of types.
void writeTerms(const GromacsTopology& top, const fs::path& file) {
  const Topology& t = top.topology;
  const double deg = 180.0 / units::kPi;
  std::FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr) << file;
  for (const auto& x : t.bonds) std::fprintf(f, "BONDS %d %d | %.10g %.10g\n", x.i, x.j, x.b0, x.kb);
  for (const auto& x : t.g96Bonds) std::fprintf(f, "G96BONDS %d %d | %.10g %.10g\n", x.i, x.j, x.b0 * x.b0, x.kb);
  for (const auto& x : t.morseBonds) std::fprintf(f, "MORSE %d %d | %.10g %.10g %.10g\n", x.i, x.j, x.b0, x.D, x.beta);
  for (const auto& x : t.cubicBonds)
    std::fprintf(f, "CUBICBONDS %d %d | %.10g %.10g %.10g\n", x.i, x.j, x.b0, x.kb, x.kcub);
  for (const auto& x : t.angles) std::fprintf(f, "ANGLES %d %d %d | %.10g %.10g\n", x.i, x.j, x.k, x.theta0 * deg, x.kTheta);
  for (const auto& x : t.g96Angles)
    std::fprintf(f, "G96ANGLES %d %d %d | %.10g %.10g\n", x.i, x.j, x.k, std::cos(x.theta0), x.kTheta);
  for (const auto& x : t.ureyBradleys)
    std::fprintf(f, "UREY_BRADLEY %d %d %d | %.10g %.10g %.10g %.10g\n", x.i, x.j, x.k, x.theta0 * deg, x.kTheta, x.r13, x.kUB);
  for (const auto& x : t.properDihedrals)
    std::fprintf(f, "PDIHS %d %d %d %d | %.10g %.10g %d\n", x.i, x.j, x.k, x.l, x.phi0 * deg, x.kPhi, x.n);
  for (const auto& x : t.periodicImpropers)
    std::fprintf(f, "PIDIHS %d %d %d %d | %.10g %.10g %d\n", x.i, x.j, x.k, x.l, x.phi0 * deg, x.kPhi, x.n);
  for (const auto& x : t.impropers) std::fprintf(f, "IDIHS %d %d %d %d | %.10g %.10g\n", x.i, x.j, x.k, x.l, x.xi0 * deg, x.kXi);
  for (const auto& x : t.rbDihedrals)
    std::fprintf(f, "RBDIHS %d %d %d %d | %.10g %.10g %.10g %.10g %.10g %.10g\n", x.i, x.j, x.k, x.l, x.c[0], x.c[1], x.c[2],
                 x.c[3], x.c[4], x.c[5]);
  for (const auto& x : t.pairs14) std::fprintf(f, "LJ14 %d %d | %.10g %.10g\n", x.i, x.j, x.c6, x.c12);
  for (const auto& x : t.cmaps) std::fprintf(f, "CMAP %d %d %d %d %d |\n", x.i, x.j, x.k, x.l, x.m);
  for (const auto& x : t.settles) std::fprintf(f, "SETTLE %d | %.10g %.10g\n", x.oxygen, x.dOH, x.dHH);
  for (const auto& x : t.constraints) std::fprintf(f, "CONSTR %d %d | %.10g\n", x.i, x.j, x.length);
  for (const auto& x : t.positionRestraints) std::fprintf(f, "POSRES %d | %.10g %.10g %.10g\n", x.i, x.k.x, x.k.y, x.k.z);
  std::vector<int> atomOfType(top.types.size(), -1);
  for (std::size_t p = 0; p < top.size(); ++p)
    if (atomOfType[std::size_t(top.type[p])] < 0) atomOfType[std::size_t(top.type[p])] = int(p);
  const std::size_t n = top.types.size();
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      std::fprintf(f, "LJPAIR %d %d | %.10g %.10g\n", atomOfType[a], atomOfType[b], t.ljC6[a * n + b], t.ljC12[a * n + b]);
  std::fclose(f);
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
    const auto counts = gromppCounts(read);
    std::ofstream out(entry.path() / "faraday_counts.txt");
    for (const auto& [key, value] : counts) out << key << " " << formatNumber(value) << "\n";
    writeTerms(read, entry.path() / "faraday_terms.txt");
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
