#pragma once
// Time-averaged potential maps: the accumulator shared by the run loop's reporter and
// `faraday map` (averaging a DCD trajectory).
#include <filesystem>
#include <memory>
#include <vector>

#include "engine/config/Config.h"
#include "engine/output/Reporter.h"
#include "core/System.h"
#include "core/Timers.h"
#include "kernels/dcs/Dcs.h"
#include "kernels/dcs/Lattice.h"

namespace faraday {

class CudaMapAccumulator;
class CpuPmeMap;
class CudaPmeMap;
struct EwaldSetup;

/// The atoms map.extent = atoms surrounds: map.extent_atoms selected on `system` (groups from
/// map.index), or, when it is empty, every atom but water and ions (every atom when those are
/// all). Throws Error naming the key for a bad or empty selection.
std::vector<int> mapExtentAtoms(const Config::MapSection& map, const System& system);
/// The lattice of map.extent = atoms around `atoms` (mapExtentAtoms) of `positions`.
Lattice mapAtomsLattice(const Config::MapSection& map, const std::vector<int>& atoms, const std::vector<Vec3>& positions);

/// Sums the map of every frame added (double, on the host or on the device) and gives the
/// average. The lattice is built from the box (map.extent = box) at construction, or from
/// the first frame's map.extent_atoms (map.extent = atoms, padded by map.padding).
class PotentialMapAverager {
 public:
  /// Validates the [map] keys (throws Error naming the key). charges in e per particle.
  /// `ewald` (map.method = pme or pmepot; may be null otherwise): mapEwaldSetup.
  PotentialMapAverager(const Config::MapSection& map, const System& system, bool useCuda, Timers* timers,
                       const EwaldSetup* ewald = nullptr);
  ~PotentialMapAverager();
  /// Adds one frame: positions nm, box nm (periodic maps use it for the minimum image).
  void addFrame(const std::vector<Vec3>& positions, const Box& box);
  /// Whether this map reads device frames: a GPU map by pme, pmepot or direct summation
  /// (the cutoff kernel bins its atoms on the host).
  bool readsDeviceFrames() const;
  /// Whether addFrame(DeviceFrame) can take a frame now: readsDeviceFrames() and the
  /// lattice is known (map.extent = box, or after the first frame).
  bool takesDeviceFrames() const;
  /// Adds the device-resident state `frame` (a GPU backend's own arrays) in `box` (nm)
  /// without a copy to the host. Requires takesDeviceFrames().
  void addFrame(const DeviceFrame& frame, const Box& box);
  long long frames() const { return frames_; }
  /// Mean GPU time of a frame's map-stream work, ms, for GPU pme and pmepot maps (0 otherwise).
  double deviceMsPerFrame() const;
  const Lattice& lattice() const { return lattice_; }
  MapMethod method() const { return options_.method; }
  bool usesCuda() const { return useCuda_; }
  /// Fixes the lattice as `firstFrame` would (map.extent = atoms) before any frame is added,
  /// so that averagers fed different frames share one lattice.
  void startWith(const std::vector<Vec3>& firstFrame);
  /// The sum over frames, kJ/(mol e), x fastest (empty before the first frame).
  std::vector<double> sum() const;
  /// The sum over the frames added since the last takeSum (or the start), kJ/(mol e), x
  /// fastest (zeros when none), and that sum restarted at zero; frames() still counts them all.
  std::vector<double> takeSum();
  /// The mean over frames, kJ/(mol e), x fastest (empty when no frame was added).
  std::vector<double> average() const;
  /// Writes the average in map.units to `file` (format from the extension), atomically.
  void write(const std::filesystem::path& file) const;

 private:
  void start(const std::vector<Vec3>& positions);
  void start();
  Config::MapSection map_;
  std::vector<int> extentAtoms_;  // map.extent = atoms: the atoms the lattice surrounds
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

/// Writes `average` (kJ/(mol e) on `lattice`, the mean of `frames` frames) to `file` in
/// map.units, atomically (format from the extension).
void writeMapAverage(const Config::MapSection& map, const Lattice& lattice, std::vector<double> average,
                     long long frames, const std::filesystem::path& file);

/// Reporter that samples a frame every map.interval steps and writes the average over the
/// sampled frames to map.file (relative to output.directory) in finish(). With a GPU
/// backend and a pme, pmepot or direct map it reads the backend's device positions in place
/// (no copy of the frame to the host); otherwise it takes the state copied back.
class MapReporter : public Reporter {
 public:
  MapReporter(const Config& config, const System& system, bool useCuda, Timers* timers);
  const char* name() const override { return "potential map"; }
  long long interval() const override { return interval_; }
  bool needsState() const override { return !(device_ && averager_.takesDeviceFrames()); }
  bool needsEnergies() const override { return false; }
  void start(Backend& backend) override;
  void report(const State& state, const Energies& energies, double kineticEnergy) override;
  void finish(const State& state) override;
  /// Whether frames come from the backend's device arrays.
  bool readsDevice() const { return device_ != nullptr; }
  const PotentialMapAverager& averager() const { return averager_; }
  const std::filesystem::path& file() const { return file_; }

 private:
  PotentialMapAverager averager_;
  long long interval_;
  std::filesystem::path file_;
  long long lastStep_ = -1;
  Backend* device_ = nullptr;  ///< the backend whose device arrays the frames are read from
};

std::unique_ptr<Reporter> makeMapReporter(const Config& config, const System& system, bool useCuda, Timers* timers);

/// The Ewald parameters a pme map needs (chooseEwaldSetup for the system's box); for
/// pmepot the grid and order the electrostatics keys give (whatever electrostatics.method)
/// with beta = map.ewald_factor; an empty setup (method none) for the other methods.
EwaldSetup mapEwaldSetup(const Config& config, const System& system);

/// The estimated PME force errors a command runs with (checkPmeAccuracy): the run's PME
/// (with `run`, in cutoff mode) and a pme or pmepot map's (with `map`; a pme map beside a PME
/// run has the run's grid and beta, checked once). Throws Error for one beyond the bound;
/// returns the warnings of those accepted (electrostatics.accept_force_error).
std::vector<std::string> checkElectrostaticsAccuracy(const Config& config, const System& system, bool run, bool map);

}  // namespace faraday
