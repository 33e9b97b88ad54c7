#include "engine/maps/MapCommand.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <ostream>
#include <thread>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"
#include "engine/config/ConfigHelp.h"
#include "engine/maps/MapReporter.h"
#include "engine/run/OutputFolder.h"
#include "engine/run/Progress.h"
#include "engine/run/StopSignals.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "kernels/common/Device.h"
#include "kernels/multigpu/GpuGroup.h"
#include "kernels/pme/Electrostatics.h"
#if defined(FARADAY_HAVE_CUDA)
#include "kernels/common/DeviceBuffer.h"
#endif
#include "engine/formats/TrajectoryFile.h"

namespace faraday {
namespace {

/// What averaging the frames gave: the mean and its lattice.
struct MapResult {
  std::vector<double> average;
  Lattice lattice;
  long long frames = 0;
};

/// The frames split across the GPUs of `devices`, frame f to rank f mod G, one host thread
/// per GPU, each with its own reader and map; the sums meet on the GPUs through NCCL
/// (GpuGroup::sumInRankOrder: the same result in every run on the same number of GPUs).
MapResult averageAcrossGpus(const Config& config, const System& system, const std::vector<int>& devices,
                            Timers* timers, long long frames) {
#if defined(FARADAY_HAVE_CUDA)
  const int ranks = int(devices.size());
  GpuGroup group(devices);
  const EwaldSetup ewald = mapEwaldSetup(config, system);
  std::vector<Vec3> first;
  {
    TrajectoryFrame frame;
    openTrajectory(config.map.trajectory, (long long)system.size())->readFrame(0, frame);
    first = frame.positions;
  }
  const std::size_t slots = devices.size();
  std::vector<std::vector<double>> sums(slots);
  std::vector<long long> counts(slots, 0);
  std::vector<Timers> rankTimers(slots);
  std::vector<std::exception_ptr> errors(slots);
  std::vector<Lattice> lattices(slots);
  std::atomic<long long> done{0};
  std::atomic<int> ended{0};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        useCudaDevice(devices[std::size_t(r)]);
        Timers* t = &rankTimers[std::size_t(r)];
        const auto trajectory = openTrajectory(config.map.trajectory, (long long)system.size());
        PotentialMapAverager averager(config.map, system, true, t, &ewald);
        averager.startWith(first);
        TrajectoryFrame frame;
        for (long long f = r; f < frames && !StopSignals::received(); f += ranks) {
          {
            ScopedTimer read(t, "read");
            trajectory->readFrame(f, frame);
          }
          averager.addFrame(frame.positions, frame.hasBox ? frame.box : system.box);
          ++done;
        }
        ScopedTimer out(t, "map.sum");
        sums[std::size_t(r)] = averager.sum();
        counts[std::size_t(r)] = averager.frames();
        lattices[std::size_t(r)] = averager.lattice();
      } catch (...) {
        errors[std::size_t(r)] = std::current_exception();
      }
      ++ended;
    });
  Progress progress = Progress::ofFrames(config.run.progressInterval, frames);
  while (ended.load() < ranks) {
    progress.update(std::min(done.load(), frames));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  progress.finish();
  for (const Timers& t : rankTimers)
    for (const auto& [phase, entry] : t.ordered()) timers->add(phase, entry.seconds / ranks);

  ScopedTimer t(timers, "map.reduce");
  const std::size_t count = lattices[0].size();
  std::vector<DeviceBuffer<double>> partial, gathered, total;
  for (int r = 0; r < ranks; ++r) {
    useCudaDevice(devices[std::size_t(r)]);
    if (sums[std::size_t(r)].empty()) sums[std::size_t(r)].assign(count, 0.0);  // a rank without frames
    partial.emplace_back("map partial sum", 0);
    partial.back().upload(sums[std::size_t(r)]);
    gathered.emplace_back("map gathered sums", count * std::size_t(ranks));
    total.emplace_back("map total", count);
    FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<const double*> p;
  std::vector<double*> g, s;
  for (int r = 0; r < ranks; ++r) p.push_back(partial[r].data()), g.push_back(gathered[r].data()), s.push_back(total[r].data());
  group.sumInRankOrder(p, g, s, count);
  useCudaDevice(devices[0]);
  MapResult result;
  result.average = total[0].toHost();
  for (long long c : counts) result.frames += c;
  for (double& v : result.average) v /= double(result.frames);
  result.lattice = lattices[0];
  return result;
#else
  (void)config, (void)system, (void)devices, (void)timers, (void)frames;
  throw keyError("run.devices", "several GPUs need a build with CUDA");
#endif
}

/// map.trajectory, opened for `system` (an atom-count mismatch throws Error naming the file);
/// an Error when it is not set or has no frames.
std::unique_ptr<TrajectoryReader> openMapTrajectory(const Config& config, const System& system) {
  if (config.map.trajectory.empty()) throw keyError("map.trajectory", "faraday map needs a trajectory (.dcd or .xtc) to average");
  auto trajectory = openTrajectory(config.map.trajectory, (long long)system.size());
  if (trajectory->frames() == 0) throw fileError(config.map.trajectory, 0, "trajectory has no frames");
  return trajectory;
}

/// The GPUs of run.devices for a CUDA map (empty: the current one).
std::vector<int> mapDevices(const Config& config, bool useCuda) {
  if (!useCuda || config.run.devices.empty()) return {};
  return parseDevices("run.devices", config.run.devices, cudaDeviceCount());
}

/// Whether the frames go through the GPU group: run.devices is a list (even of one GPU) or "all".
bool acrossGpus(const Config& config, bool useCuda) {
  return useCuda && (config.run.devices == "all" || config.run.devices.find(',') != std::string::npos);
}

/// "cpu", "cuda" or "cuda x N GPUs".
std::string platformText(bool useCuda, const std::vector<int>& devices) {
  return !useCuda ? "cpu" : devices.size() > 1 ? "cuda x " + std::to_string(devices.size()) + " GPUs" : "cuda";
}

/// run.platform: cuda (an Error without a usable device), cpu, or auto (CUDA when a device is usable).
bool mapUsesCuda(const Config& config) {
  if (config.run.platform == "cuda") {
    if (cudaDeviceCount() == 0) throw keyError("run.platform", "cuda: " + cudaDeviceDescription());
    return true;
  }
  return config.run.platform == "auto" && cudaDeviceCount() > 0;
}

}  // namespace

