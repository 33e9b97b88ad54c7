#include "integrators/VelocityVerlet.h"

namespace faraday {

void VelocityVerlet::beforeForces(State& state, const std::vector<Vec3>& forces) {
  kick(state, forces, 0.5 * dt_);
  drift(state, dt_);
}

void VelocityVerlet::afterForces(State& state, const std::vector<Vec3>& forces) {
  kick(state, forces, 0.5 * dt_);
  advanceClock(state);
}

}  // namespace faraday
