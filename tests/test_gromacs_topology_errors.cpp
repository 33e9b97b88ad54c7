// Bad GROMACS topologies: each stops with one Error line that names the file and the line
// at fault (marked "; HERE" in the inputs below) and what is wrong.
#include <gtest/gtest.h>

#include "engine/setup/TopologySystem.h"
#include "tests/TopologyTestSupport.h"

namespace faraday::test {
namespace {

/// kSmallForceField, a molecule type MOL of atoms A A B B, `body` inside it, and the system.
std::string withMolecule(const std::string& body, const std::string& molecules = "MOL 1\n") {
  return std::string(kSmallForceField) +
         "[ moleculetype ]\nMOL 3\n[ atoms ]\n"
         "1 A 1 R A1 1 0.0\n2 A 1 R A2 1 0.0\n3 B 1 R B3 1 0.0\n4 B 1 R B4 1 0.0\n" +
         body + "[ system ]\nS\n[ molecules ]\n" + molecules;
}

TEST(GromacsTopologyErrors, UnknownAtomType) {
  expectErrorAt(std::string(kSmallForceField) + "[ moleculetype ]\nX 3\n[ atoms ]\n1 Q 1 R Q1 1 ; HERE\n",
                "unknown atom type 'Q'");
}

TEST(GromacsTopologyErrors, MissingBondedParametersNameTypesAndDirective) {
  expectErrorAt(withMolecule("[ bonds ]\n1 2 1\n2 3 1 ; HERE\n"), "between atom types A B");
  expectErrorAt(withMolecule("[ angles ]\n1 2 3 1 ; HERE\n"), "[ angles ] type 1");
  expectErrorAt(withMolecule("[ dihedrals ]\n1 2 3 4 4 ; HERE\n"), "none in [ dihedraltypes ]");
}

TEST(GromacsTopologyErrors, AtomIndexBeyondTheMolecule) {
  expectErrorAt(withMolecule("[ bonds ]\n1 5 1 ; HERE\n"), "atom index 5 in [ bonds ] is beyond the 4 atoms");
  expectErrorAt(withMolecule("[ exclusions ]\n1 2 9 ; HERE\n"), "atom index 9 in [ exclusions ]");
  expectErrorAt(withMolecule("[ settles ]\n3 1 0.1 0.16 ; HERE\n"), "beyond the 4 atoms");
}

TEST(GromacsTopologyErrors, UndefinedMoleculeName) {
  expectErrorAt(withMolecule("", "MOL 1\nNOPE 2 ; HERE\n"), "molecule type NOPE is not defined (defined: MOL)");
  const std::string none = std::string(kSmallForceField) +
                           "[ moleculetype ]\nMOL 3\n[ atoms ]\n1 A 1 R A1 1\n[ system ]\nS\n[ molecules ] ; HERE\nMOL 0\n";
  expectErrorAt(none, "[ molecules ] lists no molecules");
}

TEST(GromacsTopologyErrors, DirectivesOutOfPlace) {
  expectErrorAt(withMolecule("[ atomtypes ] ; HERE\nC 6 12.0 0.0 A 0.3 0.5\n"), "after a [ moleculetype ]");
  expectErrorAt(std::string(kSmallForceField) + "[ moleculetype ]\nX 3\n[ bonds ] ; HERE\n", "[ bonds ] outside");
  expectErrorAt("[ atomtypes ] ; HERE\nA 6 12.0 0.0 A 0.3 0.5\n", "before [ defaults ]");
  expectErrorAt(withMolecule("[ molecules ] ; HERE\nMOL 1\n"), "before [ system ]");
  expectErrorAt(withMolecule("[ defaults ] ; HERE\n"), "a second [ defaults ]");
  expectErrorAt(withMolecule("[ pairtypes ] ; HERE\n"), "after a [ moleculetype ]");
  expectErrorAt(withMolecule("[ bonds ]\n1 2\n[ polarization ] ; HERE\n"), "[ polarization ] is not supported");
  expectErrorAt(withMolecule("[ bnds ] ; HERE\n"), "unknown directive [ bnds ]");
}

TEST(GromacsTopologyErrors, UnsupportedFunctionsAndStates) {
  expectErrorAt(withMolecule("[ bonds ]\n1 2 7 0.1 100 1 ; HERE\n"), "[ bonds ] function type 7 is not supported");
  expectErrorAt(withMolecule("[ angles ]\n1 2 3 6 ; HERE\n"), "[ angles ] function type 6 is not supported");
  expectErrorAt(withMolecule("[ dihedrals ]\n1 2 3 4 8 ; HERE\n"), "function type 8 is not supported");
  expectErrorAt(withMolecule("[ position_restraints ]\n1 2 0.1 1000 ; HERE\n"), "function type 2 is not supported");
  expectErrorAt(withMolecule("[ bonds ]\n1 2 1 0.1 100 0.2 100 ; HERE\n"), "free-energy B-state parameters");
  expectErrorAt(withMolecule("[ bonds ]\n1 2 1 0.1 ; HERE\n"), "expected 2 (or 4) parameters");
  expectErrorAt(std::string(kSmallForceField) + "[ moleculetype ]\nX 3\n[ atoms ]\n1 A 1 R A1 1 0.0 12.0 B ; HERE\n",
                "free-energy B states");
  expectErrorAt("[ defaults ]\n2 1 ; HERE\n", "Buckingham");
  expectErrorAt(std::string(kSmallForceField) + "[ atomtypes ]\nV 0 0.0 0.0 V 0.0 0.0\n[ moleculetype ]\nX 1\n[ atoms ]\n"
                "1 V 1 R V1 1 ; HERE\n", "particle type V");
}

TEST(GromacsTopologyErrors, PairWithoutParametersAndWithoutGenPairs) {
  const std::string noGenPairs = "[ defaults ]\n1 2 no 1.0 1.0\n[ atomtypes ]\nA 6 12.0 0.0 A 0.3 0.5\n"
                                 "[ moleculetype ]\nX 3\n[ atoms ]\n1 A 1 R A1 1\n2 A 1 R A2 1\n"
                                 "[ pairs ]\n1 2 1 ; HERE\n";
  expectErrorAt(noGenPairs, "gen-pairs is no");
}

TEST(GromacsTopologyErrors, SecondTypeNineBlockThatDiffers) {
  const std::string text = std::string(kSmallForceField) +
                           "[ dihedraltypes ]\nA A A A 9 0.0 1.0 1\nA A A A 9 0.0 2.0 2\nA A B A 9 0.0 1.0 1\n"
                           "A A A A 9 0.0 1.0 1 ; HERE\n[ moleculetype ]\nX 1\n";
  expectErrorAt(text, "a second block of dihedral type 9 parameters");
}

TEST(GromacsTopologyErrors, AtomNumbering) {
  expectErrorAt(std::string(kSmallForceField) + "[ moleculetype ]\nX 3\n[ atoms ]\n1 A 1 R A1 1\n3 A 1 R A3 1 ; HERE\n",
                "expected 2, found 3");
}

TEST(GromacsTopologyErrors, ErrorsInIncludedFilesNameThatFile) {
  const std::string e = topologyError({{"t.top", std::string(kSmallForceField) + "#include \"mol.itp\"\n"},
                                       {"mol.itp", "[ moleculetype ]\nX 3\n[ atoms ]\n1 A 1 R A1 1\n[ bonds ]\n1 7\n"}});
  EXPECT_NE(e.find("mol.itp:6: atom index 7"), std::string::npos) << e;
}

TEST(GromacsTopologyErrors, NetChargeFarFromAnIntegerNamesMoleculesLine) {
  TempDir dir;
  const std::string text = std::string(kSmallForceField) +
                           "[ moleculetype ]\nMOL 3\n[ atoms ]\n1 A 1 R A1 1 0.4\n2 B 1 R B2 1 0.1\n"
                           "[ system ]\nS\n[ molecules ] ; HERE\nMOL 1\n";
  writeText(dir / "t.top", text);
  const GromacsTopology top = readGromacsTopology(dir / "t.top", {});
  const std::string e = errorOf([&] { checkNetCharge(top); });
  EXPECT_NE(e.find("t.top:" + std::to_string(lineOf(text, "; HERE")) + ": net charge of the system is 0.500000 e"),
            std::string::npos) << e;
  EXPECT_NE(e.find("MOL 0.500000 e"), std::string::npos) << e;
  // Within 0.01 e of an integer it passes.
  writeText(dir / "u.top", std::string(kSmallForceField) +
                               "[ moleculetype ]\nMOL 3\n[ atoms ]\n1 A 1 R A1 1 0.502\n2 B 1 R B2 1 0.5\n"
                               "[ system ]\nS\n[ molecules ]\nMOL 1\n");
  EXPECT_EQ(errorOf([&] { checkNetCharge(readGromacsTopology(dir / "u.top", {})); }), "");
}

TEST(GromacsTopologyErrors, CoordinatesMustMatchTheTopology) {
  const GromacsTopology top = readTopData("atomtypes.top");
  Coordinates c;
  c.atomName = {"C1", "H9", "NA", "XX"};
  c.residueName = {"MIX", "MIX", "MIX", "MIX"};
  c.residueId = {1, 1, 2, 2};
  c.positions = {{0, 0, 0}, {0.1, 0, 0}, {1, 1, 1}, {1.3, 1, 1}};
  const TopologySystem s = systemFromTopology(top, c, "conf.gro");
  EXPECT_EQ(s.system.size(), 4u);
  EXPECT_EQ(s.system.atomName[1], "H9");  // names as in the coordinates
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.back().find("conf.gro: 2 atom name(s) differ"), std::string::npos) << s.warnings.back();
  EXPECT_NE(s.warnings.back().find("atom 2 is H9, H1 in the topology"), std::string::npos) << s.warnings.back();
  c.positions.pop_back();
  c.atomName.pop_back();
  const std::string e = errorOf([&] { systemFromTopology(top, c, "conf.gro"); });
  EXPECT_NE(e.find("conf.gro: 3 atoms, but the topology"), std::string::npos) << e;
}

}  // namespace
}  // namespace faraday::test
