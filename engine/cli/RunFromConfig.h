#pragma once
// `faraday run` from a loaded configuration (RunCli.cpp reads the command line).
#include <filesystem>
#include <ostream>

#include "engine/config/Config.h"
#include "engine/run/Simulation.h"

namespace faraday {

/// Options of `faraday run` beyond the config.
struct RunOptions {
  bool dryRun = false;
  std::filesystem::path restart;  ///< empty: fresh start
};

/// `faraday run`: loads the setup (and checkpoint), then either prints the effective
/// configuration and the system (dry run) or runs. Writes nothing when setup fails. A restart
/// must not start beyond run.steps, and the energy log and trajectory it continues must reach
/// the checkpoint's step (checked before anything is written, also by a dry run).
RunResult runFromConfig(const Config& config, const RunOptions& options, std::ostream& log);

}  // namespace faraday
