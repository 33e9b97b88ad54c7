#include "engine/EnergyLog.h"

#include <cstdio>
#include <sstream>
#include <vector>

#include "engine/Error.h"
#include "engine/TextParse.h"
#include "engine/Units.h"
#include "integrators/InitialVelocities.h"

namespace faraday {

double pressureBar(double kineticEnergy, const Energies& energies, double volume) {
  return (2.0 * kineticEnergy + energies.virial.trace()) / (3.0 * volume) * units::kBarPerKjMolNm3;
}

EnergyLog::EnergyLog(const std::filesystem::path& file, double degreesOfFreedom, long long interval, double timestep,
                     long long restartStep)
    : path_(file), degreesOfFreedom_(degreesOfFreedom), interval_(interval), timestep_(timestep) {
  if (restartStep >= 0 && std::filesystem::exists(file))
    continueAfter(restartStep);
  else
    startNew();
  lastStep_ = restartStep;
  lastTime_ = std::chrono::steady_clock::now();
}

std::string EnergyLog::header() {
  return "\"step\",\"time (ps)\",\"potential (kJ/mol)\",\"kinetic (kJ/mol)\",\"total (kJ/mol)\",\"temperature (K)\","
         "\"lj (kJ/mol)\",\"dispersion_correction (kJ/mol)\",\"coulomb_real (kJ/mol)\",\"coulomb_recip (kJ/mol)\","
         "\"coulomb_self (kJ/mol)\",\"coulomb_net_charge (kJ/mol)\",\"pressure (bar)\",\"ns/day\"";
}

void EnergyLog::startNew() {
  out_.open(path_, std::ios::trunc);
  if (!out_) throw fileError(path_.string(), 0, "cannot create the energy log: " + systemReason());
  out_ << header() << '\n' << std::flush;
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

/// Keeps the header and the rows up to `restartStep`, then appends.
void EnergyLog::continueAfter(long long restartStep) {
  std::vector<std::string> kept;
  {
    std::ifstream in(path_);
    std::string line;
    while (std::getline(in, line)) {
      long long step = 0;
      const std::string first = line.substr(0, line.find(','));
      if (parseInteger(first, step) && step > restartStep) break;
      kept.push_back(line);
    }
  }
  out_.open(path_, std::ios::trunc);
  if (!out_) throw fileError(path_.string(), 0, "cannot reopen the energy log: " + systemReason());
  if (kept.empty()) kept.push_back(header());
  for (const std::string& line : kept) out_ << line << '\n';
  out_ << std::flush;
}

double EnergyLog::nsPerDay(long long step) {
  const auto now = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(now - lastTime_).count();
  const long long steps = lastStep_ >= 0 ? step - lastStep_ : 0;
  lastStep_ = step;
  lastTime_ = now;
  if (steps <= 0 || seconds <= 0) return 0.0;
  return double(steps) * timestep_ / units::kPsPerNs * units::kSecondsPerDay / seconds;
}

void EnergyLog::report(const State& state, const Energies& e, double kinetic) {
  const double potential = e.potential();
  char line[1024];
  std::snprintf(line, sizeof line, "%lld,%.6f,%.10g,%.10g,%.10g,%.6f,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%.6f,%.4g\n",
                state.step, state.time, potential, kinetic, potential + kinetic,
                temperatureOf(degreesOfFreedom_, kinetic), e.lj, e.dispersionCorrection, e.coulombReal, e.coulombRecip,
                e.coulombSelf, e.coulombNetCharge, pressureBar(kinetic, e, state.box.volume()), nsPerDay(state.step));
  out_ << line << std::flush;
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

void EnergyLog::finish(const State&) { out_.close(); }

}  // namespace faraday
