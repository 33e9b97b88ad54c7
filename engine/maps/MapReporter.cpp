#include "engine/maps/MapReporter.h"

#include <cstdio>
#include <numeric>

#include "core/Error.h"
#include "engine/config/ConfigChecks.h"
#include "engine/config/KernelParams.h"
#include "engine/formats/MapWriters.h"
#include "engine/formats/TextParse.h"
#include "engine/select/Selection.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/PmeMap.h"

namespace faraday {

std::vector<int> mapExtentAtoms(const Config::MapSection& map, const System& system) {
  const SelectionContext context = selectionContext(system, map.index);
  if (!map.extentAtoms.empty()) return select(map.extentAtoms, context, "map.extent_atoms");
  try {
    return select("not (water or ions)", context, "map.extent_atoms");
  } catch (const Error&) {
    // (the one way this fixed, valid text fails: it selects nothing, in water and ions alone)
  }
  std::vector<int> all(system.size());
  std::iota(all.begin(), all.end(), 0);
  return all;
}

Lattice mapAtomsLattice(const Config::MapSection& map, const std::vector<int>& atoms, const std::vector<Vec3>& positions) {
  std::vector<Vec3> around;
  around.reserve(atoms.size());
  for (int i : atoms) around.push_back(positions[std::size_t(i)]);
  return mapLattice(map, around);
}

PotentialMapAverager::PotentialMapAverager(const Config::MapSection& map, const System& system, bool useCuda,
                                           Timers* timers, const EwaldSetup* ewald)
    : map_(map), charges_(system.charge), useCuda_(useCuda), timers_(timers) {
  mapUnitFactor(map.units, map.temperature);  // validates map.temperature now, not at the end
  if (map.interval <= 0) throw keyError("map.interval", "must be a positive number of steps");
  options_ = mapOptions(map, system.box, ewald);
  if (map.extent == MapExtent::Box) {
    lattice_ = mapLattice(map, system.box);
    started_ = false;  // accumulators are created with the first frame
  } else {
    extentAtoms_ = mapExtentAtoms(map, system);
  }
}

PotentialMapAverager::~PotentialMapAverager() = default;

void PotentialMapAverager::start(const std::vector<Vec3>& positions) {
  if (map_.extent == MapExtent::Atoms) lattice_ = mapAtomsLattice(map_, extentAtoms_, positions);
  start();
}

void PotentialMapAverager::start() {
  if (isPmeMethod(options_.method)) {
    if (useCuda_)
      gpuPme_ = std::make_unique<CudaPmeMap>(lattice_, options_);
    else
      cpuPme_ = std::make_unique<CpuPmeMap>(options_);
  } else if (useCuda_) {
    gpu_ = std::make_unique<CudaMapAccumulator>(lattice_, options_);
  }
  if (!gpu_ && !gpuPme_) sum_.assign(lattice_.size(), 0.0);
  started_ = true;
}

void PotentialMapAverager::addFrame(const std::vector<Vec3>& positions, const Box& box) {
  if (positions.size() != charges_.size())
    throw Error("potential map: frame has " + std::to_string(positions.size()) + " atoms, the system " +
                std::to_string(charges_.size()));
  if (!started_) start(positions);
  if (gpu_) {
    gpu_->addFrame(positions, charges_, box, timers_);
  } else if (gpuPme_) {
    gpuPme_->addFrame(positions, charges_, box, timers_);
  } else if (cpuPme_) {
    cpuPme_->addFrame(lattice_, positions, charges_, box, sum_, timers_);
  } else {
    ScopedTimer timer(timers_, "map.cpu");
    MapOptions o = options_;
    if (o.periodic) o.box = box;
    cpuPotentialMap(lattice_, positions, charges_, o, sum_);
  }
  ++frames_;
}

bool PotentialMapAverager::readsDeviceFrames() const {
  return useCuda_ && (isPmeMethod(options_.method) || options_.method == MapMethod::Direct);
}

bool PotentialMapAverager::takesDeviceFrames() const {
  return readsDeviceFrames() && (started_ || map_.extent == MapExtent::Box);
}

void PotentialMapAverager::addFrame(const DeviceFrame& frame, const Box& box) {
  if (!takesDeviceFrames()) throw Error("potential map: this map cannot read device frames");
  if (std::size_t(frame.n) != charges_.size())
    throw Error("potential map: frame has " + std::to_string(frame.n) + " atoms, the system " +
                std::to_string(charges_.size()));
  if (!started_) start();
  if (gpuPme_)
    gpuPme_->addFrame(frame, box, timers_);
  else
    gpu_->addFrame(frame, box, timers_);
  ++frames_;
}

double PotentialMapAverager::deviceMsPerFrame() const { return gpuPme_ ? gpuPme_->deviceMsPerFrame() : 0.0; }

void PotentialMapAverager::startWith(const std::vector<Vec3>& firstFrame) {
  if (!started_) start(firstFrame);
}

std::vector<double> PotentialMapAverager::sum() const {
  if (frames_ == 0) return {};
  return gpu_ ? gpu_->sum() : gpuPme_ ? gpuPme_->sum() : sum_;
}

std::vector<double> PotentialMapAverager::takeSum() {
  if (!started_) return std::vector<double>(lattice_.size(), 0.0);
  if (gpu_) return gpu_->takeSum();
  if (gpuPme_) return gpuPme_->takeSum();
  std::vector<double> s(sum_.size(), 0.0);
  s.swap(sum_);
  return s;
}

std::vector<double> PotentialMapAverager::average() const {
  std::vector<double> avg = sum();
  for (double& v : avg) v /= double(frames_);
  return avg;
}

void PotentialMapAverager::write(const std::filesystem::path& file) const {
  if (frames_ == 0) throw Error("potential map: no frame was sampled, nothing to write to " + file.string());
  writeMapAverage(map_, lattice_, average(), frames_, file);
}

void writeMapAverage(const Config::MapSection& map, const Lattice& lattice, std::vector<double> v, long long frames,
                     const std::filesystem::path& file) {
  const double factor = mapUnitFactor(map.units, map.temperature);
  for (double& x : v) x *= factor;
  char comment[256];
  std::snprintf(comment, sizeof comment, "Faraday electrostatic potential (%s, %s), average of %lld frames, units %s%s",
                choiceText(map.method).c_str(), map.periodic ? "periodic" : "non-periodic", frames,
                choiceText(map.units).c_str(), map.units == MapUnits::KtPerE ? (" at " + std::to_string(map.temperature) + " K").c_str() : "");
  writeMap(file, lattice, v, comment);
}

EwaldSetup mapEwaldSetup(const Config& config, const System& system) {
  if (config.map.method == MapMethod::Pme) {
    // The map's PME grid, also beside a plain Ewald run (whose setup needs no grid).
    Config::ElectrostaticsSection grid = config.electrostatics;
    if (grid.method == ElectrostaticsMethod::Ewald) grid.method = ElectrostaticsMethod::Pme;
    EwaldSetup s = chooseEwaldSetup(grid, config.nonbonded.cutoff, system.box);
    s.method = config.electrostatics.method;
    return s;
  }
  if (config.map.method != MapMethod::PmePot) return {};
  Config::ElectrostaticsSection grid = config.electrostatics;
  grid.method = ElectrostaticsMethod::Pme;  // the grid those keys give, also for a run without PME
  EwaldSetup s = chooseEwaldSetup(grid, config.nonbonded.cutoff, system.box);
  s.beta = s.pme.beta = config.map.ewaldFactor;
  return s;
}

std::vector<std::string> checkElectrostaticsAccuracy(const Config& config, const System& system, bool run, bool map) {
  std::vector<std::string> warnings;
  const auto check = [&](const EwaldSetup& setup, const std::string& what, const std::string& betaFrom) {
    if (std::string w = checkPmeAccuracy(config, setup, system.box, what, betaFrom); !w.empty()) warnings.push_back(w);
  };
  const std::string rtolBeta = "from nonbonded.cutoff = " + formatNumber(config.nonbonded.cutoff) +
                               " and electrostatics.ewald_rtol = " + formatNumber(config.electrostatics.ewaldRtol);
  const bool runPme = run && !config.nonbonded.allPairs() && config.electrostatics.method == ElectrostaticsMethod::Pme;
  if (runPme) check(chooseEwaldSetup(config, system.box), "electrostatics.method = pme", rtolBeta);
  if (map && config.map.method == MapMethod::PmePot)
    check(mapEwaldSetup(config, system), "map.method = pmepot",
          "map.ewald_factor = " + formatNumber(config.map.ewaldFactor));
  else if (map && config.map.method == MapMethod::Pme && !runPme)
    check(mapEwaldSetup(config, system), "map.method = pme", rtolBeta);
  return warnings;
}

MapReporter::MapReporter(const Config& config, const System& system, bool useCuda, Timers* timers)
    : averager_(config.map, system, useCuda, timers, std::make_unique<EwaldSetup>(mapEwaldSetup(config, system)).get()),
      interval_(config.map.interval), file_(mapOutputPath(config)) {
  checkMapFormat(file_);
}

void MapReporter::start(Backend& backend) {
  device_ = nullptr;
  // The cutoff kernel bins its atoms and sums the overflow on the host: it takes host frames.
  if (averager_.readsDeviceFrames() && backend.deviceFrame().valid()) device_ = &backend;
}

void MapReporter::report(const State& state, const Energies&, double) {
  if (state.step == lastStep_) return;  // the same step reported twice (e.g. the final step) counts once
  lastStep_ = state.step;
  if (device_ && averager_.takesDeviceFrames())
    averager_.addFrame(device_->deviceFrame(), state.box);
  else
    averager_.addFrame(state.positions, state.box);
}

void MapReporter::finish(const State&) {
  if (averager_.frames() == 0) return;
  averager_.write(file_);
  if (!device_) return;
  if (isPmeMethod(averager_.method()))
    std::fprintf(stderr, "potential map: %lld frames read on the device, %.3f ms of GPU time per frame\n",
                 averager_.frames(), averager_.deviceMsPerFrame());
  else
    std::fprintf(stderr, "potential map: %lld frames read on the device\n", averager_.frames());
}

std::unique_ptr<Reporter> makeMapReporter(const Config& config, const System& system, bool useCuda, Timers* timers) {
  return std::make_unique<MapReporter>(config, system, useCuda, timers);
}

}  // namespace faraday
