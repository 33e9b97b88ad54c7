#include "engine/maps/MapCommand.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <ostream>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"
#include "engine/config/ConfigHelp.h"
#include "engine/config/DeviceList.h"
#include "engine/config/KernelParams.h"
#include "engine/maps/MapFrames.h"
#include "engine/maps/MapReporter.h"
#include "engine/config/ConfigChecks.h"
#include "engine/formats/MapWriters.h"
#include "engine/output/OutputFolder.h"
#include "engine/output/Progress.h"
#include "engine/output/StopSignals.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "kernels/common/Device.h"
#include "kernels/multigpu/GpuGroup.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {
namespace {

/// map.trajectory, opened for `system` (an atom-count mismatch throws Error naming the file);
/// an Error when it is not set or has no frames.
std::unique_ptr<TrajectoryReader> openMapTrajectory(const Config& config, const System& system) {
  if (config.map.trajectory.empty()) throw keyError("map.trajectory", "faraday map needs a trajectory (.dcd or .xtc) to average");
  auto trajectory = openTrajectory(config.map.trajectory, (long long)system.size());
  if (trajectory->frames() == 0) throw fileError(config.map.trajectory, 0, "trajectory has no frames");
  return trajectory;
}

/// The GPUs of run.devices for a CUDA map (empty: the first).
std::vector<int> mapDevices(const Config& config, bool useCuda) {
  if (!useCuda) return {};
  if (config.run.devices.empty()) return {0};
  return parseDevices("run.devices", config.run.devices, cudaDeviceCount());
}

/// "cpu", "cuda" or "cuda x N GPUs".
std::string platformText(bool useCuda, const std::vector<int>& devices) {
  return !useCuda ? "cpu" : devices.size() > 1 ? "cuda x " + std::to_string(devices.size()) + " GPUs" : "cuda";
}

/// run.platform: cuda (an Error without a usable device), cpu, or auto (CUDA when a device is usable).
bool mapUsesCuda(const Config& config) {
  if (config.run.platform == Platform::Cuda) {
    if (cudaDeviceCount() == 0) throw keyError("run.platform", "cuda: " + cudaDeviceDescription());
    return true;
  }
  return config.run.platform == Platform::Auto && cudaDeviceCount() > 0;
}

}  // namespace

