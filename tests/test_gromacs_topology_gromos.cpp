// GROMOS-96 topologies: bonds 2 (G96) and 4 (cubic) and angles 2 (G96) with their parameters
// from the line, from macros (the GROMOS gb_/ga_ names) and from [ bondtypes ] /
// [ angletypes ]; 1-4 pairs from [ pairtypes ] with combination rule 1 and gen-pairs no; and
// the pdb2gmx topologies of one peptide under each of the six GROMOS force fields GROMACS
// 2022 ships (tests/data/top/gromos, tools/gromos_topologies.py), counted as grompp counts them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/Units.h"
#include "engine/formats/TextParse.h"
#include "tests/Tolerances.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

constexpr double kDeg = units::kPi / 180.0;

/// Four united atoms C1-C2-O-H: a G96 bond from [ bondtypes ], one from a macro, a cubic bond
/// on the line; G96 angles from [ angletypes ] and a macro, one all zero; the 1-4 pair C1-H
/// from [ pairtypes ]; nrexcl 2.
const char* kGromosTop =
    "[ defaults ]\n"
    "1 1 no 1.0 1.0\n"
    "#define gb_2 0.1000 1.8700e+07\n"
    "#define ga_13 109.50 520.00\n"
    "[ atomtypes ]\n"
    "CH2 6 14.027 0.0 A 0.0074684164 3.3965584e-05\n"
    "OA 8 15.9994 0.0 A 0.0022619536 1.505529e-06\n"
    "H 1 1.008 0.0 A 0 0\n"
    "[ pairtypes ]\n"
    "CH2 H 1 0.0012 2.5e-8\n"
    "[ bondtypes ]\n"
    "CH2 CH2 2 0.153 7.15e6\n"
    "[ angletypes ]\n"
    "CH2 CH2 OA 2 111.0 530.0\n"
    "[ moleculetype ]\n"
    "MOL 2\n"
    "[ atoms ]\n"
    "1 CH2 1 MOL C1 1 0.15\n"
    "2 CH2 1 MOL C2 1 0.0\n"
    "3 OA 1 MOL O 1 -0.548\n"
    "4 H 1 MOL H 1 0.398\n"
    "[ bonds ]\n"
    "1 2 2\n"
    "2 3 2 gb_2\n"
    "3 4 4 0.1 229074 -16.5\n"
    "[ pairs ]\n"
    "1 4 1\n"
    "[ angles ]\n"
    "1 2 3 2\n"
    "2 3 4 2 ga_13\n"
    "1 2 4 2 0 0\n"
    "[ system ]\nG96\n"
    "[ molecules ]\nMOL 2\n";

TEST(GromosTopology, G96BondsAnglesCubicBondsAndPairTypes) {
  TempDir dir;
  writeText(dir / "g96.top", kGromosTop);
  const GromacsTopology top = readGromacsTopology(dir / "g96.top", {}, {});
  const Topology& t = top.topology;
  ASSERT_EQ(t.g96Bonds.size(), 4u);  // two per molecule
  EXPECT_EQ(t.g96Bonds[0].b0, 0.153);
  EXPECT_EQ(t.g96Bonds[0].kb, 7.15e6);  // kJ/mol/nm^4, as written
  EXPECT_EQ(t.g96Bonds[1].b0, 0.1);
  EXPECT_EQ(t.g96Bonds[1].kb, 1.87e7);
  EXPECT_EQ(t.g96Bonds[2].i, 4);  // the second molecule's
  EXPECT_TRUE(t.bonds.empty());
  ASSERT_EQ(t.cubicBonds.size(), 2u);
  EXPECT_EQ(t.cubicBonds[1].i, 6);
  EXPECT_EQ(t.cubicBonds[1].b0, 0.1);
  EXPECT_EQ(t.cubicBonds[1].kb, 229074.0);
  EXPECT_EQ(t.cubicBonds[1].kcub, -16.5);
  ASSERT_EQ(t.g96Angles.size(), 4u);  // the all-zero one adds none, as in grompp
  EXPECT_NEAR(t.g96Angles[0].theta0, 111.0 * kDeg, tol::kDoubleSum);
  EXPECT_EQ(t.g96Angles[0].kTheta, 530.0);  // kJ/mol, as written
  EXPECT_NEAR(t.g96Angles[1].theta0, 109.5 * kDeg, tol::kDoubleSum);
  EXPECT_EQ(t.g96Angles[1].kTheta, 520.0);
  EXPECT_TRUE(t.angles.empty());
  // Combination rule 1: [ pairtypes ] gives c6 and c12 themselves; fudgeQQ 1.
  ASSERT_EQ(t.pairs14.size(), 2u);
  EXPECT_EQ(t.pairs14[0].c6, 0.0012);
  EXPECT_EQ(t.pairs14[0].c12, 2.5e-8);
  EXPECT_NEAR(t.pairs14[0].qq, 0.15 * 0.398, tol::kDoubleSum);
  // G96 and cubic bonds are chemical bonds: nrexcl 2 excludes 1-2 and 1-3, not C1-H.
  EXPECT_EQ(gromppCounts(top).at("exclusions"), 10.0);
  const auto partners = [&](int a) {
    return std::vector<int>(t.exclusions.begin() + t.exclusionOffsets[std::size_t(a)],
                            t.exclusions.begin() + t.exclusionOffsets[std::size_t(a) + 1]);
  };
  EXPECT_EQ(partners(0), (std::vector<int>{1, 2}));
  EXPECT_EQ(partners(3), (std::vector<int>{1, 2}));
}

