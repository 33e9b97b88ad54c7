#pragma once
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/output/Reporter.h"

namespace faraday {

/// CSV energy log, one row every `interval` steps, the columns OpenMM's StateDataReporter
/// also has named as it names them: #"Step","Time (ps)","Potential Energy (kJ/mole)",
/// "Kinetic Energy (kJ/mole)","Total Energy (kJ/mole)","Temperature (K)","Speed (ns/day)"
/// (averaged since the start of this run; "--" before any step), then each term of Energies
/// (kJ/mole), the topology's bonded terms named as `gmx energy` names them ("Bond
/// (kJ/mole)", "Angle (kJ/mole)", ...; only those the system has), and "Pressure (bar)" ("--" without a periodic box: an open system in
/// nonbonded.mode = all-pairs has no volume); with a barostat, "Box Volume (nm^3)" and
/// "Density (g/mL)" (total mass / volume). No value prints as "-0". Rows are flushed as
/// they are written. On a restart the rows after the restart step are dropped, and so is an
/// incomplete row (energyLogContinuation), and the log continues.
class EnergyLog : public Reporter {
 public:
  /// `degreesOfFreedom` of the temperature (degreesOfFreedom() of integrators/Integrator.h),
  /// `timestep` ps; `restartStep` < 0 starts a new file; `periodic`: whether the pressure of
  /// the state's box means anything; `bondedSlots`: the bonded columns (bondedSlotsPresent).
  /// `totalMass` amu > 0: the volume and density columns (a box that changes), else none.
  EnergyLog(const std::filesystem::path& file, double degreesOfFreedom, long long interval, double timestep,
            long long restartStep, bool periodic = true, std::vector<int> bondedSlots = {}, double totalMass = 0);
  const char* name() const override { return "energy"; }
  long long interval() const override { return interval_; }
  bool needsState() const override { return false; }
  void report(const State& state, const Energies& energies, double kineticEnergy) override;
  void finish(const State& state) override;

  /// The header line (without newline).
  static std::string header(const std::vector<int>& bondedSlots = {}, bool volumeColumns = false);

 private:
  void startNew();
  void continueAfter(long long restartStep);
  std::string speed(long long step) const;

  std::filesystem::path path_;
  double degreesOfFreedom_;
  long long interval_;
  double timestep_;
  bool periodic_;
  std::vector<int> bondedSlots_;
  double totalMass_;
  std::ofstream out_;
  long long startStep_ = 0;
  std::chrono::steady_clock::time_point startTime_;
};

/// What a restart keeps of an energy log: the header and the complete rows up to the restart
/// step (every column, ended by a newline; a row cut off when the run stopped is dropped).
struct EnergyLogContinuation {
  std::vector<std::string> kept;  ///< the header first; empty when the file holds no header yet
  std::vector<long> dropped;      ///< line numbers (from 1) of the incomplete rows dropped
};

/// Reads the energy log `file` for a restart at `restartStep`, changing nothing. Throws Error
/// naming the file and line when its header is not the one EnergyLog writes with the bonded
/// columns `bondedSlots` (bondedSlotsPresent) and, with `volumeColumns`, the barostat's volume
/// and density.
EnergyLogContinuation energyLogContinuation(const std::filesystem::path& file, long long restartStep,
                                            const std::vector<int>& bondedSlots, bool volumeColumns = false);

/// The energy-term columns of every energy table (energy log, rerun): each term of Energies
/// (kJ/mole), then the bonded terms of `bondedSlots`; and one row's fields (no line end).
std::string energyTermHeader(const std::vector<int>& bondedSlots = {});
std::string energyTermFields(const Energies& energies, const std::vector<int>& bondedSlots = {});

/// `value` formatted by printf `format`, without a minus sign when it prints as zero.
std::string csvNumber(const char* format, double value);

/// Pressure in bar: P = (2 K + trace(W)) / (3 V), K kJ/mol, W kJ/mol, V nm^3.
double pressureBar(double kineticEnergy, const Energies& energies, double volume);

}  // namespace faraday
