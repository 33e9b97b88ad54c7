#pragma once
// The directives of a preprocessed GROMACS topology, read in order into the force field
// (TopTypes.h), the molecule types (TopMolecule.h), the [ system ] name and the
// [ molecules ] list. The order grompp requires is checked: [ defaults ] once, before
// [ atomtypes ]; every parameter directive after [ atomtypes ] and before the first
// [ moleculetype ]; [ atoms ] inside a molecule type and the interaction directives after
// them; [ system ] after a molecule type; [ molecules ] after [ system ]. Lines before the
// first directive are skipped, as grompp does (force-field headers have such lines).
#include <string>
#include <vector>

#include "engine/formats/gromacs/TopLine.h"
#include "engine/formats/gromacs/TopMolecule.h"
#include "engine/formats/gromacs/TopTypes.h"

namespace faraday {

/// A [ molecules ] line: `count` copies of molecule type `type`.
struct TopMoleculeCount {
  int type = 0;  ///< index into ParsedTopology::moleculeTypes
  long count = 0;
};

struct ParsedTopology {
  TopForceField forceField;
  std::vector<TopMoleculeType> moleculeTypes;
  std::string systemName;
  std::vector<TopMoleculeCount> molecules;
  TopLine moleculesLine;  ///< the [ molecules ] directive (its file and line), for messages
};

/// Reads the lines of preprocessTopology(); warnings (redefinitions) are appended to
/// `warnings`. Throws Error naming the file and line of the first problem.
ParsedTopology parseTopology(const std::vector<TopLine>& lines, std::vector<std::string>& warnings);

}  // namespace faraday
