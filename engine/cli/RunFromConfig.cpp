// `faraday run`'s work between the command line and the loop: the setup, the restart's
// checks, the effective configuration printed, the potential map's reporter added.
#include "engine/cli/RunFromConfig.h"

#include <iostream>

#include "core/Error.h"
#include "engine/backends/BackendFactory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/maps/MapReporter.h"
#include "engine/run/Checkpoint.h"
#include "engine/run/EnergyLog.h"
#include "engine/run/RunLog.h"
#include "engine/run/Runaway.h"
#include "engine/setup/SystemSetup.h"

namespace faraday {
namespace {

void printEffective(const Config& config, std::ostream& log) {
  log << "Effective configuration" << (config.configFile.empty() ? "" : " (" + config.configFile.string() + ")") << ":\n";
  for (const auto& [key, value] : config.effective) log << "  " << key << " = " << value << "\n";
}

/// What a restart from `checkpoint` continues: run.steps must not lie before it, and the energy
/// log and the trajectory must reach it (incomplete rows of the log are noted; the restart drops them).
void checkRestart(const Config& config, const Checkpoint& checkpoint, const System& system, std::ostream& log) {
  if (checkpoint.step > config.run.steps)
    throw keyError("run.steps", std::to_string(config.run.steps) + " is before the checkpoint's step " +
                                    std::to_string(checkpoint.step) + ": the restart would cut the energy log and the "
                                    "trajectory back to step " + std::to_string(checkpoint.step) +
                                    " and replace the final coordinates; set run.steps to the last step wanted");
  const auto& out = config.output;
  const std::filesystem::path energy = out.directory / out.energyFile;
  if (!out.energyFile.empty() && std::filesystem::exists(energy))
    for (const long line :
         energyLogContinuation(energy, checkpoint.step, bondedSlotsPresent(system.topology), config.barostat.enabled)
             .dropped)
      logNote(log, energy.string() + ":" + std::to_string(line) + ": an incomplete row (cut off when the run stopped); "
                "the restart drops it");
  const std::filesystem::path trajectory = out.directory / out.trajectoryFile;
  if (!out.trajectoryFile.empty() && std::filesystem::exists(trajectory))
    checkTrajectoryContinues(trajectory, system.size(), out.trajectoryInterval, checkpoint.step);
}

}  // namespace

RunResult runFromConfig(const Config& config, const RunOptions& options, std::ostream& log) {
  Setup setup = buildSetup(config);
  for (const std::string& w : checkElectrostaticsAccuracy(config, setup.system, true, config.map.enabled))
    setup.warnings.push_back(w);
  for (const std::string& warning : setup.warnings) {
    std::cerr << "faraday: warning: " << warning << "\n";
    logFileOnly(log, "Warning: " + warning + "\n");
  }
  std::optional<Checkpoint> checkpoint;
  if (!options.restart.empty()) {
    checkpoint = readCheckpoint(options.restart, setup.system.size(), physicsDescription(config, setup.system));
    checkSameSystem(*checkpoint, setup.system, options.restart);
    checkRestart(config, *checkpoint, setup.system, log);
  }
  if (options.dryRun) {
    printEffective(config, log);
    log << "System (" << config.system.coordinates.string() << "):\n" << describeSystem(setup.system);
    log << "Velocities: " << (setup.velocitiesFromFile ? "from the coordinate file" : "Maxwell-Boltzmann") << "\n";
    log << runSetupSummary(config, setup.system);
    // Contacts are judged by LJ sizes in the periodic box; all pairs have neither.
    if (!config.nonbonded.allPairs())
      log << describeCloseContacts(setup.system, checkpoint ? checkpoint->positions : setup.state.positions,
                                   checkpoint ? checkpoint->box : setup.system.box);
    if (checkpoint) log << "Restart from step " << checkpoint->step << " (" << options.restart.string() << ")\n";
    log << "Dry run: configuration and input are valid; nothing was written.\n";
    return {};
  }
  printEffective(config, log);
  log << describeSystem(setup.system);
  log << "Velocities: " << (checkpoint ? "from the checkpoint" : setup.velocitiesFromFile ? "from the coordinate file" : "Maxwell-Boltzmann") << "\n";
  if (checkpoint) log << "Restart from step " << checkpoint->step << " (" << options.restart.string() << ")\n";
  logFileOnly(log, runSetupSummary(config, setup.system));
  log << std::flush;
  Simulation simulation(config, std::move(setup), std::move(checkpoint), log);
  if (config.map.enabled)
    simulation.addReporter(
        makeMapReporter(config, simulation.system(), platformUsesCuda(config.run.platform), &simulation.timers()));
  return simulation.run();
}

}  // namespace faraday
