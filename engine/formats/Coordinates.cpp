#include "engine/formats/Coordinates.h"

namespace faraday {

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
