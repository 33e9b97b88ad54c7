#include "integrators/Langevin.h"

#include <cmath>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

LangevinBaoab::LangevinBaoab(const System& system, const IntegratorParams& params, int threads)
    : CpuIntegrator(system, params, threads), seed_(params.seed) {
  if (!(params.friction >= 0)) throw keyError("integrator.friction", "must be >= 0");
  if (!(params.temperature >= 0)) throw keyError("integrator.temperature", "must be >= 0");
  a_ = std::exp(-params.friction * dt_);
  const double kT = units::kBoltzmann * params.temperature;
  noiseScale_.resize(system.size());
  for (std::size_t i = 0; i < system.size(); ++i)
    noiseScale_[i] = std::sqrt((1 - a_ * a_) * kT * inverseMass_[i]);
}

void LangevinBaoab::beforeForces(State& state, const std::vector<Vec3>& forces) {
  const std::uint64_t step = std::uint64_t(state.step);
  keepReference(state);
  forEachParticle(state, [&](long long i) {
    kick(state, forces, 0.5 * dt_, i);
    drift(state, 0.5 * dt_, i);
    state.velocities[i] =
        langevinOrnsteinUhlenbeck(state.velocities[i], a_, noiseScale_[i], seed_, step, std::uint32_t(i));
    drift(state, 0.5 * dt_, i);
  });
  constrainPositions(state);
}

void LangevinBaoab::afterForces(State& state, const std::vector<Vec3>& forces) {
  forEachParticle(state, [&](long long i) { kick(state, forces, 0.5 * dt_, i); });
  constrainVelocities(state);
  advanceClock(state);
}

}  // namespace faraday
