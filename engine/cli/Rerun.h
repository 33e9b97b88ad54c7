#pragma once
// `faraday rerun CONFIG`: energies (and forces) of every frame of a trajectory.
#include <ostream>

#include "engine/config/Config.h"

namespace faraday {

/// Evaluates the configured system at every frame of rerun.trajectory (DCD or XTC; empty: a single
/// point at system.coordinates) on the configured platform, and writes rerun.energy_file
/// (CSV: frame, step, time, potential energy and each term, kJ/mole) and, when
/// output.forces_file is set, the forces of every frame as a (frames, N, 3) .npy file
/// (kJ/mol/nm), both in output.directory. The output folder is locked (OutputLock) and the
/// outputs created as FILE.tmp before the first frame; each frame is written as it is
/// evaluated (memory does not grow with the frames), and the files are renamed into place at
/// the end, existing ones kept as backups (#FILE.1#). A frame that cannot be read or evaluated
/// leaves nothing written. SIGINT, SIGTERM or SIGHUP stop after the current frame with the
/// files complete for the frames done; the return value is then 128 + the signal. Prints one
/// summary line to `log`; returns 0 when every frame was done.
int rerunMain(const Config& config, std::ostream& log);

}  // namespace faraday
