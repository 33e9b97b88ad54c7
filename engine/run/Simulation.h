#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/backends/Backend.h"
#include "engine/run/Barostat.h"
#include "engine/run/Checkpoint.h"
#include "engine/output/OutputFolder.h"
#include "engine/config/Config.h"
#include "engine/output/Reporter.h"
#include "engine/setup/SystemSetup.h"
#include "core/Timers.h"

namespace faraday {

/// How a run ended.
struct RunResult {
  long long finalStep = 0;
  bool interrupted = false;  ///< stopped by SIGINT, SIGTERM or SIGHUP after writing a checkpoint
  int signal = 0;            ///< the signal that stopped it
  double nsPerDay = 0;
};

/// The run loop: backend, reporters, checkpoints, interruption and non-finite checks.
/// Setup -> makeBackend -> setState -> computeForces -> reporters at step 0 (not when
/// restarting) -> for each step: backend->step(), the barostat's volume move every
/// barostat.interval steps, reporters whose interval divides the step -> final .gro, final
/// checkpoint, reporters' finish.
class Simulation {
 public:
  /// `restart`: a checkpoint already checked against this system (or none).
  Simulation(const Config& config, Setup setup, std::optional<Checkpoint> restart, std::ostream& log);
  ~Simulation();

  /// Extra reporters (e.g. potential maps), added before run().
  void addReporter(std::unique_ptr<Reporter> reporter);
  /// Runs up to config.run.steps. Throws Error on a non-finite state (after saving a
  /// checkpoint of the last good state).
  RunResult run();

  const System& system() const { return setup_.system; }
  Timers& timers() { return timers_; }

 private:
  void start();
  void createStandardReporters();
  /// Reports to the reporters due at `step`; energies null when none of them needs energies.
  void reportAt(long long step, const Energies* energies);
  bool anyDue(long long step) const;
  bool anyDueNeedsState(long long step) const;
  bool anyDueNeedsEnergies(long long step) const;
  void copyStateBack();
  void checkPotential(long long step, const Energies& energies);
  /// The runaway bound on the state the run starts from, before any step: a state within
  /// the energy bound whose first step would still move a particle too far is refused for
  /// its time step (naming integrator.dt and the longest step within the bound).
  void checkFirstStep();
  /// Fails (as failNonFinite) when the backend reports a non-finite particle.
  void checkHealth(long long step);
  /// Steps between health checks outside reporting steps: a failure is reported at most
  /// this many steps late, and the last good state is the last reported or checkpointed one.
  static constexpr long long kHealthCheckInterval = 100;
  [[noreturn]] void failNonFinite(long long step, const std::string& what);
  /// Stops a run that exceeds a runaway bound (engine/Runaway.h), naming `particle` (-1: the
  /// one with the largest force) and its closest neighbour.
  [[noreturn]] void failRunaway(long long step, const std::string& reason, long particle);
  /// Saves the last good state as the checkpoint (if any), finishes the reporters, throws.
  [[noreturn]] void stopWithLastGoodState(long long step, std::string message);
  void rememberGoodState();
  void saveCheckpoint(const State& state, const std::vector<Vec3>& listReference, const BarostatState& barostat);
  /// The barostat's trial move after `step` (its energies computed by the step).
  void tryVolumeMove();
  void checkpointAt(long long step);
  /// Steps until `lastStep` or a stop signal; returns the step reached.
  long long advance(long long lastStep);
  void finishRun(bool writeFinalCoordinates);
  void printSummary(long long steps, double wallSeconds);
  std::filesystem::path outputPath(const std::string& name) const;

  const Config& config_;
  std::unique_ptr<OutputLock> lock_;  ///< held from the creation of the outputs to the end
  Setup setup_;
  std::optional<Checkpoint> restart_;
  std::ostream& log_;
  Timers timers_;
  std::unique_ptr<Backend> backend_;
  std::vector<std::unique_ptr<Reporter>> reporters_;
  State state_;          ///< last state copied back (step/time/box always current)
  State lastGood_;       ///< last state checked finite
  std::vector<Vec3> reference_;  ///< list reference of state_ (copied back with it)
  std::vector<Vec3> lastGoodReference_;
  std::unique_ptr<MonteCarloBarostat> barostat_;  ///< null without [barostat]
  BarostatState lastGoodBarostat_;
  std::string physics_;
  SystemFingerprint fingerprint_;  ///< what the checkpoints remember of the system
  long long firstStep_ = 0;
  double nsPerDay_ = 0;
};

}  // namespace faraday
