#pragma once
#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/Reporter.h"

namespace faraday {

/// CSV energy log, one row every `interval` steps, columns like OpenMM's StateDataReporter:
/// "step","time (ps)","potential (kJ/mol)","kinetic (kJ/mol)","total (kJ/mol)",
/// "temperature (K)", each term of Energies (kJ/mol), "pressure (bar)", "ns/day".
/// Rows are flushed as they are written. On a restart the rows after the restart step
/// are dropped and the log continues.
class EnergyLog : public Reporter {
 public:
  /// `degreesOfFreedom` of the temperature (degreesOfFreedom() of integrators/Integrator.h),
  /// `timestep` ps; `restartStep` < 0 starts a new file.
  EnergyLog(const std::filesystem::path& file, double degreesOfFreedom, long long interval, double timestep,
            long long restartStep);
  const char* name() const override { return "energy"; }
  long long interval() const override { return interval_; }
  bool needsState() const override { return false; }
  void report(const State& state, const Energies& energies, double kineticEnergy) override;
  void finish(const State& state) override;

  /// The header line (without newline).
  static std::string header();

 private:
  void startNew();
  void continueAfter(long long restartStep);
  double nsPerDay(long long step);

  std::filesystem::path path_;
  double degreesOfFreedom_;
  long long interval_;
  double timestep_;
  std::ofstream out_;
  long long lastStep_ = -1;
  std::chrono::steady_clock::time_point lastTime_;
};

/// Pressure in bar: P = (2 K + trace(W)) / (3 V), K kJ/mol, W kJ/mol, V nm^3.
double pressureBar(double kineticEnergy, const Energies& energies, double volume);

}  // namespace faraday
