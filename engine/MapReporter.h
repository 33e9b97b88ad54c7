#pragma once
// Time-averaged potential maps: the accumulator shared by the run loop's reporter and
// `faraday map` (averaging a DCD trajectory).
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/Config.h"
#include "engine/Reporter.h"
#include "engine/System.h"
#include "engine/Timers.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/Lattice.h"

namespace faraday {

class CudaMapAccumulator;
class CpuPmeMap;
class CudaPmeMap;
struct EwaldSetup;

/// Sums the map of every frame added (double, on the host or on the device) and gives the
/// average. The lattice is built from the box (map.extent = box) at construction, or from
/// the first frame's atoms (map.extent = atoms, padded by map.padding).
class PotentialMapAverager {
 public:
  /// Validates the [map] keys (throws Error naming the key). charges in e per particle.
  /// `ewald` (map.method = pme or pmepot; may be null otherwise): mapEwaldSetup.
  PotentialMapAverager(const Config::MapSection& map, const System& system, bool useCuda, Timers* timers,
                       const EwaldSetup* ewald = nullptr);
  ~PotentialMapAverager();
  /// Adds one frame: positions nm, box nm (periodic maps use it for the minimum image).
  void addFrame(const std::vector<Vec3>& positions, const Box& box);
  long long frames() const { return frames_; }
  const Lattice& lattice() const { return lattice_; }
  /// The mean over frames, kJ/(mol e), x fastest (empty when no frame was added).
  std::vector<double> average() const;
  /// Writes the average in map.units to `file` (format from the extension), atomically.
  void write(const std::filesystem::path& file) const;

 private:
  void start(const std::vector<Vec3>& positions);
  Config::MapSection map_;
  MapOptions options_;
  std::vector<double> charges_;
  bool useCuda_;
  Timers* timers_;
  bool started_ = false;
  Lattice lattice_;
  std::vector<double> sum_;  // CPU path
  std::unique_ptr<CudaMapAccumulator> gpu_;
  std::unique_ptr<CpuPmeMap> cpuPme_;  // method = pme
  std::unique_ptr<CudaPmeMap> gpuPme_;
  long long frames_ = 0;
};

/// Reporter that samples a frame every map.interval steps and writes the average over the
/// sampled frames to map.file (relative to output.directory) in finish().
class MapReporter : public Reporter {
 public:
  MapReporter(const Config& config, const System& system, bool useCuda, Timers* timers);
  const char* name() const override { return "potential map"; }
  long long interval() const override { return interval_; }
  void report(const State& state, const Energies& energies, double kineticEnergy) override;
  void finish(const State& state) override;
  const PotentialMapAverager& averager() const { return averager_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  PotentialMapAverager averager_;
  long long interval_;
  std::filesystem::path file_;
  long long lastStep_ = -1;
};

std::unique_ptr<Reporter> makeMapReporter(const Config& config, const System& system, bool useCuda, Timers* timers);

/// The Ewald parameters a pme map needs (chooseEwaldSetup for the system's box); for
/// pmepot the grid and order the electrostatics keys give (whatever electrostatics.method)
/// with beta = map.ewald_factor; an empty setup (method none) for the other methods.
EwaldSetup mapEwaldSetup(const Config& config, const System& system);

/// map.file resolved against output.directory.
std::filesystem::path mapOutputPath(const Config& config);

}  // namespace faraday
