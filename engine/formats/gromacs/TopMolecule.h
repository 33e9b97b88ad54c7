#pragma once
// A [ moleculetype ] of a GROMACS topology: its [ atoms ] and its interaction lines, each
// resolved (parameters from the line, else from the force field's types) into a Topology
// with the molecule's own 0-based atom indices, and its exclusions.
//
// Parameters on an interaction line take precedence over the type lookup. Units change from
// the file's to Topology.h's: angles in degrees become radians, force constants stay (per
// rad^2, per nm^2). Dihedral type 5 (Fourier F1..F4) becomes Ryckaert-Bellemans
//   C0 = F2 + (F1 + F3)/2, C1 = (3 F3 - F1)/2, C2 = 4 F4 - F2, C3 = -2 F3, C4 = -4 F4, C5 = 0.
// As grompp, angles and dihedrals whose parameters are all zero add no term, nor do periodic
// dihedral terms (types 1, 4, 9) with a zero force constant.
#include <string>
#include <utility>
#include <vector>

#include "core/Topology.h"
#include "engine/formats/gromacs/TopTypes.h"

namespace faraday {

struct TopAtom {
  int type = 0;  ///< index into the force field's atom types
  double charge = 0;  ///< e
  double mass = 0;    ///< amu
  std::string name, residueName;
  int residueNumber = 0;
  std::string where;  ///< "file:line" of its [ atoms ] line
};

struct TopMoleculeType {
  std::string name;
  int nrexcl = 0;
  std::string where;  ///< "file:line" of its [ moleculetype ] line
  std::vector<TopAtom> atoms;
  /// Its interactions with the molecule's atom indices; CmapTorsion::grid is the index of
  /// the force field's [ cmaptypes ] entry.
  Topology topology;
  /// The bonds of nrexcl: bonds of types 1, 3 and 5, constraints of type 1, and the three
  /// sides of each settle (grompp takes none from [ settles ]; its water files list the
  /// exclusions, which then agree).
  std::vector<std::pair<int, int>> bondGraph;
  std::vector<std::pair<int, int>> exclusionLines;  ///< from [ exclusions ]
};

/// Adds an [ atoms ] line: nr type resnr residue atom cgnr [charge [mass [typeB [chargeB [massB]]]]].
void addTopAtom(TopMoleculeType& molecule, const TopFields& f, const TopForceField& ff);

/// Adds a line of a molecule section ([ bonds ] .. [ cmap ], [ exclusions ]).
void addTopInteraction(TopMoleculeType& molecule, TopSection section, const TopFields& f, const TopForceField& ff);

/// The excluded pairs (i < j, sorted, unique): atoms at most nrexcl bonds of the bond graph
/// apart, and the [ exclusions ] lines.
std::vector<std::pair<int, int>> excludedPairs(const TopMoleculeType& molecule);

}  // namespace faraday
