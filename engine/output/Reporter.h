#pragma once
#include "engine/backends/Backend.h"
#include "core/System.h"

namespace faraday {

/// Something the simulation loop calls every `interval()` steps with the current state:
/// energy log, trajectory, potential-map accumulator, checkpoint.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual const char* name() const = 0;
  /// Steps between reports (> 0).
  virtual long long interval() const = 0;
  /// Whether report() needs positions/velocities copied back from the backend (otherwise
  /// only the state's step, time and box are current).
  virtual bool needsState() const { return true; }
  /// Whether report() reads the energies and kinetic energy (otherwise they may be zero: a
  /// step where no due reporter needs them computes none).
  virtual bool needsEnergies() const { return true; }
  /// Called once the run's backend holds the initial state, before the first report.
  virtual void start(Backend& backend) {}
  /// Called at step 0 (unless restarting) and every interval() steps.
  virtual void report(const State& state, const Energies& energies, double kineticEnergy) = 0;
  /// End of run (normal or interrupted): write final outputs completely or not at all.
  virtual void finish(const State& state) {}
};

}  // namespace faraday
