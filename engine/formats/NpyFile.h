#pragma once
#include <cstddef>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/Vec3.h"

namespace faraday {

class AtomicFileWriter;

/// Writes `frames` (each N vectors) as a NumPy .npy file (format 1.0, little-endian float64,
/// C order) of shape (frames, N, 3), or (N, 3) when `squeeze` and there is one frame:
/// numpy.load reads it as is. Written atomically (FILE.tmp, then rename).
void writeNpy(const std::filesystem::path& file, const std::vector<std::vector<Vec3>>& frames, bool squeeze);

/// Writes a (frames, N, 3) float64 .npy file one frame at a time, into FILE.tmp (an
/// AtomicFileWriter) that commit() renames over FILE. After each frame the header is rewritten
/// with the frames written so far, padded to the length the header of `maxFrames` frames
/// takes: FILE.tmp is a complete .npy file after every frame, and memory does not grow with
/// the frames. Destroyed without commit(), it removes FILE.tmp. A FILE that is a device or a
/// FIFO (isSpecialFile) is written in place, its header announcing all `maxFrames` at once.
class NpyFramesWriter {
 public:
  /// Creates FILE.tmp; throws Error naming FILE.
  NpyFramesWriter(const std::filesystem::path& file, std::size_t atoms, long long maxFrames);
  ~NpyFramesWriter();
  /// Appends one frame of `atoms` vectors (at most maxFrames in all); throws Error naming FILE.
  void write(const std::vector<Vec3>& frame);
  /// Renames FILE.tmp over FILE (AtomicFileWriter::commit).
  void commit();
  long long frames() const { return frames_; }

 private:
  std::unique_ptr<AtomicFileWriter> file_;
  std::size_t atoms_;
  long long maxFrames_, frames_ = 0;
  std::size_t headerBytes_;
};

}  // namespace faraday
