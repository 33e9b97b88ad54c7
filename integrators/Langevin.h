#pragma once
#include <cmath>
#include <cstdint>
#include <optional>

#include "core/HostDevice.h"
#include "core/Units.h"
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

/// The O step's velocity decay a = exp(-gamma dt) of `params` (friction gamma 1/ps, dt ps),
/// on the CPU and the GPU.
inline double langevinDecay(const IntegratorParams& params) { return std::exp(-params.friction * params.dt); }
/// The O step's noise variance times the mass, (1 - a^2) k_B T (kJ/mol): noiseScale^2 m.
inline double langevinNoiseVariance(const IntegratorParams& params) {
  const double a = langevinDecay(params);
  return (1 - a * a) * (units::kBoltzmann * params.temperature);
}

/// The kinetic energy a Langevin step reports: that of its midpoint velocities, those after
/// the first half (B A O A, then the constraints' dx / dt), as OpenMM's LangevinMiddle reports
/// its stored velocities, with the components along the constraints at the step's midpoint
/// positions (x_n + x_{n+1}) / 2 removed. BAOAB's on-step velocities read a harmonic mode of
/// frequency w cold by a factor 1 - (w dt / 2)^2 (a C=O stretch 25% low at 4 fs), while the
/// velocities after O sample kT exactly at any time step; the projection removes the noise
/// that O puts along the constraints, which the constrained drift leaves half of (integrators/
/// NOTES.md). Per particle, for host and device: 1/2 |v|^2 / m^-1 (0 for a massless virtual
/// site, m^-1 = 0).
FARADAY_HD double langevinMidpointKinetic(Vec3 v, double inverseMass) {
  return inverseMass > 0 ? 0.5 * norm2(v) / inverseMass : 0.0;
}

/// Langevin dynamics by BAOAB (Leimkuhler & Matthews 2013), accurate configurational
/// sampling at large time steps:
///   B: v += dt/2 F/m;  A: x += dt/2 v;  O: Ornstein-Uhlenbeck;  A: x += dt/2 v;
///   F = F(x);  B: v += dt/2 F/m.
/// The noise of step n (the step being taken, state.step before it) is keyed by
/// (seed, step, particle), so a restart continues exactly.
/// With constraints, as OpenMM's LangevinMiddle: the velocities after the first B are put on
/// the constraints at x_n (RATTLE's velocity solve); after A O A the positions are constrained
/// from x_n, the displacement dx of the whole drift going into the velocity as dx / dt; after
/// the last B the velocities are put on the constraints at x_{n+1}. Without the first
/// projection, B's components along the constraints (for a water hydrogen at 4 fs, twice its
/// thermal speed) drift the atoms along the bonds and the constrained drift turns part of that
/// into heat: rigid water ran 4-6 K hot at 4 fs (integrators/NOTES.md). A step reports the
/// kinetic energy of langevinMidpointKinetic.
class LangevinBaoab : public CpuIntegrator {
 public:
  LangevinBaoab(const System& system, const IntegratorParams& params, int threads);
  void beforeForces(State& state, const std::vector<Vec3>& forces) override;
  void afterForces(State& state, const std::vector<Vec3>& forces) override;
  std::optional<double> stepKineticEnergy(const State& state) const override;
  void measureStepKinetic(bool measure) override { measureStepKinetic_ = measure; }

 private:
  /// stepKinetic_ of the step just taken (its first half done).
  void measureKinetic(const State& state);

  double a_;                      ///< exp(-gamma dt)
  double stepKinetic_ = 0;        ///< the midpoint kinetic energy of the last step (kJ/mol)
  long long stepKineticAt_ = -1;  ///< the State::step it belongs to (after the step)
  bool measureStepKinetic_ = true;
  std::vector<Vec3> midpoint_, projected_;  ///< with constraints: the midpoint positions, velocities
  std::vector<double> noiseScale_;  ///< per particle sqrt((1 - a^2) kT / m), nm/ps
  std::uint64_t seed_;
};

}  // namespace faraday
