#include "engine/run/Simulation.h"

#include <cstdio>
#include <iostream>

#include "engine/config/ConfigChecks.h"
#include "engine/formats/Coordinates.h"
#include "engine/run/EnergyLog.h"
#include "core/Error.h"
#include "engine/formats/GroFile.h"
#include "engine/formats/NpyFile.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/output/Progress.h"
#include "engine/run/RunLog.h"
#include "engine/run/Runaway.h"
#include "engine/output/StopSignals.h"
#include "engine/run/TrajectoryReporter.h"
#include "engine/setup/ConstraintSetup.h"
#include "integrators/Integrator.h"
#include "engine/backends/BackendFactory.h"

namespace faraday {
namespace {

bool allFinite(const std::vector<Vec3>& v) {
  for (const Vec3& x : v)
    if (!isFinite(x)) return false;
  return true;
}

/// First particle with a non-finite position, velocity or force, and which; -1 if none.
long firstBadParticle(const State& state, const std::vector<Vec3>& forces, std::string& what) {
  const std::size_t n = state.positions.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!isFinite(state.positions[i])) return what = "position", long(i);
    if (i < state.velocities.size() && !isFinite(state.velocities[i])) return what = "velocity", long(i);
    if (i < forces.size() && !isFinite(forces[i])) return what = "force", long(i);
  }
  return -1;
}

long largestForce(const std::vector<Vec3>& forces) {
  long best = -1;
  double largest = -1;
  for (std::size_t i = 0; i < forces.size(); ++i)
    if (norm2(forces[i]) > largest) largest = norm2(forces[i]), best = long(i);
  return best;
}

bool divides(long long interval, long long step) { return interval > 0 && step % interval == 0; }

double totalMass(const System& system) {
  double m = 0;
  for (const double x : system.mass) m += x;
  return m;
}


}  // namespace

Simulation::Simulation(const Config& config, Setup setup, std::optional<Checkpoint> restart, std::ostream& log)
    : config_(config), setup_(std::move(setup)), restart_(std::move(restart)), log_(log) {
  state_ = setup_.state;
  if (restart_) {
    state_.positions = restart_->positions;
    state_.velocities = restart_->velocities;
    state_.step = restart_->step;
    state_.time = restart_->time;
    state_.box = restart_->box;
  }
  firstStep_ = state_.step;
  physics_ = physicsDescription(config_, setup_.system);
  fingerprint_ = systemFingerprint(setup_.system);
}

Simulation::~Simulation() = default;

void Simulation::addReporter(std::unique_ptr<Reporter> reporter) { reporters_.push_back(std::move(reporter)); }

std::filesystem::path Simulation::outputPath(const std::string& name) const { return config_.output.directory / name; }

void Simulation::createStandardReporters() {
  lock_ = std::make_unique<OutputLock>(config_.output.directory, "faraday run", "output.directory");
  if (!lock_->note().empty()) logNote(log_, lock_->note());
  // A new run keeps the results it would replace; a restart continues them, except a map,
  // which averages the frames of this part only.
  std::vector<std::filesystem::path> replaced = commandOutputs(config_, Command::Run);
  if (restart_) replaced = config_.map.enabled ? std::vector{mapOutputPath(config_)} : std::vector<std::filesystem::path>{};
  for (const std::string& line : backUpFiles(replaced)) logNote(log_, line);
  const long long restartStep = restart_ ? restart_->step : -1;
  const auto& out = config_.output;
  if (!out.logFile.empty()) openRunLog(log_, outputPath(out.logFile), restart_.has_value());
  if (!out.energyFile.empty())
    reporters_.insert(reporters_.begin(),
                      std::make_unique<EnergyLog>(outputPath(out.energyFile),
                                                  degreesOfFreedom(setup_.system, config_.integrator.type),
                                                  out.energyInterval, config_.integrator.dt, restartStep,
                                                  !config_.nonbonded.allPairs(),
                                                  bondedSlotsPresent(setup_.system.topology),
                                                  config_.barostat.enabled ? totalMass(setup_.system) : 0.0));
  if (!out.trajectoryFile.empty())
    reporters_.push_back(std::make_unique<TrajectoryReporter>(outputPath(out.trajectoryFile), setup_.system.size(),
                                                              out.trajectoryInterval, config_.integrator.dt, restartStep,
                                                              out.xtcPrecision));
}

void Simulation::start() {
  if (!restart_)
    constrainInitialState(config_, setup_.system, state_,
                          setup_.velocitiesFromFile ? -1.0 : config_.system.temperature);
  backend_ = makeBackend(config_, setup_.system, &timers_);
  barostat_ = makeBarostat(config_, setup_.system, restart_ ? restart_->barostat : BarostatState{});
  backend_->setState(state_, restart_ ? restart_->listReference : std::vector<Vec3>{});
  const Energies energies = backend_->computeForces();
  lastGood_ = state_;
  lastGood_.step = -1;  // nothing checked yet
  checkPotential(firstStep_, energies);
  checkFirstStep();
  // Outputs are created only once the input has been read and evaluated successfully.
  createStandardReporters();
  for (const auto& r : reporters_) r->start(*backend_);
  reference_ = backend_->listReference();
  rememberGoodState();
  if (!restart_) reportAt(firstStep_, &energies);
}

