#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "core/System.h"
#include "core/Vec3.h"
#include "integrators/Constraints.h"
#include "integrators/IntegratorParams.h"

namespace faraday {

/// One CPU time step, split around the force evaluation at the new positions:
///   beforeForces(state, F(x_n))   moves x_n -> x_{n+1} (and updates velocities),
///   <forces F(x_{n+1}) computed by the backend>,
///   afterForces(state, F(x_{n+1})) completes the velocities, advances step and time.
/// With constraints (the topology's rigid waters and distance constraints), the positions are
/// constrained after the drift from x_n (velocities corrected by the displacement over dt) and
/// the velocities after the last kick, as RATTLE does.
class CpuIntegrator {
 public:
  virtual ~CpuIntegrator() = default;
  virtual void beforeForces(State& state, const std::vector<Vec3>& forces) = 0;
  virtual void afterForces(State& state, const std::vector<Vec3>& forces) = 0;
  double dt() const { return dt_; }
  /// The kinetic energy (kJ/mol) that the step which led to `state` reports, where the
  /// integrator has its own estimate (LangevinBaoab: of the step's midpoint velocities); none
  /// where the on-step velocities' is meant (velocity Verlet, or no step taken yet).
  virtual std::optional<double> stepKineticEnergy(const State& state) const { return std::nullopt; }
  /// Whether the next steps measure stepKineticEnergy (on by default; a backend turns it off
  /// for steps whose energies nobody reads).
  virtual void measureStepKinetic(bool measure) {}
  /// The constraint solver, or null when the system has no constraints.
  CpuConstraints* constraints() const { return constraints_.get(); }
  /// The virial of the constraint forces (kJ/mol) of a constrained state; zero without
  /// constraints.
  Tensor3 constraintVirial(const State& state, const std::vector<Vec3>& forces) const;

 protected:
  CpuIntegrator(const System& system, const IntegratorParams& params, int threads);
  /// Keeps x_n, the reference of the position constraints (before the drift).
  void keepReference(const State& state) {
    if (constraints_) reference_ = state.positions;
  }
  /// Positions onto the constraints after the drift from the kept x_n; v += (x_c - x) / dt.
  void constrainPositions(State& state);
  /// The velocities' components along the constraints removed (after the last kick).
  void constrainVelocities(State& state);
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
  std::unique_ptr<CpuConstraints> constraints_;
  std::vector<Vec3> reference_;      ///< x_n of the step being taken (with constraints)
};

/// Whether the integrator `integratorType` keeps the centre-of-mass momentum:
/// velocity Verlet does (pair forces sum to zero), Langevin does not (friction and noise act
/// on every particle, so the centre of mass is thermostatted too).
bool conservesMomentum(IntegratorType integratorType);
/// 1/m of every particle (1/amu), 0 for the virtual sites, which the integrators leave to be
/// built from their atoms; Error for another particle of mass <= 0.
std::vector<double> inverseMasses(const System& system);
/// Degrees of freedom of the kinetic temperature, counted in this one place: 3N over the N
/// particles that are no virtual sites, minus one
/// per distance constraint and three per rigid water of the topology, minus 3 when the
/// integrator conserves momentum (its initial velocities then have no centre-of-mass
/// motion, which stays zero: constraint forces are internal).
double degreesOfFreedom(const System& system, IntegratorType integratorType);

}  // namespace faraday
