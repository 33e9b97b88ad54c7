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
//
// Virtual sites ([ virtual_sites1 ] .. [ virtual_sitesn ]) take their parameters from the line
// (3fad's theta and d become d cos theta, d sin theta as grompp stores them; COG, COM and COW
// weights are normalised, COM's from the constructing atoms' masses). As grompp, a site gets no
// exclusions of its own: those of [ exclusions ] alone (the shipped water models list them).
// A site must be massless (an atom of particle type A with mass 0 may be one, as CHARMM's MW),
// an atom of particle type V or D must be a site, and sites built from sites form no cycle;
// bonded terms and constraints on a site, which grompp partly drops (pdb2gmx -vsite), are refused.
#include <string>
#include <utility>
#include <vector>

#include "core/Topology.h"
#include "engine/formats/gromacs/TopTypes.h"

namespace faraday {

struct TopAtom {
  int type = 0;  ///< index into the force field's atom types
  char particleType = 'A';  ///< its atom type's: A (atom) or V (virtual site; D is read as V)
  double charge = 0;  ///< e
  double mass = 0;    ///< amu
  std::string name, residueName;
  int residueNumber = 0;
  std::string where;  ///< "file:line" of its [ atoms ] line
};

/// A virtual site of a molecule type: its construction in the molecule's own indices
/// (VirtualSite::first indexes `atoms`) and where its line is.
struct TopVirtualSite {
  VirtualSite site;
  std::vector<int> atoms;
  std::vector<double> weights;  ///< per entry of `atoms` (VirtualSites::weights)
  std::string where;  ///< "file:line"
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
  std::vector<TopVirtualSite> virtualSites;         ///< in the order of their lines
  bool finished = false;                            ///< finishTopMoleculeType has checked it
};

/// Adds an [ atoms ] line: nr type resnr residue atom cgnr [charge [mass [typeB [chargeB [massB]]]]].
void addTopAtom(TopMoleculeType& molecule, const TopFields& f, const TopForceField& ff);

/// Adds a line of a molecule section ([ bonds ] .. [ cmap ], [ exclusions ], [ virtual_sitesN ]).
void addTopInteraction(TopMoleculeType& molecule, TopSection section, const TopFields& f, const TopForceField& ff);

/// The checks that need the whole molecule type, once its last line is read: every atom that is
/// no virtual site has a positive mass and particle type A, every site is massless, sites built
/// from sites form no cycle, no bonded term or constraint is on a site.
/// Throws Error naming the file and line at fault.
void finishTopMoleculeType(TopMoleculeType& molecule);

/// The excluded pairs (i < j, sorted, unique): atoms at most nrexcl bonds of the bond graph
/// apart, and the [ exclusions ] lines.
std::vector<std::pair<int, int>> excludedPairs(const TopMoleculeType& molecule);

}  // namespace faraday
