#pragma once
// A System built from a GROMACS topology and the coordinates that go with it.
#include <string>
#include <vector>

#include "core/System.h"
#include "engine/formats/Coordinates.h"
#include "engine/formats/gromacs/GromacsTopology.h"

namespace faraday {

struct TopologySystem {
  System system;
  std::vector<std::string> warnings;  ///< the topology's, and differing atom names
};

/// Particles, types, charges, masses and the Topology from `top`; atom and residue names,
/// residue numbers and the box from `coordinates` (read from `coordinateFile`); position
/// restraints referenced to the coordinates. Throws Error naming both files when their atom
/// counts differ. The net charge is not checked here (checkNetCharge).
TopologySystem systemFromTopology(const GromacsTopology& top, const Coordinates& coordinates,
                                  const std::string& coordinateFile);

}  // namespace faraday