int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers) {
  const auto t0 = std::chrono::steady_clock::now();
  Timers own;
  if (!timers) timers = &own;
  // Before any frame or file: the output's format and the map's accuracy.
  const std::filesystem::path out = mapOutputPath(config);
  checkMapFormat(out);
  if (config.map.extent == MapExtent::Atoms) mapExtentAtoms(config.map, system);  // the selection's errors
  for (const std::string& w : checkElectrostaticsAccuracy(config, system, false, true))
    std::cerr << "faraday: warning: " << w << "\n";
  const auto trajectory = openMapTrajectory(config, system);
  try {
    checkWritable(out);  // creates the output folder; fails now, not after the frames
  } catch (const Error& e) {
    throw keyError("map.file", e.what());
  }
  const OutputLock lock(out.parent_path(), "faraday map", "map.file");
  if (!lock.note().empty()) std::cerr << "faraday: note: " << lock.note() << "\n";
  // A signal stops the frames; the map of those done is written as a complete file.
  const StopSignals signals;
  const auto keepEarlierMap = [&out] {
    for (const std::string& line : backUpFiles({out})) std::cerr << "faraday: note: " << line << "\n";
  };
  MapAverage result;
  const std::vector<int> devices = mapDevices(config, useCuda);
  if (useCuda) {
    // One worker thread per GPU (one GPU too: its frames are read while it maps).
    result = averageMapFrames(config, system, true, devices, trajectory->frames(), timers);
    ScopedTimer t(timers, "output");
    if (result.frames > 0) {
      keepEarlierMap();
      writeMapAverage(config.map, result.lattice, result.average, result.frames, out);
    }
  } else {
    const EwaldSetup ewald = mapEwaldSetup(config, system);
    PotentialMapAverager averager(config.map, system, false, timers, &ewald);
    Progress progress = Progress::ofFrames(config.run.progressInterval, trajectory->frames());
    TrajectoryFrame frame;
    for (long long f = 0; f < trajectory->frames() && !StopSignals::received(); ++f) {
      {
        ScopedTimer t(timers, "read");
        readMapFrame(*trajectory, f, system, frame);
      }
      averager.addFrame(frame.positions, frame.hasBox ? frame.box : system.box);
      progress.update(f + 1);
    }
    progress.finish();
    if (averager.frames() > 0) {
      ScopedTimer t(timers, "output");
      keepEarlierMap();
      averager.write(out);
    }
    result.lattice = averager.lattice();
    result.frames = averager.frames();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << timers->table("Time per phase", s);
  const Lattice& l = result.lattice;
  const std::string platform = platformText(useCuda, devices);
  std::printf("potential map: %lld frames x %zu atoms on %d x %d x %d points (%s, %s) -> %s in %.2f s (%.3g frames/s)\n",
              result.frames, system.size(), l.nx, l.ny, l.nz, choiceText(config.map.method).c_str(), platform.c_str(),
              out.string().c_str(), s, s > 0 ? double(result.frames) / s : 0.0);
  std::fflush(stdout);
  const int signal = StopSignals::received();
  if (signal == 0 || result.frames == trajectory->frames()) return 0;
  if (result.frames == 0)
    std::cerr << "faraday: interrupted before the first frame was mapped: nothing written\n";
  else
    std::cerr << "faraday: interrupted after " << result.frames << " of " << trajectory->frames() << " frames: "
              << out.string() << " is the average of the " << result.frames << " frame(s) mapped\n";
  return 128 + signal;
}

namespace {

/// The warnings of the setup, on stderr.
void printSetupWarnings(const Setup& setup) {
  for (const std::string& warning : setup.warnings) std::cerr << "faraday: warning: " << warning << "\n";
}

}  // namespace

int mapMain(const Config& config) {
  const Setup setup = buildSetup(config);
  printSetupWarnings(setup);
  return mapMain(config, setup.system, mapUsesCuda(config));
}

void mapDryRun(const Config& config, std::ostream& log) {
  const Setup setup = buildSetup(config);
  printSetupWarnings(setup);
  const bool useCuda = mapUsesCuda(config);
  const auto trajectory = openMapTrajectory(config, setup.system);
  const std::vector<int> devices = mapDevices(config, useCuda);
  // The map keys and map.file's format, checked as a run's map checks them (nothing is
  // allocated before the first frame).
  const MapReporter map(config, setup.system, useCuda, nullptr);
  for (const std::string& w : checkElectrostaticsAccuracy(config, setup.system, false, true))
    std::cerr << "faraday: warning: " << w << "\n";
  Lattice lattice = map.averager().lattice();
  if (config.map.extent == MapExtent::Atoms) {
    TrajectoryFrame first;
    readMapFrame(*trajectory, 0, setup.system, first);
    lattice = mapAtomsLattice(config.map, mapExtentAtoms(config.map, setup.system), first.positions);
  }
  log << "Effective configuration" << (config.configFile.empty() ? "" : " (" + config.configFile.string() + ")")
      << ", the keys faraday map reads:\n";
  for (const auto& [key, value] : settingsReadBy(config, Command::Map)) log << "  " << key << " = " << value << "\n";
  log << "System (" << config.system.coordinates.string() << "):\n" << describeSystem(setup.system);
  log << "Trajectory: " << config.map.trajectory << ", " << trajectory->frames() << " frames of "
      << setup.system.size() << " atoms\n";
  log << "Map: " << choiceText(config.map.method) << " on " << lattice.nx << " x " << lattice.ny << " x " << lattice.nz
      << " points (map.extent = " << choiceText(config.map.extent) << ", " << platformText(useCuda, devices) << ") -> "
      << map.file().string() << " in " << choiceText(config.map.units) << "\n";
  log << "Dry run: configuration and input are valid; nothing was written.\n";
}

}  // namespace faraday
