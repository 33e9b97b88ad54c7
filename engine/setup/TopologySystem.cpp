#include "engine/setup/TopologySystem.h"

#include "core/Error.h"

namespace faraday {

TopologySystem systemFromTopology(const GromacsTopology& top, const Coordinates& coordinates,
                                  const std::string& coordinateFile) {
  if (coordinates.size() != top.size())
    throw fileError(coordinateFile, 0, std::to_string(coordinates.size()) + " atoms, but the topology " +
                                           top.file.string() + " has " + std::to_string(top.size()));
  TopologySystem out;
  System& s = out.system;
  s.types = top.types;
  s.type = top.type;
  s.charge = top.charge;
  s.mass = top.mass;
  s.atomName = coordinates.atomName;
  s.residueName = coordinates.residueName;
  s.residueId = coordinates.residueId;
  s.box = coordinates.box;
  s.topology = top.topology;
  fillPositionRestraintReferences(s.topology, coordinates.positions);
  out.warnings = top.warnings;
  const std::string names = atomNameWarning(top, coordinates, coordinateFile);
  if (!names.empty()) out.warnings.push_back(names);
  return out;
}

}  // namespace faraday
