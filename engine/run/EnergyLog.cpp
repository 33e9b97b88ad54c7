#include "engine/run/EnergyLog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "core/Error.h"
#include "engine/formats/TextParse.h"
#include "core/Units.h"
#include "integrators/InitialVelocities.h"

namespace faraday {

double pressureBar(double kineticEnergy, const Energies& energies, double volume) {
  return (2.0 * kineticEnergy + energies.virial.trace()) / (3.0 * volume) * units::kBarPerKjMolNm3;
}

EnergyLog::EnergyLog(const std::filesystem::path& file, double degreesOfFreedom, long long interval, double timestep,
                     long long restartStep, bool periodic, std::vector<int> bondedSlots)
    : path_(file),
      degreesOfFreedom_(degreesOfFreedom),
      interval_(interval),
      timestep_(timestep),
      periodic_(periodic),
      bondedSlots_(std::move(bondedSlots)) {
  if (restartStep >= 0 && std::filesystem::exists(file))
    continueAfter(restartStep);
  else
    startNew();
  startStep_ = std::max(restartStep, 0LL);
  startTime_ = std::chrono::steady_clock::now();
}

std::string EnergyLog::header(const std::vector<int>& bondedSlots) {
  std::string h = "#\"Step\",\"Time (ps)\",\"Potential Energy (kJ/mole)\",\"Kinetic Energy (kJ/mole)\","
                  "\"Total Energy (kJ/mole)\",\"Temperature (K)\",\"Speed (ns/day)\",";
  h += energyTermHeader(bondedSlots);
  h += ",\"Pressure (bar)\"";
  return h;
}

std::string energyTermHeader(const std::vector<int>& bondedSlots) {
  std::string h = "\"LJ (kJ/mole)\",\"Dispersion Correction (kJ/mole)\",\"Coulomb Real Space (kJ/mole)\","
                  "\"Coulomb Reciprocal Space (kJ/mole)\",\"Coulomb Self (kJ/mole)\",\"Coulomb Net Charge (kJ/mole)\","
                  "\"Gravity or Typed Pair (kJ/mole)\"";
  for (const int slot : bondedSlots) h += ",\"" + std::string(bondedSlotName(slot)) + " (kJ/mole)\"";
  return h;
}

std::string energyTermFields(const Energies& e, const std::vector<int>& bondedSlots) {
  std::string out;
  // The exclusion correction removes the excluded pairs' reciprocal-space energy: it is
  // reported with it.
  for (const double v : {e.lj, e.dispersionCorrection, e.coulombReal, e.coulombRecip + e.coulombExclusion, e.coulombSelf,
                         e.coulombNetCharge, e.pair}) {
    if (!out.empty()) out += ',';
    out += csvNumber("%.10g", v);
  }
  for (const int slot : bondedSlots) out += "," + csvNumber("%.10g", e.bonded[std::size_t(slot)]);
  return out;
}

std::string csvNumber(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  // A zero, or a value that rounds to zero, never prints as "-0" or "-0.000000".
  if (text[0] == '-' && std::isfinite(value) && std::string(text).find_first_of("123456789") == std::string::npos)
    return text + 1;
  return text;
}

void EnergyLog::startNew() {
  out_.open(path_, std::ios::trunc);
  if (!out_) throw fileError(path_.string(), 0, "cannot create the energy log: " + systemReason());
  out_ << header(bondedSlots_) << '\n' << std::flush;
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

EnergyLogContinuation energyLogContinuation(const std::filesystem::path& file, long long restartStep,
                                            const std::vector<int>& bondedSlots) {
  const std::string header = EnergyLog::header(bondedSlots);
  const auto fields = [](const std::string& line) { return std::count(line.begin(), line.end(), ',') + 1; };
  std::ifstream in(file, std::ios::binary);
  if (!in) throw fileError(file.string(), 0, "cannot read the energy log: " + systemReason());
  EnergyLogContinuation c;
  std::string line;
  for (long number = 1; std::getline(in, line); ++number) {
    const bool ended = !in.eof();  // a last line without its newline was cut off
    if (number == 1) {
      if (line == header && ended) {
        c.kept.push_back(line);
        continue;
      }
      if (!ended && header.rfind(line, 0) == 0) break;  // the header itself was cut off
      throw fileError(file.string(), 1, "not an energy log with the columns this run writes (its header differs): "
                                        "move it away or set output.energy_file to a new file");
    }
    long long step = 0;
    if (!ended || fields(line) != fields(header) || !parseInteger(line.substr(0, line.find(',')), step)) {
      c.dropped.push_back(number);
      continue;
    }
    if (step > restartStep) break;
    c.kept.push_back(line);
  }
  return c;
}

/// Keeps the header and the complete rows up to `restartStep`, then appends.
void EnergyLog::continueAfter(long long restartStep) {
  std::vector<std::string> kept = energyLogContinuation(path_, restartStep, bondedSlots_).kept;
  out_.open(path_, std::ios::trunc);
  if (!out_) throw fileError(path_.string(), 0, "cannot reopen the energy log: " + systemReason());
  if (kept.empty()) kept.push_back(header(bondedSlots_));
  for (const std::string& line : kept) out_ << line << '\n';
  out_ << std::flush;
}

std::string EnergyLog::speed(long long step) const {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime_).count();
  const long long steps = step - startStep_;
  if (steps <= 0 || !(seconds > 0)) return "--";  // nothing timed yet (OpenMM writes the same)
  return csvNumber("%.4g", double(steps) * timestep_ / units::kPsPerNs * units::kSecondsPerDay / seconds);
}

void EnergyLog::report(const State& state, const Energies& e, double kinetic) {
  const double potential = e.potential();
  std::string line = std::to_string(state.step);
  const auto add = [&line](const std::string& field) {
    line += ',';
    line += field;
  };
  add(csvNumber("%.6f", state.time));
  for (const double v : {potential, kinetic, potential + kinetic}) add(csvNumber("%.10g", v));
  add(csvNumber("%.6f", temperatureOf(degreesOfFreedom_, kinetic)));
  add(speed(state.step));
  add(energyTermFields(e, bondedSlots_));
  add(periodic_ ? csvNumber("%.6f", pressureBar(kinetic, e, state.box.volume())) : "--");
  line += '\n';
  out_ << line << std::flush;
  if (!out_) throw fileError(path_.string(), 0, "write failed: " + systemReason());
}

void EnergyLog::finish(const State&) { out_.close(); }

}  // namespace faraday
