#pragma once
#include <filesystem>

#include "engine/DcdFile.h"
#include "engine/Reporter.h"

namespace faraday {

/// Writes a DCD frame every `interval` steps. A new run's first frame is step 0; on a
/// restart an existing trajectory keeps its frames up to the restart step and continues.
class TrajectoryReporter : public Reporter {
 public:
  /// `timestep` ps; `restartStep` < 0 starts a new file.
  TrajectoryReporter(const std::filesystem::path& file, std::size_t atoms, long long interval, double timestep,
                     long long restartStep);
  const char* name() const override { return "trajectory"; }
  long long interval() const override { return interval_; }
  void report(const State& state, const Energies& energies, double kineticEnergy) override;

 private:
  static DcdWriter open(const std::filesystem::path& file, std::size_t atoms, long long interval, double timestep,
                        long long restartStep);
  long long interval_;
  DcdWriter writer_;
};

}  // namespace faraday