int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers) {
  const auto t0 = std::chrono::steady_clock::now();
  Timers own;
  if (!timers) timers = &own;
  const auto trajectory = openMapTrajectory(config, system);
  const std::filesystem::path out = mapOutputPath(config);
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
  MapResult result;
  const std::vector<int> devices = mapDevices(config, useCuda);
  if (devices.size() == 1) useCudaDevice(devices[0]);
  if (acrossGpus(config, useCuda)) {
    result = averageAcrossGpus(config, system, devices, timers, trajectory->frames());
    ScopedTimer t(timers, "output");
    if (result.frames > 0) {
      keepEarlierMap();
      writeMapAverage(config.map, result.lattice, result.average, result.frames, out);
    }
  } else {
    const EwaldSetup ewald = mapEwaldSetup(config, system);
    PotentialMapAverager averager(config.map, system, useCuda, timers, &ewald);
    Progress progress = Progress::ofFrames(config.run.progressInterval, trajectory->frames());
    TrajectoryFrame frame;
    for (long long f = 0; f < trajectory->frames() && !StopSignals::received(); ++f) {
      {
        ScopedTimer t(timers, "read");
        trajectory->readFrame(f, frame);
      }
      averager.addFrame(frame.positions, frame.hasBox ? frame.box : system.box);
      progress.update(f + 1);
    }
    progress.finish();
    if (averager.frames() > 0) {
      ScopedTimer t(timers, "output");  // on the GPU this waits for the frames' kernels too
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
              result.frames, system.size(), l.nx, l.ny, l.nz, config.map.method.c_str(), platform.c_str(),
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
  Lattice lattice = map.averager().lattice();
  if (config.map.extent == "atoms") {
    TrajectoryFrame first;
    trajectory->readFrame(0, first);
    lattice = Lattice::fromAtoms(first.positions, config.map.spacing, config.map.padding);
  }
  log << "Effective configuration" << (config.configFile.empty() ? "" : " (" + config.configFile.string() + ")")
      << ", the keys faraday map reads:\n";
  for (const auto& [key, value] : settingsReadBy(config, Command::Map)) log << "  " << key << " = " << value << "\n";
  log << "System (" << config.system.coordinates.string() << "):\n" << describeSystem(setup.system);
  log << "Trajectory: " << config.map.trajectory << ", " << trajectory->frames() << " frames of "
      << setup.system.size() << " atoms\n";
  log << "Map: " << config.map.method << " on " << lattice.nx << " x " << lattice.ny << " x " << lattice.nz
      << " points (map.extent = " << config.map.extent << ", " << platformText(useCuda, devices) << ") -> "
      << map.file().string() << " in " << config.map.units << "\n";
  log << "Dry run: configuration and input are valid; nothing was written.\n";
}

}  // namespace faraday
