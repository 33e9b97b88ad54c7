#pragma once
#include "integrators/Integrator.h"

namespace faraday {

/// Velocity Verlet (kick-drift-kick), time reversible and symplectic:
///   v += dt/2 F(x)/m;  x += dt v;  F = F(x);  v += dt/2 F/m.
/// With constraints it is RATTLE: positions constrained after the drift (v += dx/dt), the
/// velocities after the second kick.
class VelocityVerlet : public CpuIntegrator {
 public:
  VelocityVerlet(const System& system, const IntegratorParams& params, int threads)
      : CpuIntegrator(system, params, threads) {}
  void beforeForces(State& state, const std::vector<Vec3>& forces) override;
  void afterForces(State& state, const std::vector<Vec3>& forces) override;
};

}  // namespace faraday
