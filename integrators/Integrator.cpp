#include "integrators/Integrator.h"

#include <omp.h>

#include <cmath>

#include "core/Error.h"

namespace faraday {

CpuIntegrator::CpuIntegrator(const System& system, double dt, int threads)
    : dt_(dt), threads_(threads > 0 ? threads : omp_get_max_threads()) {
  if (!(dt > 0) || !std::isfinite(dt)) throw keyError("integrator.dt", "must be > 0");
  inverseMass_.resize(system.size());
  for (std::size_t i = 0; i < system.size(); ++i) {
    if (!(system.mass[i] > 0))
      throw Error("particle " + std::to_string(i) + " (" + system.types[std::size_t(system.type[i])].name +
                  ") has mass <= 0; every [atom.NAME] needs mass > 0");
    inverseMass_[i] = 1.0 / system.mass[i];
  }
}

void CpuIntegrator::advanceClock(State& state) const {
  state.step += 1;
  state.time += dt_;
}

bool conservesMomentum(const std::string& integratorType) {
  if (integratorType == "verlet") return true;
  if (integratorType == "langevin") return false;
  throw keyError("integrator.type", "'" + integratorType + "' is not one of verlet, langevin");
}

double degreesOfFreedom(const System& system, const std::string& integratorType) {
  return 3.0 * double(system.size()) - (conservesMomentum(integratorType) ? 3.0 : 0.0);
}

}  // namespace faraday
