#pragma once
#include <filesystem>
#include <memory>

#include "engine/output/Reporter.h"
#include "engine/formats/Trajectory.h"

namespace faraday {

/// Writes a trajectory frame every `interval` steps, DCD or XTC by the file's extension. A
/// new run's first frame is step 0; on a restart an existing trajectory keeps its frames up
/// to the restart step and continues.
class TrajectoryReporter : public Reporter {
 public:
  /// `timestep` ps; `restartStep` < 0 starts a new file; `xtcPrecision` 1/nm (XTC only).
  TrajectoryReporter(const std::filesystem::path& file, std::size_t atoms, long long interval, double timestep,
                     long long restartStep, double xtcPrecision);
  const char* name() const override { return "trajectory"; }
  long long interval() const override { return interval_; }
  void report(const State& state, const Energies& energies, double kineticEnergy) override;

 private:
  long long interval_;
  std::unique_ptr<TrajectoryWriter> writer_;
};

}  // namespace faraday
