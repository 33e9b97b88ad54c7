#pragma once
// `faraday rerun CONFIG`: energies (and forces) of every frame of a trajectory.
#include <ostream>

#include "engine/config/Config.h"

namespace faraday {

/// Evaluates the configured system at every frame of rerun.trajectory (DCD or XTC; empty: a single
/// point at system.coordinates) on the configured platform, and writes rerun.energy_file
/// (CSV: frame, step, time, potential energy and each term, kJ/mole) and, when
/// output.forces_file is set, the forces of every frame as a (frames, N, 3) .npy file
/// (kJ/mol/nm), both in output.directory. Nothing is written unless every frame was read and
/// evaluated. Prints one summary line to `log`; returns 0.
int rerunMain(const Config& config, std::ostream& log);

}  // namespace faraday