TEST(GromosTopology, CubicBondsTakeNoStateB) {
  TempDir dir;
  std::string text = kGromosTop;
  text.replace(text.find("3 4 4 0.1 229074 -16.5"), 22, "3 4 4 0.1 229074 -16.5 0.1 229074 -16.5");
  writeText(dir / "g96.top", text);
  const std::string e = errorOf([&] { readGromacsTopology(dir / "g96.top", {}, {}); });
  EXPECT_NE(e.find("g96.top:"), std::string::npos) << e;
  EXPECT_NE(e.find("expected 3 parameters for a cubic bond, found 6"), std::string::npos) << e;
}

/// The GROMACS data folder's topologies (where the reader finds included force fields), or ""
/// when none holds `ff`.ff/forcefield.itp.
std::string forceFieldFolder(const std::string& ff) {
  std::vector<fs::path> folders;
  if (const char* data = std::getenv("GMXDATA"); data && *data) folders.push_back(fs::path(data) / "top");
  folders.push_back("/usr/share/gromacs/top");
  folders.push_back("/usr/local/gromacs/share/gromacs/top");
  for (const fs::path& f : folders)
    if (fs::exists(f / (ff + ".ff") / "forcefield.itp")) return f.string();
  return "";
}

TEST(GromosTopology, EveryShippedGromosSetLoadsAsGromppReadsIt) {
  int read = 0;
  for (const char* ff : {"gromos43a1", "gromos43a2", "gromos45a3", "gromos53a5", "gromos53a6", "gromos54a7"}) {
    if (forceFieldFolder(ff).empty()) continue;
    const fs::path folder = topData("gromos") / ff;
    const GromacsTopology top = readGromacsTopology(folder / "topol.top", {}, {});
    const auto counts = gromppCounts(top);
    std::ifstream in(folder / "counts.txt");
    ASSERT_TRUE(in) << folder / "counts.txt";
    int keys = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line);
      std::string key;
      double value = 0;
      s >> key >> value;
      ASSERT_TRUE(counts.count(key)) << ff << ": " << key;
      if (key == "charge") EXPECT_NEAR(counts.at(key), value, tol::kGromppNetCharge) << ff;
      else EXPECT_EQ(counts.at(key), value) << ff << ": " << key;
      ++keys;
    }
    EXPECT_EQ(keys, int(counts.size())) << ff;
    EXPECT_GT(counts.at("g96_bonds"), 0.0) << ff;
    EXPECT_GT(counts.at("g96_angles"), 0.0) << ff;
    ++read;
  }
  if (read == 0) GTEST_SKIP() << "no GROMACS data folder with the GROMOS force fields (apt-get install gromacs)";
}

}  // namespace
}  // namespace faraday::test
