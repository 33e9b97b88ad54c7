#include "engine/cli/Rerun.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "engine/formats/AtomicFile.h"
#include "engine/backends/Backend.h"
#include "engine/run/EnergyLog.h"
#include "core/Error.h"
#include "engine/formats/NpyFile.h"
#include "engine/maps/MapReporter.h"
#include "engine/output/OutputFolder.h"
#include "engine/output/StopSignals.h"
#include "engine/setup/SystemSetup.h"
#include "engine/formats/Trajectory.h"
#include "engine/formats/TrajectoryFile.h"
#include "engine/backends/BackendFactory.h"

namespace faraday {
namespace {

/// The files of a rerun: rerun.energy_file and output.forces_file, written frame by frame
/// into FILE.tmp, which commit() renames into place (earlier files kept as backups). Created
/// by the constructor, before the first frame: an output that cannot be written fails at once.
class RerunOutputs {
 public:
  /// `bondedSlots`: the topology's bonded columns (bondedSlotsPresent).
  RerunOutputs(const Config& config, std::size_t atoms, long long frames, std::vector<int> bondedSlots)
      : energyPath_(config.output.directory / config.rerun.energyFile),
        table_(energyPath_),
        bondedSlots_(std::move(bondedSlots)) {
    if (!config.output.forcesFile.empty()) {
      forcesPath_ = config.output.directory / config.output.forcesFile;
      forces_ = std::make_unique<NpyFramesWriter>(forcesPath_, atoms, frames);
    }
    table_.out() << "#\"Frame\",\"Step\",\"Time (ps)\",\"Potential Energy (kJ/mole)\","
                 << energyTermHeader(bondedSlots_) << '\n';
    table_.flush();
  }
  /// Writes frame `index`: its row of energies and, when asked for, its forces.
  void add(long long index, const State& s, const Energies& e, const std::vector<Vec3>& forces) {
    table_.out() << index << ',' << s.step << ',' << csvNumber("%.6f", s.time) << ','
                 << csvNumber("%.10g", e.potential()) << ',' << energyTermFields(e, bondedSlots_) << '\n';
    table_.flush();
    if (forces_) forces_->write(forces);
  }
  void commit() {
    std::vector<std::filesystem::path> files = {energyPath_};
    if (forces_) files.push_back(forcesPath_);
    for (const std::string& line : backUpFiles(files)) std::cerr << "faraday: note: " << line << "\n";
    table_.commit();
    if (forces_) forces_->commit();
  }
  std::string names() const { return energyPath_.string() + (forces_ ? " and " + forcesPath_.string() : ""); }

 private:
  std::filesystem::path energyPath_, forcesPath_;
  AtomicFileWriter table_;
  std::vector<int> bondedSlots_;
  std::unique_ptr<NpyFramesWriter> forces_;
};

}  // namespace

int rerunMain(const Config& config, std::ostream& log) {
  const auto t0 = std::chrono::steady_clock::now();
  const StopSignals signals;
  Setup setup = buildSetup(config);
  for (const std::string& warning : setup.warnings) std::cerr << "faraday: warning: " << warning << "\n";
  for (const std::string& warning : checkElectrostaticsAccuracy(config, setup.system, true, false))
    std::cerr << "faraday: warning: " << warning << "\n";
  const std::size_t n = setup.system.size();
  // The frames: every frame of the trajectory, or the coordinate file as one frame.
  std::unique_ptr<TrajectoryReader> trajectory;
  long long frames = 1;
  if (!config.rerun.trajectory.empty()) {
    trajectory = openTrajectory(config.rerun.trajectory, (long long)n);
    frames = trajectory->frames();
    if (frames == 0) throw fileError(config.rerun.trajectory, 0, "trajectory has no frames");
  }
  auto backend = makeBackend(config, setup.system, nullptr);
  const OutputLock lock(config.output.directory, "faraday rerun", "output.directory");
  if (!lock.note().empty()) std::cerr << "faraday: note: " << lock.note() << "\n";
  RerunOutputs outputs(config, n, frames, bondedSlotsPresent(setup.system.topology));
  State s = setup.state;
  TrajectoryFrame frame;
  long long done = 0;
  for (; done < frames && !StopSignals::received(); ++done) {
    if (trajectory) {
      trajectory->readFrame(done, frame);
      s.positions.swap(frame.positions);
      s.step = frame.step;
      s.time = frame.time;
      s.box = frame.hasBox ? frame.box : setup.system.box;
    }
    s.velocities.assign(n, Vec3{});
    backend->setState(s, {});
    const Energies e = backend->computeForces();
    outputs.add(done, s, e, backend->forces());
  }
  if (done == 0) {  // a signal before the first frame: the temporary files go, nothing is replaced
    std::cerr << "faraday: interrupted before the first frame: nothing written\n";
    return 128 + StopSignals::received();
  }
  // Complete files, also when a signal stopped the frames.
  outputs.commit();
  char line[512];
  std::snprintf(line, sizeof line, "rerun: %lld frame(s) x %zu atoms on %s -> %s in %.2f s\n", done, n,
                backend->name().c_str(), outputs.names().c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  log << line << std::flush;
  if (const int signal = StopSignals::received(); signal != 0 && done < frames) {
    std::cerr << "faraday: interrupted after frame " << done << " of " << frames << ": " << outputs.names()
              << " hold the " << done << " frame(s) done\n";
    return 128 + signal;
  }
  return 0;
}

}  // namespace faraday
