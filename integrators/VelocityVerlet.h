#pragma once
#include "integrators/Integrator.h"

namespace faraday {

/// Velocity Verlet (kick-drift-kick), time reversible and symplectic:
///   v += dt/2 F(x)/m;  x += dt v;  F = F(x);  v += dt/2 F/m.
class VelocityVerlet : public CpuIntegrator {
 public:
  VelocityVerlet(const System& system, double dt, int threads) : CpuIntegrator(system, dt, threads) {}
  void beforeForces(State& state, const std::vector<Vec3>& forces) override;
  void afterForces(State& state, const std::vector<Vec3>& forces) override;
};

}  // namespace faraday
