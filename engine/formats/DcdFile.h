#pragma once
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/Box.h"
#include "engine/formats/Trajectory.h"
#include "core/Vec3.h"

namespace faraday {

/// DCD trajectory in the CHARMM/NAMD flavour that VMD, MDAnalysis and MDTraj read:
/// little-endian, Fortran record markers, an 84-byte header record (CORD, NSET, ISTART,
/// NSAVC, the time step in AKMA units, the unit-cell flag, CHARMM version 24), a title
/// record, the atom count, then per frame a 6-double unit cell record
/// [A, cos gamma, B, cos beta, cos alpha, C] (Angstrom; the angle cosines as CHARMM, NAMD > 2.5,
/// OpenMM and VMD write them) and X, Y, Z float32 records (Angstrom).
class DcdWriter : public TrajectoryWriter {
 public:
  /// Creates `file` for `atoms` atoms; the first frame is step `firstStep`, then one frame
  /// every `interval` steps of `timestep` ps.
  DcdWriter(const std::filesystem::path& file, std::size_t atoms, long long firstStep, long long interval,
            double timestep);
  /// Continues an existing `file` (restart): keeps the frames up to `lastStep` and appends
  /// after them (a frame cut off by a kill goes). Throws Error naming the file when it does
  /// not match (atoms, interval) or ends before `lastStep` (framesToKeep).
  static DcdWriter append(const std::filesystem::path& file, std::size_t atoms, long long interval, long long lastStep);
  /// The frames of `file` that append() keeps, without changing the file: those up to step
  /// `lastStep`. Throws Error naming the file when it does not match (atoms, interval) or
  /// lacks a frame at or before `lastStep` that a run writing it would have written (a gap).
  static long long framesToKeep(const std::filesystem::path& file, std::size_t atoms, long long interval,
                                long long lastStep);
  DcdWriter(DcdWriter&& other) noexcept;
  DcdWriter& operator=(DcdWriter&&) = delete;
  DcdWriter(const DcdWriter&) = delete;
  ~DcdWriter() override;

  /// Appends one frame (positions nm) and updates NSET in the header; flushed at once so
  /// that the file is readable whenever the run stops.
  void writeFrame(const std::vector<Vec3>& positions, const Box& box);
  /// The state's positions and box (the step and time follow from the header).
  void write(const State& state) override { writeFrame(state.positions, state.box); }
  long long frames() const { return frames_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  DcdWriter() = default;
  void writeHeader(long long firstStep, double timestep);
  void updateHeaderCounts();

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::size_t atoms_ = 0;
  long long firstStep_ = 0, interval_ = 1, frames_ = 0;
  std::vector<float> buffer_;
};

/// Reads a DCD written by DcdWriter (or CHARMM/NAMD/OpenMM): frame by frame. A frame's step
/// is ISTART + index * NSAVC, its time the step times the header's time step. The unit cell's
/// angle entries are read as cosines when all three lie in [-1, 1], else as degrees (NAMD
/// 2.5), as VMD and MDAnalysis read them; the box is brought to the reduced form.
class DcdReader : public TrajectoryReader {
 public:
  /// Opens `file`; when `expectedAtoms` >= 0 the atom count must match (error names the file).
  /// A last frame cut short (the file ends inside it) is an Error naming the file and the
  /// frame, unless `allowCutLastFrame` (a restart continuing a killed run's file drops it).
  explicit DcdReader(const std::filesystem::path& file, long long expectedAtoms = -1, bool allowCutLastFrame = false);
  ~DcdReader() override;
  DcdReader(const DcdReader&) = delete;
  DcdReader& operator=(const DcdReader&) = delete;

  std::size_t atoms() const override { return atoms_; }
  /// Complete frames in the file.
  long long frames() const override { return frames_; }
  long long firstStep() const { return firstStep_; }
  long long interval() const { return interval_; }
  double timestep() const { return timestep_; }  ///< ps
  void readFrame(long long index, TrajectoryFrame& frame) override;

 private:
  void readHeader(long long expectedAtoms, bool allowCutLastFrame);
  long long frameBytes() const;

  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::size_t atoms_ = 0;
  long long frames_ = 0, firstStep_ = 0, interval_ = 1;
  double timestep_ = 0;
  bool hasCell_ = false;
  long long headerBytes_ = 0;
  std::vector<float> buffer_;
};

}  // namespace faraday
