#pragma once
// From the validated Config to the typed parameters the kernels take: the engine is the only
// layer that reads the configuration.
#include "engine/Box.h"
#include "engine/Config.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

/// The run's Ewald setup: [electrostatics] with nonbonded.cutoff as the real-space cutoff,
/// for `box`; throws Error naming the key for invalid values.
EwaldSetup chooseEwaldSetup(const Config& config, const Box& box);

/// The short-range options: nonbonded.cutoff and lj_shift, the Ewald splitting parameter of
/// `ewald` (0 for method none) and `threads` OpenMP threads.
NonbondedOptions nonbondedOptions(const Config& config, const EwaldSetup& ewald, int threads);

}  // namespace faraday
