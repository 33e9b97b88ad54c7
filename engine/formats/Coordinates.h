#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/System.h"
#include "core/Vec3.h"

namespace faraday {

/// The contents of a coordinate file (.gro or .pdb), in nm and nm/ps.
struct Coordinates {
  std::string title;
  std::vector<int> residueId;
  std::vector<std::string> residueName;
  std::vector<std::string> atomName;
  std::vector<Vec3> positions;    ///< nm
  std::vector<Vec3> velocities;   ///< nm/ps; empty when the file has none
  std::vector<long> line;         ///< line of each atom in the file (for error messages)
  Box box;

  std::size_t size() const { return positions.size(); }
};

/// The coordinates of `state` with the names of `system` (for writers).
Coordinates coordinatesOf(const System& system, const State& state, const std::string& title);

}  // namespace faraday
