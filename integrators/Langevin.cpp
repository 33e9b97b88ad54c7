#include "integrators/Langevin.h"

#include <cmath>

#include "engine/Error.h"
#include "engine/Units.h"

namespace faraday {

LangevinBaoab::LangevinBaoab(const System& system, const Config::IntegratorSection& config, int threads)
    : CpuIntegrator(system, config.dt, threads), seed_(config.seed) {
  if (!(config.friction >= 0)) throw keyError("integrator.friction", "must be >= 0");
  if (!(config.temperature >= 0)) throw keyError("integrator.temperature", "must be >= 0");
  a_ = std::exp(-config.friction * dt_);
  const double kT = units::kBoltzmann * config.temperature;
  noiseScale_.resize(system.size());
  for (std::size_t i = 0; i < system.size(); ++i)
    noiseScale_[i] = std::sqrt((1 - a_ * a_) * kT * inverseMass_[i]);
}

void LangevinBaoab::beforeForces(State& state, const std::vector<Vec3>& forces) {
  const std::uint64_t step = std::uint64_t(state.step);
  forEachParticle(state, [&](long long i) {
    kick(state, forces, 0.5 * dt_, i);
    drift(state, 0.5 * dt_, i);
    state.velocities[i] =
        langevinOrnsteinUhlenbeck(state.velocities[i], a_, noiseScale_[i], seed_, step, std::uint32_t(i));
    drift(state, 0.5 * dt_, i);
  });
}

void LangevinBaoab::afterForces(State& state, const std::vector<Vec3>& forces) {
  forEachParticle(state, [&](long long i) { kick(state, forces, 0.5 * dt_, i); });
  advanceClock(state);
}

}  // namespace faraday
