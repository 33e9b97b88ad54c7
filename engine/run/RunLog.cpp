#include "engine/run/RunLog.h"

#include <cerrno>

#include <omp.h>

#include <cstdio>
#include <iostream>

#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "engine/run/OpenMpWaiting.h"
#include "integrators/Integrator.h"
#include "kernels/pme/Electrostatics.h"

namespace faraday {

RunLog::RunLog(std::ostream& console) : std::ostream(nullptr), tee_(console) { rdbuf(&tee_); }

RunLog::~RunLog() { flush(); }

void RunLog::open(const std::filesystem::path& file, bool append) {
  flush();
  tee_.open(file, append);
}

void RunLog::fileOnly(const std::string& text) {
  flush();
  tee_.toFile(text);
}

void RunLog::Tee::toFile(const std::string& text) {
  if (!file_.is_open()) {
    kept_ += text;
    return;
  }
  if (!failure_.empty()) throw fileError(path_.string(), 0, failure_);
  errno = 0;
  file_ << text << std::flush;
  if (!file_) {
    failure_ = "write failed: " + systemReason();
    throw fileError(path_.string(), 0, failure_);
  }
}

void RunLog::Tee::open(const std::filesystem::path& file, bool append) {
  if (file_.is_open()) return;
  const bool continuing = append && std::filesystem::exists(file);
  path_ = file;
  file_.open(file, continuing ? std::ios::app : std::ios::trunc);
  if (!file_) throw fileError(file.string(), 0, "cannot create the run log: " + systemReason());
  if (continuing) file_ << "\n---- restart ----\n";
  const std::string kept = std::move(kept_);
  kept_.clear();
  toFile(kept);
}

int RunLog::Tee::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  const char ch = char(c);
  xsputn(&ch, 1);
  return c;
}

std::streamsize RunLog::Tee::xsputn(const char* s, std::streamsize n) {
  console_.write(s, n);
  toFile(std::string(s, std::size_t(n)));
  return n;
}

int RunLog::Tee::sync() {
  console_.flush();
  return 0;
}

void logFileOnly(std::ostream& log, const std::string& text) {
  if (auto* runLog = dynamic_cast<RunLog*>(&log)) runLog->fileOnly(text);
}

void logNote(std::ostream& log, const std::string& text) {
  std::cerr << "faraday: note: " << text << "\n";
  logFileOnly(log, "Note: " + text + "\n");
}

void openRunLog(std::ostream& log, const std::filesystem::path& file, bool append) {
  if (auto* runLog = dynamic_cast<RunLog*>(&log)) runLog->open(file, append);
}

namespace {

/// nonbonded.mode = all-pairs: what every pair feels, and how many pairs a step takes.
std::string allPairsSummary(const Config& config, const System& system) {
  char line[512];
  const double n = double(system.size());
  const bool gravity = config.nonbonded.potential == PairPotential::Gravity;
  const char* what = gravity ? "Plummer-softened gravity" : "the typed pair force";
  std::snprintf(line, sizeof line,
                "All pairs: %s, open boundaries (the coordinate file's box is not used), %.0f pairs per step, no "
                "electrostatics\n",
                what, 0.5 * n * (n - 1));
  std::string out = line;
  if (gravity) {
    std::snprintf(line, sizeof line, "  G = %g kJ/mol nm/amu^2, softening %g nm\n", config.gravity.g,
                  config.gravity.softening);
    out += line;
  }
  return out;
}

}  // namespace

std::string runSetupSummary(const Config& config, const System& system) {
  char line[512];
  std::string out;
  const int threads = config.run.threads > 0 ? config.run.threads : omp_get_max_threads();
  std::snprintf(line, sizeof line, "OpenMP: %d threads (run.threads = %d), idle threads wait: %s\n", threads,
                config.run.threads, openMpWaiting().c_str());
  out += line;
  const Topology& t = system.topology;
  if (t.hasConstraints()) {
    std::snprintf(line, sizeof line,
                  "Constraints: %zu rigid waters (SETTLE), %zu distance constraints (system.constraints = %s, "
                  "integrator.constraint_tolerance = %g); %.0f degrees of freedom\n",
                  t.settles.size(), t.constraints.size(), choiceText(config.system.constraints).c_str(),
                  config.integrator.constraintTolerance, degreesOfFreedom(system, config.integrator.type));
    out += line;
  }
  if (config.nonbonded.allPairs()) return out + allPairsSummary(config, system);
  const EwaldSetup ewald = chooseEwaldSetup(config, system.box);
  out += describe(ewald) + "\n";
  if (ewald.method == ElectrostaticsMethod::None) return out;
  std::snprintf(line, sizeof line,
                "  real space: erfc(beta rc) = %.3g (ewald_rtol), Coulomb %s at the cutoff\n", config.electrostatics.ewaldRtol,
                config.nonbonded.coulombModifier == CoulombModifier::PotentialShift ? "potential-shifted" : "not shifted");
  out += line;
  if (ewald.method == ElectrostaticsMethod::Pme) {
    const Vec3 L = system.box.edgeLengths();
    double h = 0;
    for (int d = 0; d < 3; ++d) h = std::max(h, L[d] / ewald.pme.grid[d]);
    std::snprintf(line, sizeof line,
                  "  reciprocal space: largest grid spacing %.4g nm, estimated relative force error %.2g\n", h,
                  pmeForceErrorEstimate(ewald.beta, ewald.pme.order, h));
    out += line;
  } else {
    std::snprintf(line, sizeof line, "  reciprocal space: k vectors down to exp(-pi^2 m^2/beta^2) = %.3g\n",
                  ewald.kspaceRtol);
    out += line;
  }
  return out;
}

}  // namespace faraday
