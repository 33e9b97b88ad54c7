#pragma once
// The integrator's parameters, as the [integrator] configuration keys give them (the engine
// validates the keys; the integrators check the values they depend on).
#include <string>

namespace faraday {

struct IntegratorParams {
  std::string type = "verlet";  ///< integrator.type: verlet | langevin
  double dt = 0.002;            ///< integrator.dt, ps
  double temperature = 300;     ///< integrator.temperature, K (langevin)
  double friction = 1.0;        ///< integrator.friction, 1/ps (langevin)
  unsigned long long seed = 1;  ///< integrator.seed (langevin noise)
  /// integrator.constraint_tolerance: relative length error of the iterative constraint
  /// solves (integrators/NOTES.md: why 1e-6)
  double constraintTolerance = 1e-6;
};

}  // namespace faraday
