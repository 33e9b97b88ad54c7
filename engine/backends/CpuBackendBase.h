#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "integrators/Integrator.h"

namespace faraday {

/// What the CPU backends share: the state on the host, the forces of the current positions,
/// and a step of the CPU integrator around the derived class's computeForces(). Phase
/// "integrate" is timed here; the forces' phases by the derived class.
class CpuBackendBase : public Backend {
 public:
  void getState(State& state) override { state = state_; }
  const std::vector<Vec3>& forces() override { return forces_; }
  /// evaluateForces(), then energies().
  Energies computeForces() final;
  void advance(bool withEnergies) override;
  /// The energies of the last evaluation; the virial with the constraint forces of the
  /// current (constrained) state added.
  Energies energies() override;
  double kineticEnergy() override;
  long nonFiniteParticle() override;

 protected:
  /// Resolves `threads` (0: all cores) and makes the integrator of `integrator`.
  CpuBackendBase(int threads, const IntegratorParams& integrator, const System& system, Timers* timers);
  /// Forces of the current positions into forces_, their energies into energies_ (and
  /// returned), without the constraint virial.
  virtual Energies evaluateForces() = 0;
  /// Checks `state` against the system and takes it (a state without a box takes the system's;
  /// the virtual sites' velocities zeroed).
  void takeState(const State& state);

  const System& system_;
  Timers* timers_;
  int threads_;
  std::unique_ptr<CpuIntegrator> integrator_;
  State state_;
  std::vector<Vec3> forces_;
  Energies energies_;
};

}  // namespace faraday