bool Simulation::anyDue(long long step) const {
  for (const auto& r : reporters_)
    if (divides(r->interval(), step)) return true;
  return false;
}

bool Simulation::anyDueNeedsState(long long step) const {
  for (const auto& r : reporters_)
    if (divides(r->interval(), step) && r->needsState()) return true;
  return false;
}

bool Simulation::anyDueNeedsEnergies(long long step) const {
  for (const auto& r : reporters_)
    if (divides(r->interval(), step) && r->needsEnergies()) return true;
  return false;
}

void Simulation::copyStateBack() {
  try {
    backend_->settle();  // the state the run keeps (a no-op where it is checked already)
  } catch (const StepFailure& failure) {
    stopWithLastGoodState(state_.step + 1, failure.what());
  }
  backend_->snapshot(state_, reference_);
  if (!allFinite(state_.positions) || !allFinite(state_.velocities)) return;  // the callers report it
  // Only a state within the runaway bound is a good state to go back to.
  if (const auto r = findRunaway(setup_.system, state_, backend_->forces(), config_.integrator.dt))
    failRunaway(state_.step, r->reason, r->particle);
  rememberGoodState();
}

void Simulation::rememberGoodState() {
  lastGood_ = state_;
  lastGoodReference_ = reference_;
  if (barostat_) lastGoodBarostat_ = barostat_->state();
}

void Simulation::reportAt(long long step, const Energies* energies) {
  ScopedTimer timer(&timers_, "output");
  checkHealth(step);
  if (anyDueNeedsState(step)) copyStateBack();
  const double kinetic = energies ? backend_->kineticEnergy() : 0.0;
  for (const auto& r : reporters_)
    if (divides(r->interval(), step)) r->report(state_, energies ? *energies : Energies{}, kinetic);
}

void Simulation::checkPotential(long long step, const Energies& energies) {
  if (!std::isfinite(energies.potential())) failNonFinite(step, "non-finite potential energy");
  if (const auto reason = potentialRunaway(setup_.system, energies.potential())) failRunaway(step, *reason, -1);
}

void Simulation::checkFirstStep() {
  if (!allFinite(backend_->forces())) failNonFinite(firstStep_, "non-finite force");
  State now;
  backend_->getState(now);
  const std::vector<Vec3>& forces = backend_->forces();
  const auto r = findRunaway(setup_.system, now, forces, config_.integrator.dt);
  if (!r) return;
  // The state's energy and forces are finite and within bounds: the time step is the cause.
  char text[256];
  std::snprintf(text, sizeof text, "integrator.dt = %g ps is too long for the state at step %lld (a time step below "
                "%.3g ps keeps every particle within the bound): ", config_.integrator.dt, firstStep_,
                longestStepWithinBound(setup_.system, now, forces));
  throw Error(text + r->reason + ": " + describeParticle(setup_.system, now, r->particle, !config_.nonbonded.allPairs()) +
              " (nothing written)");
}

void Simulation::failRunaway(long long step, const std::string& reason, long particle) {
  State bad;
  backend_->getState(bad);
  if (particle < 0) particle = largestForce(backend_->forces());
  std::string message = reason + " at step " + std::to_string(step);
  if (particle >= 0) message += ": " + describeParticle(setup_.system, bad, particle, !config_.nonbonded.allPairs());
  stopWithLastGoodState(step, message);
}

void Simulation::checkHealth(long long step) {
  if (backend_->nonFiniteParticle() >= 0) failNonFinite(step, "non-finite (or runaway) position, velocity or force");
}

void Simulation::failNonFinite(long long step, const std::string& what) {
  State bad;
  backend_->getState(bad);
  const std::vector<Vec3>& forces = backend_->forces();
  std::string kind;
  long index = firstBadParticle(bad, forces, kind);
  std::string message = what + " at step " + std::to_string(step) + ": ";
  if (index < 0) {
    index = largestForce(forces);
    kind = "largest force";
    message += "no particle has a non-finite position, velocity or force; ";
  }
  if (index >= 0)
    message += describeParticle(setup_.system, bad, index, !config_.nonbonded.allPairs()) + "; it has " +
               (kind == "largest force" ? "the largest force" : "a non-finite " + kind);
  stopWithLastGoodState(step, message);
}

void Simulation::stopWithLastGoodState(long long step, std::string message) {
  if (lastGood_.step >= 0 && lastGood_.step < step && !config_.output.checkpointFile.empty()) {
    saveCheckpoint(lastGood_, lastGoodReference_, lastGoodBarostat_);
    message += "; last good state (step " + std::to_string(lastGood_.step) + ") saved to " +
               outputPath(config_.output.checkpointFile).string();
  } else if (lastGood_.step < 0) {
    message += "; the initial state is already bad (nothing written)";
  }
  for (const auto& r : reporters_) r->finish(lastGood_);
  throw Error(message);
}

