#include "engine/maps/MapCommand.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <thread>

#include "engine/formats/AtomicFile.h"
#include "core/Error.h"
#include "engine/maps/MapReporter.h"
#include "engine/run/Progress.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/Trajectory.h"
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
        for (long long f = r; f < frames; f += ranks) {
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
        done += frames;  // the progress loop ends
      }
    });
  Progress progress = Progress::ofFrames(config.run.progressInterval, frames);
  while (done.load() < frames) {
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

}  // namespace

int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers) {
  if (config.map.trajectory.empty()) throw keyError("map.trajectory", "faraday map needs a trajectory (.dcd or .xtc) to average");
  const auto t0 = std::chrono::steady_clock::now();
  Timers own;
  if (!timers) timers = &own;
  // An atom-count mismatch throws Error naming the file.
  const auto trajectory = openTrajectory(config.map.trajectory, (long long)system.size());
  if (trajectory->frames() == 0) throw fileError(config.map.trajectory, 0, "trajectory has no frames");
  const std::filesystem::path out = mapOutputPath(config);
  try {
    checkWritable(out);  // creates the output folder; fails now, not after the frames
  } catch (const Error& e) {
    throw keyError("map.file", e.what());
  }
  MapResult result;
  std::vector<int> devices;
  if (useCuda && !config.run.devices.empty()) {
    devices = parseDevices("run.devices", config.run.devices, cudaDeviceCount());
    if (devices.size() == 1) useCudaDevice(devices[0]);
  }
  // A list (even of one GPU) or "all": the frames go through the GPU group.
  if (useCuda && (config.run.devices == "all" || config.run.devices.find(',') != std::string::npos)) {
    result = averageAcrossGpus(config, system, devices, timers, trajectory->frames());
    ScopedTimer t(timers, "output");
    writeMapAverage(config.map, result.lattice, result.average, result.frames, out);
  } else {
    const EwaldSetup ewald = mapEwaldSetup(config, system);
    PotentialMapAverager averager(config.map, system, useCuda, timers, &ewald);
    Progress progress = Progress::ofFrames(config.run.progressInterval, trajectory->frames());
    TrajectoryFrame frame;
    for (long long f = 0; f < trajectory->frames(); ++f) {
      {
        ScopedTimer t(timers, "read");
        trajectory->readFrame(f, frame);
      }
      averager.addFrame(frame.positions, frame.hasBox ? frame.box : system.box);
      progress.update(f + 1);
    }
    progress.finish();
    {
      ScopedTimer t(timers, "output");  // on the GPU this waits for the frames' kernels too
      averager.write(out);
    }
    result.lattice = averager.lattice();
    result.frames = averager.frames();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << timers->table("Time per phase", s);
  const Lattice& l = result.lattice;
  const std::string platform =
      !useCuda ? "cpu" : devices.size() > 1 ? "cuda x " + std::to_string(devices.size()) + " GPUs" : "cuda";
  std::printf("potential map: %lld frames x %zu atoms on %d x %d x %d points (%s, %s) -> %s in %.2f s (%.3g frames/s)\n",
              result.frames, system.size(), l.nx, l.ny, l.nz, config.map.method.c_str(), platform.c_str(),
              out.string().c_str(), s, s > 0 ? double(result.frames) / s : 0.0);
  std::fflush(stdout);
  return 0;
}

int mapMain(const Config& config) {
  const Setup setup = buildSetup(config);
  bool useCuda = false;
  if (config.run.platform == "cuda") {
    if (cudaDeviceCount() == 0) throw keyError("run.platform", "cuda: " + cudaDeviceDescription());
    useCuda = true;
  } else if (config.run.platform == "auto") {
    useCuda = cudaDeviceCount() > 0;
  }
  return mapMain(config, setup.system, useCuda);
}

int mapCommand(const std::vector<std::string>& args) {
  std::string file;
  std::vector<std::string> overrides;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << "usage: faraday map CONFIG [--section.key=value ...]\n"
                   "  averages the potential map over map.trajectory and writes map.file\n";
      return 0;
    }
    if (a.rfind("--", 0) == 0) {
      overrides.push_back(a);
      if (a.find('=') == std::string::npos && i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0)
        overrides.push_back(args[++i]);
    } else if (file.empty()) {
      file = a;
    } else {
      throw Error("faraday map: unexpected argument '" + a + "' (only one config file)");
    }
  }
  if (file.empty()) throw Error("faraday map needs a config file (see faraday map --help)");
  return mapMain(loadConfig(file, overrides));
}

}  // namespace faraday
