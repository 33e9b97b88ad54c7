#pragma once
#include <cstdint>

#include "core/HostDevice.h"
#include "integrators/Integrator.h"
#include "kernels/common/Philox.h"

namespace faraday {

/// Ornstein-Uhlenbeck velocity update of one particle (the O of BAOAB), exact for the
/// friction part:  v = a v + sqrt((1 - a^2) kT / m) xi,  a = exp(-gamma dt),
/// xi = philox::normals(seed, kStreamLangevin, step, particle) (first three).
/// `noiseScale` = sqrt((1 - a^2) kT / m) in nm/ps. Written once for host and device.
FARADAY_HD Vec3 langevinOrnsteinUhlenbeck(Vec3 v, double a, double noiseScale, std::uint64_t seed,
                                          std::uint64_t step, std::uint32_t particle) {
  const philox::Normal4 xi = philox::normals(seed, philox::kStreamLangevin, step, particle);
  return {a * v.x + noiseScale * xi.n[0], a * v.y + noiseScale * xi.n[1], a * v.z + noiseScale * xi.n[2]};
}

/// Langevin dynamics by BAOAB (Leimkuhler & Matthews 2013), accurate configurational
/// sampling at large time steps:
///   B: v += dt/2 F/m;  A: x += dt/2 v;  O: Ornstein-Uhlenbeck;  A: x += dt/2 v;
///   F = F(x);  B: v += dt/2 F/m.
/// The noise of step n (the step being taken, state.step before it) is keyed by
/// (seed, step, particle), so a restart continues exactly.
/// With constraints: the positions are constrained after the second A from x_n, the
/// displacement dx of the whole drift going into the velocity as dx / dt (as velocity
/// Verlet's RATTLE does, and GROMACS' and OpenMM's Langevin integrators: dx / (dt/2) would
/// count the centripetal part twice and heat rotating molecules), and the velocities after the
/// last B (integrators/NOTES.md).
class LangevinBaoab : public CpuIntegrator {
 public:
  LangevinBaoab(const System& system, const IntegratorParams& params, int threads);
  void beforeForces(State& state, const std::vector<Vec3>& forces) override;
  void afterForces(State& state, const std::vector<Vec3>& forces) override;

 private:
  double a_;                      ///< exp(-gamma dt)
  std::vector<double> noiseScale_;  ///< per particle sqrt((1 - a^2) kT / m), nm/ps
  std::uint64_t seed_;
};

}  // namespace faraday
