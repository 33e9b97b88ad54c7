#pragma once
// Trajectory files by extension: DCD (DcdFile.h) or XTC (XtcFile.h).
#include <filesystem>
#include <memory>

#include "engine/formats/Trajectory.h"

namespace faraday {

/// Opens `file` by its extension; when `expectedAtoms` >= 0 the atom count must match (the
/// error names the file and both counts).
std::unique_ptr<TrajectoryReader> openTrajectory(const std::filesystem::path& file, long long expectedAtoms);

/// A writer of `atoms` atoms with a frame every `interval` steps of `timestep` ps. A restart
/// (`restartStep` >= 0) appends to an existing file, which must have the same interval; a DCD
/// started anew then begins at the first multiple of `interval` after restartStep. XTC keeps
/// round(x * xtcPrecision).
/// Checks, without changing it, that an existing trajectory `file` can be continued by a
/// restart at `restartStep` (DcdWriter/XtcWriter::framesToKeep): same atoms and interval, and
/// no frame missing up to the restart step. Throws Error naming the file.
void checkTrajectoryContinues(const std::filesystem::path& file, std::size_t atoms, long long interval,
                              long long restartStep);

std::unique_ptr<TrajectoryWriter> openTrajectoryWriter(const std::filesystem::path& file, std::size_t atoms,
                                                       long long interval, double timestep, long long restartStep,
                                                       double xtcPrecision);

}  // namespace faraday
