#include "integrators/Integrator.h"

#include <omp.h>

#include <cmath>

#include "core/Error.h"

namespace faraday {

CpuIntegrator::CpuIntegrator(const System& system, const IntegratorParams& params, int threads)
    : dt_(params.dt), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  checkIntegratorParams(params);
  inverseMass_ = inverseMasses(system);
  if (system.topology.hasConstraints())
    constraints_ = std::make_unique<CpuConstraints>(system, params.constraintTolerance, threads_);
}

Tensor3 CpuIntegrator::constraintVirial(const State& state, const std::vector<Vec3>& forces) const {
  if (!constraints_ || forces.size() != state.positions.size()) return {};
  return constraints_->virial(state.positions, state.velocities, forces, state.box, dt_);
}

void CpuIntegrator::constrainPositions(State& state) {
  if (constraints_)
    constraints_->constrainPositions(reference_, state.positions, &state.velocities, dt_, state.box, state.step + 1);
}

void CpuIntegrator::constrainVelocities(State& state) {
  if (constraints_) constraints_->constrainVelocities(state.positions, state.velocities, state.box, dt_, state.step + 1);
}

void CpuIntegrator::advanceClock(State& state) const {
  state.step += 1;
  state.time += dt_;
}

void checkIntegratorParams(const IntegratorParams& params) {
  if (!(params.dt > 0) || !std::isfinite(params.dt)) throw Error("integrator: the time step must be > 0 ps");
  if (params.type != IntegratorType::Langevin) return;
  if (!(params.friction >= 0)) throw Error("Langevin: the friction must be >= 0 /ps");
  if (!(params.temperature >= 0)) throw Error("Langevin: the bath temperature must be >= 0 K");
}

std::vector<double> inverseMasses(const System& system) {
  const std::vector<char> site = system.topology.virtualSites.mask(system.size());
  std::vector<double> inverse(system.size(), 0.0);
  for (std::size_t i = 0; i < system.size(); ++i) {
    if (site[i]) continue;  // massless, placed by its atoms: the update leaves it alone
    if (!(system.mass[i] > 0))
      throw Error("particle " + std::to_string(i) + " (" + system.types[std::size_t(system.type[i])].name +
                  ") has mass <= 0; every [atom.NAME] needs mass > 0");
    inverse[i] = 1.0 / system.mass[i];
  }
  return inverse;
}

bool conservesMomentum(IntegratorType integratorType) { return integratorType == IntegratorType::Verlet; }

double degreesOfFreedom(const System& system, IntegratorType integratorType) {
  const Topology& t = system.topology;
  const double constrained = double(t.constraints.size()) + 3.0 * double(t.settles.size());
  const double particles = double(system.size()) - double(t.virtualSites.size());
  return 3.0 * particles - constrained - (conservesMomentum(integratorType) ? 3.0 : 0.0);
}

}  // namespace faraday
