#include "integrators/Langevin.h"

#include <cmath>

#include "core/Units.h"

namespace faraday {

LangevinBaoab::LangevinBaoab(const System& system, const IntegratorParams& params, int threads)
    : CpuIntegrator(system, params, threads), seed_(params.seed) {
  a_ = langevinDecay(params);
  const double variance = langevinNoiseVariance(params);
  noiseScale_.resize(system.size());
  for (std::size_t i = 0; i < system.size(); ++i) noiseScale_[i] = std::sqrt(variance * inverseMass_[i]);
}

void LangevinBaoab::beforeForces(State& state, const std::vector<Vec3>& forces) {
  const std::uint64_t step = std::uint64_t(state.step);
  keepReference(state);
  if (constraints_) {  // B's velocities onto the constraints at x_n before A O A
    forEachParticle(state, [&](long long i) { kick(state, forces, 0.5 * dt_, i); });
    constrainVelocities(state);
  }
  forEachParticle(state, [&](long long i) {
    if (!constraints_) kick(state, forces, 0.5 * dt_, i);
    drift(state, 0.5 * dt_, i);
    state.velocities[i] =
        langevinOrnsteinUhlenbeck(state.velocities[i], a_, noiseScale_[i], seed_, step, std::uint32_t(i));
    drift(state, 0.5 * dt_, i);
  });
  constrainPositions(state);
  if (measureStepKinetic_) measureKinetic(state);
}

void LangevinBaoab::measureKinetic(const State& state) {
  const std::vector<Vec3>* v = &state.velocities;
  if (constraints_) {
    const std::size_t n = state.positions.size();
    midpoint_.resize(n);
    for (std::size_t i = 0; i < n; ++i) midpoint_[i] = (reference_[i] + state.positions[i]) * 0.5;
    projected_ = state.velocities;
    constraints_->constrainVelocities(midpoint_, projected_, state.box, dt_, state.step + 1);
    v = &projected_;
  }
  double kinetic = 0;  // in particle order: the same bits for any thread count
  for (std::size_t i = 0; i < v->size(); ++i) kinetic += langevinMidpointKinetic((*v)[i], inverseMass_[i]);
  stepKinetic_ = kinetic;
  stepKineticAt_ = state.step + 1;
}

std::optional<double> LangevinBaoab::stepKineticEnergy(const State& state) const {
  if (state.step != stepKineticAt_) return std::nullopt;
  return stepKinetic_;
}

void LangevinBaoab::afterForces(State& state, const std::vector<Vec3>& forces) {
  forEachParticle(state, [&](long long i) { kick(state, forces, 0.5 * dt_, i); });
  constrainVelocities(state);
  advanceClock(state);
}

}  // namespace faraday
