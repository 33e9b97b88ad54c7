#pragma once
#include <memory>
#include <vector>

#include "engine/Config.h"
#include "engine/System.h"
#include "engine/Vec3.h"

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
  /// B: v += h F / m  (h in ps, F in kJ/mol/nm, m in amu: F/m is nm/ps^2).
  void kick(State& state, const std::vector<Vec3>& forces, double h) const;
  /// A: x += h v  (h in ps).
  void drift(State& state, double h) const;
  void advanceClock(State& state) const;

  std::vector<double> inverseMass_;  ///< 1/amu
  double dt_;                        ///< ps
  int threads_;                      ///< OpenMP threads (resolved, > 0)
};

/// The integrator named by integrator.type ("verlet" or "langevin"); throws Error naming
/// the key for an unknown type or invalid values.
std::unique_ptr<CpuIntegrator> makeCpuIntegrator(const Config::IntegratorSection& config, const System& system,
                                                 int threads);

}  // namespace faraday
