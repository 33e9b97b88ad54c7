#pragma once
// Averaging the frames of map.trajectory on one or several workers (one host thread per GPU,
// or CPU workers): the frames are cut into chunks of consecutive frames, chunk c goes to
// worker c mod W, each worker sums the maps of its chunk's frames, and the chunks' sums meet
// on the host in chunk order. The chunk length depends on the frame count alone, so the map
// has the same bits on 1, 2 or 4 GPUs (and in every run).
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "core/System.h"
#include "core/Timers.h"
#include "engine/config/Config.h"
#include "engine/formats/Trajectory.h"
#include "kernels/dcs/Lattice.h"

namespace faraday {

/// Reads frame `index` of `trajectory` with the system's virtual sites built from their atoms
/// (a trajectory may hold them anywhere; the map needs their charges where they belong).
void readMapFrame(TrajectoryReader& trajectory, long long index, const System& system, TrajectoryFrame& frame);

/// Frames per chunk for a trajectory of `frames` frames: at least 8, and at most 64 chunks
/// (enough for an even load on 4 GPUs, few downloads of the sum).
long long mapChunkFrames(long long frames);

/// The chunks of `frames` frames: chunk c holds frames [c * length, min((c + 1) * length, frames)).
struct MapChunks {
  long long frames = 0, length = 1;
  long long count() const { return (frames + length - 1) / length; }
  long long first(long long c) const { return c * length; }
  long long end(long long c) const { return std::min(frames, (c + 1) * length); }
};

/// Adds per-chunk sums in chunk order, whatever order they arrive in:
/// total = ((0 + s_0) + s_1) + ... Any thread hands a chunk over (add: no arithmetic, so a
/// GPU worker goes straight back to its frames); one thread adds them (addReady, total). A
/// chunk that never arrives (a stopped run) is skipped by total(), which adds the waiting
/// ones in order.
class ChunkReducer {
 public:
  explicit ChunkReducer(std::size_t points) : total_(points, 0.0) {}
  void add(long long chunk, std::vector<double> sum);
  /// Waits up to `wait` for the next chunk in order, then adds every chunk that is next in
  /// order (the adding thread only).
  void addReady(std::chrono::milliseconds wait);
  /// The sum of every chunk added; call after the last add (the adding thread only).
  std::vector<double> total();

 private:
  void addInOrder(const std::vector<double>& sum);
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<double> total_;
  long long next_ = 0;
  std::map<long long, std::vector<double>> waiting_;
};

/// The mean map over frames and its lattice.
struct MapAverage {
  std::vector<double> average;  ///< kJ/(mol e), x fastest
  Lattice lattice;
  long long frames = 0;
};

/// Averages the maps of frames [0, frames) of config.map.trajectory on one worker per entry
/// of `devices` (CUDA device indices; a device may appear more than once, its workers then
/// share it; with useCuda false, CPU workers and the entries only count them). A GPU worker
/// reads its frames on its own thread into page-locked memory and uploads them
/// asynchronously, so the next frame is decoded while the GPU maps this one. `done` counts
/// the frames mapped (for progress); per-phase times are added into `timers` (averaged
/// over the workers). Throws the first worker's Error.
MapAverage averageMapFrames(const Config& config, const System& system, bool useCuda, const std::vector<int>& devices,
                            long long frames, Timers* timers);

}  // namespace faraday
