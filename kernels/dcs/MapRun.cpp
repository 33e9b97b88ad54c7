#include "kernels/dcs/MapRun.h"

#include <chrono>
#include <cstdio>

#include "engine/Error.h"
#include "kernels/dcs/DcdFrames.h"
#include "kernels/dcs/MapReporter.h"

namespace faraday {

int mapMain(const Config& config, const System& system, bool useCuda, Timers* timers) {
  if (config.map.trajectory.empty()) throw keyError("map.trajectory", "faraday map needs a DCD trajectory to average");
  const auto t0 = std::chrono::steady_clock::now();
  DcdFrames dcd(config.map.trajectory);
  if (std::size_t(dcd.atoms()) != system.size())
    throw fileError(config.map.trajectory, 0,
                    "trajectory has " + std::to_string(dcd.atoms()) + " atoms but the system has " +
                        std::to_string(system.size()));
  PotentialMapAverager averager(config.map, system, useCuda, timers);
  std::vector<Vec3> positions;
  Box box = system.box;
  while (dcd.next(positions, &box)) averager.addFrame(positions, dcd.hasUnitCell() ? box : system.box);
  if (averager.frames() == 0) throw fileError(config.map.trajectory, 0, "trajectory has no frames");
  const std::filesystem::path out = mapOutputPath(config);
  averager.write(out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Lattice& l = averager.lattice();
  std::printf("potential map: %lld frames x %zu atoms on %d x %d x %d points (%s, %s) -> %s in %.2f s\n",
              averager.frames(), system.size(), l.nx, l.ny, l.nz, config.map.method.c_str(),
              useCuda ? "cuda" : "cpu", out.string().c_str(), s);
  return 0;
}

}  // namespace faraday
