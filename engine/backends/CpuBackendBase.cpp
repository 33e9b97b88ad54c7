#include "engine/backends/CpuBackendBase.h"

#include <omp.h>

#include "core/Error.h"
#include "integrators/InitialVelocities.h"
#include "integrators/IntegratorFactory.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {
namespace {

int resolveThreads(int requested) {
  if (requested < 0) throw Error("CPU backend: the thread count must be >= 0 (0 = all cores)");
  return requested > 0 ? requested : omp_get_max_threads();
}

}  // namespace

CpuBackendBase::CpuBackendBase(int threads, const IntegratorParams& integrator, const System& system, Timers* timers)
    : system_(system), timers_(timers), threads_(resolveThreads(threads)) {
  if (system_.mass.size() != system_.size() || system_.charge.size() != system_.size())
    throw Error("system: mass and charge arrays must have one entry per particle");
  integrator_ = makeCpuIntegrator(integrator, system, threads_);
}

void CpuBackendBase::takeState(const State& state) {
  if (state.positions.size() != system_.size() || state.velocities.size() != system_.size())
    throw Error("state: positions and velocities must have one entry per particle");
  state_ = state;
  if (state_.box.diagonal() == Vec3{}) state_.box = system_.box;
  clearVirtualSiteVelocities(system_.topology.virtualSites, state_.velocities);
  forces_.clear();  // forces of a previous state no longer apply
}

Energies CpuBackendBase::computeForces() {
  evaluateForces();
  return energies();
}

Energies CpuBackendBase::energies() {
  Energies e = energies_;
  e.virial += integrator_->constraintVirial(state_, forces_);
  return e;
}

void CpuBackendBase::advance(bool withEnergies) {
  if (forces_.size() != system_.size()) evaluateForces();  // first step without computeForces()
  {
    ScopedTimer t(timers_, "integrate");
    integrator_->measureStepKinetic(withEnergies);
    integrator_->beforeForces(state_, forces_);
  }
  evaluateForces();
  ScopedTimer t(timers_, "integrate");
  integrator_->afterForces(state_, forces_);
}

long CpuBackendBase::nonFiniteParticle() {
  for (std::size_t i = 0; i < state_.positions.size(); ++i)
    if (!isFinite(state_.positions[i]) || !isFinite(state_.velocities[i]) ||
        (i < forces_.size() && !isFinite(forces_[i])))
      return long(i);
  return -1;
}

double CpuBackendBase::kineticEnergy() {
  if (const std::optional<double> k = integrator_->stepKineticEnergy(state_)) return *k;
  return faraday::kineticEnergy(system_, state_.velocities);
}

}  // namespace faraday
