#pragma once
// `faraday map map.cfg`: the potential map averaged over every frame of map.trajectory.
#include <string>
#include <vector>

#include "engine/config/Config.h"
#include "core/System.h"
#include "core/Timers.h"

namespace faraday {

/// Averages the map of `system` (charges from its atom types) over all frames of
/// config.map.trajectory (DCD or XTC) and writes config.map.file (relative to output.directory).
/// useCuda picks the GPU kernels. A trajectory whose atom count differs from the system's
/// throws Error naming the file and both counts; an unwritable map.file throws Error naming
/// map.file and the file before any frame is read. Prints progress lines on stderr every
/// run.progress_interval seconds (frames done, frames per second, time remaining), then the
/// time per phase (into `timers` when given) and one summary line; returns 0.
int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers = nullptr);

/// Builds the system from the config (system.coordinates and [atom.NAME] types), chooses
/// the platform from run.platform (auto = CUDA when a device is usable) and averages the map.
int mapMain(const Config& config);

/// `faraday map CONFIG [--section.key=value ...]`.
int mapCommand(const std::vector<std::string>& args);

}  // namespace faraday
