// The atom selection language (engine/select/Selection.h): every keyword, wildcards, ranges,
// precedence and parentheses, errors with their positions, .ndx files; and on systems/protein
// (CHARMM27 adenylate kinase in TIP3P with NaCl) the residue classes against the topology's
// counts and the default groups of `gmx make_ndx` (tests/data/ndx/protein.ndx, written by
// tools/make_ndx_reference.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/formats/CoordinateFile.h"
#include "engine/formats/gromacs/GromacsTopology.h"
#include "engine/select/Selection.h"
#include "engine/setup/TopologySystem.h"
#include "tests/EngineTestSupport.h"
#include "tests/TestSupport.h"

namespace faraday {
namespace {

using test::errorOf;
using Indices = std::vector<int>;

const char* const kKey = "map.atoms";

struct Atom {
  const char *name, *residue;
  int resid;
  const char* molecule;
};

/// A small system with a piece of every residue class: an AMBER N-terminal alanine, a
/// CHARMM histidine, a C-terminal glycine, DNA and RNA ends, two waters, three ions, a
/// ligand, and a calcium whose atom name is CA like the alpha carbons.
const Atom kAtoms[] = {
    {"N", "NALA", 1, "Protein_chain_A"},    // 0
    {"CA", "NALA", 1, "Protein_chain_A"},   // 1
    {"CB", "NALA", 1, "Protein_chain_A"},   // 2
    {"N", "HSD", 2, "Protein_chain_A"},     // 3
    {"CA", "HSD", 2, "Protein_chain_A"},    // 4
    {"ND1", "HSD", 2, "Protein_chain_A"},   // 5
    {"N", "CGLY", 3, "Protein_chain_A"},    // 6
    {"CA", "CGLY", 3, "Protein_chain_A"},   // 7
    {"OC1", "CGLY", 3, "Protein_chain_A"},  // 8
    {"P", "DA5", 4, "DNA_chain_B"},         // 9
    {"C1'", "DA5", 4, "DNA_chain_B"},       // 10
    {"P", "RU3", 5, "RNA"},                 // 11
    {"OW", "SOL", 6, "SOL"},                // 12
    {"HW1", "SOL", 6, "SOL"},               // 13
    {"HW2", "SOL", 6, "SOL"},               // 14
    {"OH2", "TIP3", 7, "TIP3"},             // 15
    {"NA", "NA", 8, "NA"},                  // 16
    {"CL", "CL-", 9, "CL"},                 // 17
    {"SOD", "SOD", 10, "SOD"},              // 18
    {"C1", "LIG", 11, "LIG"},               // 19
    {"CA", "CA", 12, "CA"},                 // 20
};

SelectionContext smallContext() {
  SelectionContext c;
  for (const Atom& a : kAtoms) {
    c.atomName.push_back(a.name);
    c.residueName.push_back(a.residue);
    c.residueId.push_back(a.resid);
    c.moleculeName.push_back(a.molecule);
  }
  c.groups = {{"Ligand", {19}}, {"Pair", {16, 0}}};
  c.groupFile = "small.ndx";
  return c;
}

Indices sel(const std::string& text) { return select(text, smallContext(), kKey); }
Indices range(int first, int last) {
  Indices out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}
std::string selectionError(const std::string& text, const SelectionContext& c = smallContext()) {
  return errorOf([&] { select(text, c, kKey); });
}

TEST(SelectionKeywords, AllAndNone) {
  EXPECT_EQ(sel("all"), range(0, 20));
  EXPECT_EQ(sel("all and not none"), range(0, 20));
  EXPECT_EQ(selectionError("none"), "key 'map.atoms': 'none' selects no atoms");
}

TEST(SelectionKeywords, ResidueClasses) {
  EXPECT_EQ(sel("protein"), range(0, 8));
  EXPECT_EQ(sel("nucleic"), range(9, 11));
  EXPECT_EQ(sel("water"), range(12, 15));
  EXPECT_EQ(sel("ions"), (Indices{16, 17, 18, 20}));
  EXPECT_EQ(sel("not protein and not nucleic and not water and not ions"), Indices{19});
}

TEST(SelectionKeywords, NamesAndResidueNames) {
  EXPECT_EQ(sel("name CA"), (Indices{1, 4, 7, 20}));
  EXPECT_EQ(sel("name CA CB"), (Indices{1, 2, 4, 7, 20}));
  EXPECT_EQ(sel("name C1'"), Indices{10});
  EXPECT_EQ(sel("resname SOL TIP3"), range(12, 15));
  EXPECT_EQ(sel("resname CA"), Indices{20});
  EXPECT_EQ(sel("resname CL-"), Indices{17});
}

TEST(SelectionKeywords, Wildcards) {
  EXPECT_EQ(sel("name C*"), (Indices{1, 2, 4, 7, 10, 17, 19, 20}));
  EXPECT_EQ(sel("name HW?"), (Indices{13, 14}));
  EXPECT_EQ(sel("name ?C?"), Indices{8});
  EXPECT_EQ(sel("name *1"), (Indices{5, 8, 13, 19}));
  EXPECT_EQ(sel("name O*1"), Indices{8});
  EXPECT_EQ(sel("name *"), range(0, 20));
  EXPECT_EQ(sel("resname *A*"), (Indices{0, 1, 2, 9, 10, 16, 20}));
  EXPECT_EQ(sel("resname ??"), (Indices{16, 20}));
  EXPECT_EQ(sel("molecule Protein_*"), range(0, 8));
  EXPECT_EQ(selectionError("name CA?"), "key 'map.atoms': 'name CA?' selects no atoms");
}

TEST(SelectionKeywords, ResidueNumbersAndRanges) {
  EXPECT_EQ(sel("resid 2"), range(3, 5));
  EXPECT_EQ(sel("resid 1-2"), range(0, 5));
  EXPECT_EQ(sel("resid 1:2"), range(0, 5));
  EXPECT_EQ(sel("resid 1 5-6"), (Indices{0, 1, 2, 11, 12, 13, 14}));
  EXPECT_EQ(sel("resid 12-12"), Indices{20});
  EXPECT_EQ(sel("resid 11-1000"), (Indices{19, 20}));  // numbers beyond the last residue select none
}

TEST(SelectionKeywords, ZeroBasedIndices) {
  EXPECT_EQ(sel("index 0"), Indices{0});
  EXPECT_EQ(sel("index 3-5 20"), (Indices{3, 4, 5, 20}));
  EXPECT_EQ(sel("index 2:3 0"), (Indices{0, 2, 3}));
  EXPECT_EQ(sel("index 0-20"), range(0, 20));
}

TEST(SelectionKeywords, MoleculeTypes) {
  EXPECT_EQ(sel("molecule SOL TIP3"), range(12, 15));
  EXPECT_EQ(sel("molecule Protein_chain_A"), range(0, 8));
  EXPECT_EQ(sel("molecule DNA_chain_B RNA"), range(9, 11));
}

TEST(SelectionKeywords, IndexGroups) {
  EXPECT_EQ(sel("group Ligand"), Indices{19});
  EXPECT_EQ(sel("group Pair"), (Indices{0, 16}));
  EXPECT_EQ(sel("group Ligand Pair"), (Indices{0, 16, 19}));
  EXPECT_EQ(sel("group Pair and protein"), Indices{0});
}

TEST(SelectionOperators, NotBindsTighterThanAndTighterThanOr) {
  EXPECT_EQ(sel("name CA or name CB and resid 1"), (Indices{1, 2, 4, 7, 20}));
  EXPECT_EQ(sel("(name CA or name CB) and resid 1"), (Indices{1, 2}));
  EXPECT_EQ(sel("name CB and resid 1 or name CA"), (Indices{1, 2, 4, 7, 20}));
  EXPECT_EQ(sel("not protein and not water and not nucleic"), (Indices{16, 17, 18, 19, 20}));
  EXPECT_EQ(sel("not (protein or water or nucleic)"), (Indices{16, 17, 18, 19, 20}));
  EXPECT_EQ(sel("not name CA and protein"), (Indices{0, 2, 3, 5, 6, 8}));
  EXPECT_EQ(sel("not not protein"), range(0, 8));
  EXPECT_EQ(sel("protein and not name N CA or ions and not resname CA"), (Indices{2, 5, 8, 16, 17, 18}));
}

TEST(SelectionOperators, ValueListsEndAtKeywordsAndParentheses) {
  EXPECT_EQ(sel("name CA CB and resid 1"), (Indices{1, 2}));
  EXPECT_EQ(sel("(resname SOL TIP3)"), range(12, 15));
  EXPECT_EQ(sel("(protein)and(resid 1)"), range(0, 2));
  EXPECT_EQ(sel("((resid 1 or resid 3) and (name CA))"), (Indices{1, 7}));
  EXPECT_EQ(sel("  resid\t2\n"), range(3, 5));
}

TEST(SelectionErrors, SyntaxErrorsNameTheKeyAndThePosition) {
  EXPECT_EQ(selectionError("resname "), "key 'map.atoms': position 9: expected a value after 'resname'");
  EXPECT_EQ(selectionError("resname and name CA"), "key 'map.atoms': position 9: expected a value after 'resname'");
  EXPECT_EQ(selectionError("name CA and (resid)"), "key 'map.atoms': position 19: expected a value after 'resid'");
  EXPECT_EQ(selectionError("protein and"), "key 'map.atoms': position 12: expected a selection after 'and'");
  EXPECT_EQ(selectionError("not"), "key 'map.atoms': position 4: expected a selection after 'not'");
  EXPECT_EQ(selectionError("and protein"), "key 'map.atoms': position 1: expected a selection before 'and'");
  EXPECT_EQ(selectionError("protein or or water"),
            "key 'map.atoms': position 12: expected a selection after 'or', not 'or'");
  EXPECT_EQ(selectionError("(protein or water"), "key 'map.atoms': position 1: '(' is not closed");
  EXPECT_EQ(selectionError("protein)"), "key 'map.atoms': position 8: ')' without a matching '('");
  EXPECT_EQ(selectionError("()"), "key 'map.atoms': position 2: expected a selection after '(', not ')'");
  EXPECT_EQ(selectionError("protein water"),
            "key 'map.atoms': position 9: unexpected 'water' after a complete selection (join selections with "
            "'and' or 'or')");
  EXPECT_EQ(selectionError(""), "key 'map.atoms': the selection is empty");
  EXPECT_EQ(selectionError(" \t "), "key 'map.atoms': the selection is empty");
}

TEST(SelectionErrors, UnknownKeywordsSuggestTheNearest) {
  EXPECT_EQ(selectionError("protien"),
            "key 'map.atoms': position 1: unknown keyword 'protien'; did you mean 'protein'?");
  EXPECT_EQ(selectionError("name CA and resnam ALA"),
            "key 'map.atoms': position 13: unknown keyword 'resnam'; did you mean 'resname'?");
  EXPECT_EQ(selectionError("Protein"),
            "key 'map.atoms': position 1: unknown keyword 'Protein'; did you mean 'protein'?");
  const std::string far = selectionError("backbone_and_sidechains");
  EXPECT_NE(far.find("position 1: unknown keyword 'backbone_and_sidechains' (see the selection keywords: all,"),
            std::string::npos)
      << far;
}

TEST(SelectionErrors, BadNumbersAndRanges) {
  EXPECT_EQ(selectionError("resid x"),
            "key 'map.atoms': position 7: 'x' is not a residue number or range (N, N-M or N:M)");
  EXPECT_EQ(selectionError("resid 1 -3"),
            "key 'map.atoms': position 9: '-3' is not a residue number or range (N, N-M or N:M)");
  EXPECT_EQ(selectionError("resid 1-"),
            "key 'map.atoms': position 7: '1-' is not a residue number or range (N, N-M or N:M)");
  EXPECT_EQ(selectionError("resid 1-2-3"),
            "key 'map.atoms': position 7: '1-2-3' is not a residue number or range (N, N-M or N:M)");
  EXPECT_EQ(selectionError("index 1.5"),
            "key 'map.atoms': position 7: '1.5' is not an atom index or range (N, N-M or N:M)");
  EXPECT_EQ(selectionError("resid 5-2"),
            "key 'map.atoms': position 7: the range '5-2' is empty (its start is above its end)");
  EXPECT_EQ(selectionError("index 3 0-21"),
            "key 'map.atoms': position 9: index 21 is beyond the last atom (20; indices start at 0)");
}

TEST(SelectionErrors, MissingGroupsAndMolecules) {
  EXPECT_EQ(selectionError("group Lignd"),
            "key 'map.atoms': position 7: no group 'Lignd' in small.ndx; did you mean 'Ligand'?");
  SelectionContext bare = smallContext();
  bare.groups.clear();
  bare.groupFile.clear();
  bare.moleculeName.clear();
  EXPECT_EQ(selectionError("group Ligand", bare),
            "key 'map.atoms': position 1: 'group' needs an index file (.ndx), and none is given");
  EXPECT_EQ(selectionError("water or molecule SOL", bare),
            "key 'map.atoms': position 10: 'molecule' needs a topology, and the system has none");
  SelectionContext beyond = smallContext();
  beyond.groups["Far"] = {21};
  EXPECT_EQ(selectionError("group Far", beyond),
            "key 'map.atoms': position 7: group 'Far' of small.ndx has atom number 22, beyond the system's 21 atoms");
}

TEST(SelectionErrors, AnEmptySelectionIsAnError) {
  EXPECT_EQ(selectionError("resname XYZ"), "key 'map.atoms': 'resname XYZ' selects no atoms");
  EXPECT_EQ(selectionError("protein and water"), "key 'map.atoms': 'protein and water' selects no atoms");
}

TEST(SelectionNdx, ReadsGroupsAsZeroBasedIndices) {
  test::TempDir dir;
  test::writeText(dir / "a.ndx", "[ First ]\n   1    2    3\n  10\n\n[ Second-H ]\n5 4\n[ Empty ]\n");
  const IndexGroups g = readNdx(dir / "a.ndx");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g.at("First"), (Indices{0, 1, 2, 9}));
  EXPECT_EQ(g.at("Second-H"), (Indices{4, 3}));
  EXPECT_TRUE(g.at("Empty").empty());
}

TEST(SelectionNdx, ErrorsNameTheFileAndLine) {
  test::TempDir dir;
  const auto errorIn = [&](const std::string& text) {
    test::writeText(dir / "b.ndx", text);
    return errorOf([&] { readNdx(dir / "b.ndx"); });
  };
  const std::string file = (dir / "b.ndx").string();
  EXPECT_EQ(errorIn("[ A ]\n1 2\n3 x\n"), file + ":3: 'x' is not an atom number (1, 2, ...)");
  EXPECT_EQ(errorIn("[ A ]\n0\n"), file + ":2: '0' is not an atom number (1, 2, ...)");
  EXPECT_EQ(errorIn("\n1 2\n[ A ]\n"), file + ":2: atom numbers before the first '[ group ]'");
  EXPECT_EQ(errorIn("[ A ]\n1\n[ B ]\n[ A ]\n2\n"), file + ":4: group 'A' again (first at line 1)");
  EXPECT_EQ(errorIn("[ A\n1\n"), file + ":1: a group header must be '[ name ]'");
  EXPECT_EQ(errorIn("[ ]\n1\n"), file + ":1: a group without a name");
  EXPECT_EQ(errorIn(""), file + ": no '[ group ]' in the file");
  EXPECT_NE(errorOf([&] { readNdx(dir / "missing.ndx"); }).find("missing.ndx"), std::string::npos);
}

/// systems/protein, read once: the topology, the system and its selection context with the
/// groups of `gmx make_ndx`.
struct ProteinSystem {
  GromacsTopology top;
  System system;
  SelectionContext context;
};

const ProteinSystem& proteinSystem() {
  static const ProteinSystem p = [] {
    const std::string dir = test::sourceDir() + "/systems/protein";
    ProteinSystem s;
    s.top = readGromacsTopology(dir + "/topol.top", {});
    s.system = systemFromTopology(s.top, readCoordinates(dir + "/conf.gro"), dir + "/conf.gro").system;
    s.context = selectionContext(s.system, test::sourceDir() + "/tests/data/ndx/protein.ndx");
    return s;
  }();
  return p;
}

long atomsOf(const GromacsTopology& top, const std::string& molecule) {
  long n = 0;
  for (const GromacsMoleculeBlock& b : top.molecules)
    if (b.name == molecule) n += b.count * b.atomsPerMolecule;
  return n;
}

std::size_t count(const std::string& text) { return select(text, proteinSystem().context, kKey).size(); }

TEST(SelectionProtein, ResidueClassesMatchTheTopology) {
  const ProteinSystem& p = proteinSystem();
  ASSERT_EQ(p.top.molecules.size(), 4u);
  EXPECT_EQ(count("all"), p.system.size());
  EXPECT_EQ(long(count("protein")), atomsOf(p.top, "Protein"));
  EXPECT_EQ(long(count("protein")), 3341);
  EXPECT_EQ(long(count("water")), atomsOf(p.top, "SOL"));
  EXPECT_EQ(long(count("water")), 3 * 7957);
  EXPECT_EQ(long(count("ions")), atomsOf(p.top, "NA") + atomsOf(p.top, "CL"));
  EXPECT_EQ(long(count("resname NA")), 29);
  EXPECT_EQ(long(count("resname CL")), 25);
  EXPECT_EQ(count("molecule Protein"), count("protein"));
  EXPECT_EQ(count("protein or water or ions"), p.system.size());
  EXPECT_EQ(selectionError("not protein and not water and not ions", p.context),
            "key 'map.atoms': 'not protein and not water and not ions' selects no atoms");
  EXPECT_EQ(selectionError("nucleic", p.context), "key 'map.atoms': 'nucleic' selects no atoms");
  EXPECT_EQ(select("resid 1 and name CA", p.context, kKey), Indices{4});
}

TEST(SelectionProtein, GromacsDefaultGroupsEqualTheLanguage) {
  const SelectionContext& c = proteinSystem().context;
  const std::pair<const char*, const char*> same[] = {
      {"System", "all"},
      {"Protein", "protein"},
      {"Protein-H", "protein and not name H*"},
      {"C-alpha", "protein and name CA"},
      {"Backbone", "protein and name N CA C"},
      {"Prot-Masses", "protein"},
      {"non-Protein", "not protein"},
      {"Water", "water"},
      {"SOL", "resname SOL"},
      {"SOL", "molecule SOL"},
      {"non-Water", "not water"},
      {"Ion", "ions"},
      {"NA", "resname NA"},
      {"CL", "resname CL"},
      {"Water_and_ions", "water or ions"},
  };
  for (const auto& [group, text] : same)
    EXPECT_EQ(select(std::string("group ") + group, c, kKey), select(text, c, kKey)) << group << " vs " << text;
}

}  // namespace
}  // namespace faraday
