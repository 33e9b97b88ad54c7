#include "engine/Coordinates.h"

#include <algorithm>

#include "engine/Error.h"
#include "engine/GroFile.h"
#include "engine/PdbFile.h"

namespace faraday {

Coordinates readCoordinates(const std::filesystem::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext == ".gro") return readGro(file);
  if (ext == ".pdb") return readPdb(file);
  throw fileError(file.string(), 0, "unknown coordinate format '" + ext + "' (expected .gro or .pdb)");
}

Coordinates coordinatesOf(const System& system, const State& state, const std::string& title) {
  Coordinates c;
  c.title = title;
  c.residueId = system.residueId;
  c.residueName = system.residueName;
  c.atomName = system.atomName;
  c.positions = state.positions;
  c.velocities = state.velocities;
  c.box = state.box;
  return c;
}

}  // namespace faraday
