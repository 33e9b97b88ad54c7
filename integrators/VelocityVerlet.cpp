#include "integrators/VelocityVerlet.h"

namespace faraday {

void VelocityVerlet::beforeForces(State& state, const std::vector<Vec3>& forces) {
  keepReference(state);
  forEachParticle(state, [&](long long i) {
    kick(state, forces, 0.5 * dt_, i);
    drift(state, dt_, i);
  });
  constrainPositions(state);
}

void VelocityVerlet::afterForces(State& state, const std::vector<Vec3>& forces) {
  forEachParticle(state, [&](long long i) { kick(state, forces, 0.5 * dt_, i); });
  constrainVelocities(state);
  advanceClock(state);
}

}  // namespace faraday
