#pragma once
// `faraday map map.cfg`: the potential map averaged over every frame of map.trajectory.
#include <ostream>

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

/// `faraday map CONFIG --dry-run`: builds the system, opens map.trajectory (checking its atom
/// count), checks the map keys and map.file's format and chooses the platform as mapMain
/// does, then prints the settings faraday map reads, the system, the trajectory and the
/// map's lattice to `log`. Writes nothing; throws Error as mapMain would before its first frame.
void mapDryRun(const Config& config, std::ostream& log);

}  // namespace faraday
