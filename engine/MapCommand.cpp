#include "engine/MapCommand.h"

#include <chrono>
#include <cstdio>
#include <iostream>

#include "engine/AtomicFile.h"
#include "engine/Error.h"
#include "engine/MapReporter.h"
#include "engine/Progress.h"
#include "engine/SystemSetup.h"
#include "engine/Trajectory.h"
#include "kernels/common/Device.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

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
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << timers->table("Time per phase", s);
  const Lattice& l = averager.lattice();
  std::printf("potential map: %lld frames x %zu atoms on %d x %d x %d points (%s, %s) -> %s in %.2f s (%.3g frames/s)\n",
              averager.frames(), system.size(), l.nx, l.ny, l.nz, config.map.method.c_str(),
              useCuda ? "cuda" : "cpu", out.string().c_str(), s, s > 0 ? double(averager.frames()) / s : 0.0);
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
