#pragma once
// Trajectory files: the frame, the reader and writer interfaces (TrajectoryFile.h opens one by
// extension, DCD or XTC).
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/Box.h"
#include "core/Error.h"
#include "core/System.h"
#include "core/Vec3.h"

namespace faraday {

enum class TrajectoryFormat { Dcd, Xtc };

/// The format named by the extension of `file` (.dcd or .xtc, any case); none for others.
std::optional<TrajectoryFormat> trajectoryFormat(const std::filesystem::path& file);
/// The same, throwing Error naming the file for another extension.
TrajectoryFormat knownTrajectoryFormat(const std::filesystem::path& file);

/// One frame: positions in nm, the box when the file has one, the step and time (ps).
struct TrajectoryFrame {
  std::vector<Vec3> positions;
  Box box;
  bool hasBox = false;
  long long step = 0;
  double time = 0;
};

/// Reads the frames of a trajectory in any order.
class TrajectoryReader {
 public:
  virtual ~TrajectoryReader() = default;
  virtual std::size_t atoms() const = 0;
  /// Complete frames in the file.
  virtual long long frames() const = 0;
  /// Reads frame `index` (0-based) into `frame`. Throws Error naming the file and the frame
  /// (counted from 1) for a frame that cannot be read, a non-finite coordinate (naming the
  /// atom) or a unit cell that cannot be brought to the reduced triclinic form; the frame's
  /// box is in that form.
  virtual void readFrame(long long index, TrajectoryFrame& frame) = 0;
};

/// Appends frames; each one is flushed at once, so that the file is readable whenever the
/// run stops.
class TrajectoryWriter {
 public:
  virtual ~TrajectoryWriter() = default;
  virtual void write(const State& state) = 0;
};

/// Brings the box of `frame` (frame `index` of `frames`) to the reduced triclinic form, and
/// throws Error naming the file, the frame and the atom (all from 1) when that cannot be done
/// or a coordinate is not finite.
void checkFrameValues(const std::filesystem::path& file, long long index, long long frames, TrajectoryFrame& frame);

/// The Error for a trajectory that has `atoms` atoms where the system has `expectedAtoms`.
Error atomCountError(const std::filesystem::path& file, std::size_t atoms, long long expectedAtoms);

/// The Error for a restart whose trajectory has a frame every `fileInterval` steps where the
/// config says `interval`.
Error appendIntervalError(const std::filesystem::path& file, long long fileInterval, long long interval);

/// The Error for a restart at `restartStep` whose trajectory ends before it: `frames` frames,
/// the last at step `lastFrameStep`, so that the frames after it up to the restart are missing.
Error appendGapError(const std::filesystem::path& file, long long frames, long long lastFrameStep, long long restartStep);

}  // namespace faraday
