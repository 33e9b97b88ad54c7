#pragma once
// A minimal reader of CHARMM/NAMD DCD trajectories (the format Faraday, VMD and MDAnalysis
// write): little- or big-endian 4-byte record markers, optional unit cell per frame,
// no fixed atoms. Used by `faraday map` to average a potential map over a trajectory.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/Box.h"
#include "engine/Vec3.h"

namespace faraday {

class DcdFrames {
 public:
  /// Opens and reads the header; throws Error naming the file when it is not a DCD.
  explicit DcdFrames(const std::filesystem::path& file);
  int atoms() const { return atoms_; }
  /// Frames in the file (from its size; the header count may be stale).
  long long frames() const { return frames_; }
  bool hasUnitCell() const { return hasCell_; }
  /// Reads the next frame: positions in nm; box (nm) when the file has a unit cell.
  /// Returns false at the end of the file.
  bool next(std::vector<Vec3>& positions, Box* box);

 private:
  std::int32_t readInt();
  void readRecord(std::vector<char>& buffer);
  std::filesystem::path file_;
  std::ifstream in_;
  bool swap_ = false;
  bool hasCell_ = false;
  int atoms_ = 0;
  long long frames_ = 0, read_ = 0;
  std::vector<char> buf_;
  std::vector<float> coord_[3];
};

}  // namespace faraday
