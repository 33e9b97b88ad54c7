#include "engine/run/Rerun.h"

#include <chrono>
#include <cstdio>

#include "engine/formats/AtomicFile.h"
#include "engine/backends/Backend.h"
#include "engine/run/EnergyLog.h"
#include "core/Error.h"
#include "engine/formats/NpyFile.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/backends/BackendFactory.h"

namespace faraday {

int rerunMain(const Config& config, std::ostream& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const Setup setup = buildSetup(config);
  const std::size_t n = setup.system.size();
  // The frames: every frame of the trajectory, or the coordinate file as one frame.
  std::vector<State> frames;
  if (config.rerun.trajectory.empty()) {
    frames.push_back(setup.state);
  } else {
    const auto trajectory = openTrajectory(config.rerun.trajectory, (long long)n);
    if (trajectory->frames() == 0) throw fileError(config.rerun.trajectory, 0, "trajectory has no frames");
    TrajectoryFrame frame;
    for (long long f = 0; f < trajectory->frames(); ++f) {
      trajectory->readFrame(f, frame);
      State s;
      s.positions = frame.positions;
      s.step = frame.step;
      s.time = frame.time;
      s.box = frame.hasBox ? frame.box : setup.system.box;
      frames.push_back(std::move(s));
    }
  }
  auto backend = makeBackend(config, setup.system, nullptr);
  std::string table = "#\"Frame\",\"Step\",\"Time (ps)\",\"Potential Energy (kJ/mole)\",";
  table += energyTermHeader(bondedSlotsPresent(setup.system.topology));
  table += '\n';
  std::vector<std::vector<Vec3>> forces;
  for (std::size_t f = 0; f < frames.size(); ++f) {
    State& s = frames[f];
    s.velocities.assign(n, Vec3{});
    backend->setState(s, {});
    const Energies e = backend->computeForces();
    table += std::to_string(f) + "," + std::to_string(s.step) + "," + csvNumber("%.6f", s.time) + "," +
             csvNumber("%.10g", e.potential()) + "," + energyTermFields(e, bondedSlotsPresent(setup.system.topology)) + "\n";
    if (!config.output.forcesFile.empty()) forces.push_back(backend->forces());
  }
  std::error_code ec;
  std::filesystem::create_directories(config.output.directory, ec);
  if (ec) throw keyError("output.directory", "cannot create " + config.output.directory.string() + ": " + ec.message());
  const std::filesystem::path energyPath = config.output.directory / config.rerun.energyFile;
  writeFileAtomically(energyPath, table);
  std::string written = energyPath.string();
  if (!config.output.forcesFile.empty()) {
    const std::filesystem::path forcesPath = config.output.directory / config.output.forcesFile;
    writeNpy(forcesPath, forces, false);
    written += " and " + forcesPath.string();
  }
  char line[512];
  std::snprintf(line, sizeof line, "rerun: %zu frame(s) x %zu atoms on %s -> %s in %.2f s\n", frames.size(), n,
                backend->name().c_str(), written.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  log << line << std::flush;
  return 0;
}

}  // namespace faraday
