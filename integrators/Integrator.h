#pragma once
#include <vector>

#include "core/System.h"
#include "core/Vec3.h"
#include "integrators/IntegratorParams.h"

namespace faraday {

/// One CPU time step, split around the force evaluation at the new positions:
///   beforeForces(state, F(x_n))   moves x_n -> x_{n+1} (and updates velocities),
///   <forces F(x_{n+1}) computed by the backend>,
///   afterForces(state, F(x_{n+1})) completes the velocities, advances step and time.
class CpuIntegrator {
 public:
  virtual ~CpuIntegrator() = default;
  virtual void beforeForces(State& state, const std::vector<Vec3>& forces) = 0;
  virtual void afterForces(State& state, const std::vector<Vec3>& forces) = 0;
  double dt() const { return dt_; }

 protected:
  CpuIntegrator(const System& system, double dt, int threads);
  /// B for particle i: v += h F / m  (h in ps, F in kJ/mol/nm, m in amu: F/m is nm/ps^2).
  void kick(State& state, const std::vector<Vec3>& forces, double h, long long i) const {
    state.velocities[i] += forces[i] * (h * inverseMass_[i]);
  }
  /// A for particle i: x += h v  (h in ps).
  static void drift(State& state, double h, long long i) { state.positions[i] += state.velocities[i] * h; }
  /// Runs update(i) for every particle: one parallel loop per call, and threads only for
  /// systems large enough to repay the fork (these loops are memory-bound and short).
  template <typename Update>
  void forEachParticle(const State& state, Update update) const {
    const long long n = (long long)state.positions.size();
#pragma omp parallel for num_threads(threads_) schedule(static) if (n >= kParallelMinParticles)
    for (long long i = 0; i < n; ++i) update(i);
  }
  void advanceClock(State& state) const;

  static constexpr long long kParallelMinParticles = 16384;

  std::vector<double> inverseMass_;  ///< 1/amu
  double dt_;                        ///< ps
  int threads_;                      ///< OpenMP threads (resolved, > 0)
};

/// Whether the integrator named by integrator.type keeps the centre-of-mass momentum:
/// velocity Verlet does (pair forces sum to zero), Langevin does not (friction and noise act
/// on every particle, so the centre of mass is thermostatted too).
bool conservesMomentum(const std::string& integratorType);
/// Degrees of freedom of the kinetic temperature, counted in this one place: 3N, minus 3
/// when the integrator conserves momentum (its initial velocities then have no
/// centre-of-mass motion, which stays zero). There are no constraints yet.
double degreesOfFreedom(const System& system, const std::string& integratorType);

}  // namespace faraday
