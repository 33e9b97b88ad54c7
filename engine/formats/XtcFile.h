#pragma once
// GROMACS XTC trajectories (nm, ps), as gmx, MDAnalysis and MDTraj read and write them.
// Each frame is XDR (big-endian): magic 1995, the atom count, the step (int), the time
// (float, ps), the box as three row vectors (9 floats, nm), then the coordinate block of
// engine/XtcCodec.h. Frames differ in size: a reader scans the file once for their offsets.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/Box.h"
#include "engine/formats/Trajectory.h"
#include "core/Vec3.h"

namespace faraday {

struct CloseFile {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FileHandle = std::unique_ptr<std::FILE, CloseFile>;

/// Writes XTC frames with coordinates stored as round(x * precision) (precision in 1/nm:
/// 1000 keeps 0.001 nm, as GROMACS' default).
class XtcWriter : public TrajectoryWriter {
 public:
  /// Creates `file` for `atoms` atoms.
  XtcWriter(const std::filesystem::path& file, std::size_t atoms, double precision);
  /// Continues an existing `file` (restart): keeps its frames up to step `lastStep`, drops the
  /// rest and a partly written last frame, and appends after them. Throws Error naming the
  /// file when it is no XTC of `atoms` atoms, its frames are not `interval` steps apart or
  /// they end before `lastStep` (framesToKeep).
  static XtcWriter append(const std::filesystem::path& file, std::size_t atoms, long long interval,
                          long long lastStep, double precision);
  /// The frames of `file` that append() keeps, without changing the file: those up to step
  /// `lastStep`. Throws Error naming the file as append() does, and when the frames end more
  /// than `interval` before `lastStep` (the frames between would be missing).
  static long long framesToKeep(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                long long lastStep);

  /// Appends one frame: positions nm, the box (its three vectors as rows), the step and time (ps); flushed at
  /// once. Throws Error naming the file and step for a coordinate it cannot store (not
  /// finite, or beyond 2^31 / precision nm) or a step beyond 32 bits.
  void writeFrame(const std::vector<Vec3>& positions, const Box& box, long long step, double time);
  void write(const State& state) override { writeFrame(state.positions, state.box, state.step, state.time); }
  long long frames() const { return frames_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  XtcWriter() = default;
  std::filesystem::path path_;
  FileHandle file_;
  std::size_t atoms_ = 0;
  float precision_ = 1000;
  long long frames_ = 0;
  std::string buffer_;
};

/// Reads XTC files of any writer. Opening scans the frame headers once (offsets and steps);
/// a frame's coordinates are decoded when it is read.
class XtcReader : public TrajectoryReader {
 public:
  /// Opens `file`; when `expectedAtoms` >= 0 the atom count must match. Throws Error naming
  /// the file and the frame for a frame that is not XTC or ends with the file.
  explicit XtcReader(const std::filesystem::path& file, long long expectedAtoms = -1);

  std::size_t atoms() const override { return atoms_; }
  long long frames() const override { return (long long)steps_.size(); }
  /// Step of frame `index`, from the scan.
  long long step(long long index) const { return steps_.at(std::size_t(index)); }
  void readFrame(long long index, TrajectoryFrame& frame) override;

 private:
  std::filesystem::path path_;
  FileHandle file_;
  std::size_t atoms_ = 0;
  std::vector<long long> offsets_;  ///< frame f is bytes [offsets_[f], offsets_[f + 1])
  std::vector<long long> steps_;
  std::vector<unsigned char> buffer_;
};

}  // namespace faraday
