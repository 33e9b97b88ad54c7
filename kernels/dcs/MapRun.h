#pragma once
// `faraday map map.cfg`: the potential map averaged over every frame of map.trajectory.
#include "engine/Config.h"
#include "engine/System.h"
#include "engine/Timers.h"

namespace faraday {

/// Averages the map of `system` (charges from its atom types) over all frames of
/// config.map.trajectory (DCD, Angstrom) and writes config.map.file. useCuda picks the GPU
/// kernels. A trajectory whose atom count differs from the system's throws Error naming the
/// file and both counts. Prints one summary line; returns 0.
int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers = nullptr);

}  // namespace faraday