void Simulation::saveCheckpoint(const State& state, const std::vector<Vec3>& listReference,
                                const BarostatState& barostat) {
  if (config_.output.checkpointFile.empty()) return;
  Checkpoint c;
  c.step = state.step;
  c.time = state.time;
  c.box = state.box;
  c.positions = state.positions;
  c.velocities = state.velocities;
  c.listReference = listReference;
  c.physics = physics_;
  c.barostat = barostat;
  c.fingerprint = fingerprint_;
  writeCheckpoint(outputPath(config_.output.checkpointFile), c);
}

void Simulation::finishRun(bool writeFinalCoordinates) {
  ScopedTimer timer(&timers_, "output");
  copyStateBack();
  if (lastGood_.step != state_.step) failNonFinite(state_.step, "non-finite position or velocity");
  // The checkpoint and the reporters first: an unwritable final .gro must not cost them.
  saveCheckpoint(state_, reference_, barostat_ ? barostat_->state() : BarostatState{});
  if (!config_.output.forcesFile.empty()) writeNpy(outputPath(config_.output.forcesFile), {backend_->forces()}, true);
  for (const auto& r : reporters_) r->finish(state_);
  if (writeFinalCoordinates && !config_.output.finalCoordinates.empty())
    writeGro(outputPath(config_.output.finalCoordinates), coordinatesOf(setup_.system, state_, setup_.title));
}

void Simulation::checkpointAt(long long step) {
  ScopedTimer timer(&timers_, "output");
  copyStateBack();
  if (lastGood_.step != step) failNonFinite(step, "non-finite position or velocity");
  saveCheckpoint(state_, lastGoodReference_, lastGoodBarostat_);
}

void Simulation::tryVolumeMove() {
  ScopedTimer timer(&timers_, "barostat");
  barostat_->attempt(*backend_, state_.box);
}

long long Simulation::advance(long long lastStep) {
  Progress progress(config_.run.progressInterval, firstStep_, lastStep, config_.integrator.dt);
  const double startTime = state_.time;
  const bool checkpoints = !config_.output.checkpointFile.empty();
  long long step = firstStep_;
  while (step < lastStep && !StopSignals::received()) {
    // Energies only where a reporter needs them; a cheap device-side health check in between.
    const bool report = anyDue(step + 1);
    const bool withEnergies = report && anyDueNeedsEnergies(step + 1);
    // A volume move compares the energies of the step's state and of the scaled one.
    const bool volumeMove = barostat_ && divides(barostat_->interval(), step + 1);
    // A step that could not be taken (constraints) stops the run with the last good state;
    // the GPU reports it at its next check, here or in the reports and health checks.
    try {
      backend_->advance(withEnergies || volumeMove);
      ++step;
      state_.step = step;  // kept current for reporters that do not copy the state back
      state_.time = startTime + double(step - firstStep_) * config_.integrator.dt;
      if (volumeMove) tryVolumeMove();
      if (withEnergies) {
        const Energies energies = backend_->energies();
        checkPotential(step, energies);
        reportAt(step, &energies);
      } else if (report) {
        backend_->settle();  // a reporter reading the device state reads the one the run keeps
        reportAt(step, nullptr);
      } else if (divides(kHealthCheckInterval, step)) {
        checkHealth(step);
      }
    } catch (const StepFailure& failure) {
      stopWithLastGoodState(step + 1, failure.what());
    }
    if (checkpoints && step < lastStep && divides(config_.output.checkpointInterval, step)) checkpointAt(step);
    progress.update(step);
  }
  progress.finish();
  nsPerDay_ = progress.nsPerDay(step);
  return step;
}

void Simulation::printSummary(long long steps, double wallSeconds) {
  log_ << timers_.table("Time per phase", wallSeconds);
  if (barostat_) log_ << barostat_->summary();
  char line[256];
  std::snprintf(line, sizeof line, "Performance: %.4g ns/day (%lld steps, %.3f s wall)\n", nsPerDay_, steps, wallSeconds);
  log_ << line << std::flush;
}

RunResult Simulation::run() {
  StopSignals signals;
  const auto wallStart = Timers::Clock::now();
  start();
  const long long lastStep = std::max(config_.run.steps, firstStep_);
  log_ << "Running steps " << firstStep_ << " to " << lastStep << " on " << backend_->name() << "\n" << std::flush;
  RunResult result;
  result.finalStep = advance(lastStep);
  result.signal = StopSignals::received();
  result.interrupted = result.signal != 0 && result.finalStep < lastStep;
  result.nsPerDay = nsPerDay_;
  finishRun(!result.interrupted);
  printSummary(result.finalStep - firstStep_, std::chrono::duration<double>(Timers::Clock::now() - wallStart).count());
  return result;
}

}  // namespace faraday
