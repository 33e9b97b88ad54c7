// `faraday bench md`: CPU MD throughput on fcc argon liquids of several sizes.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>

#include "engine/Bench.h"
#include "engine/CpuBackend.h"
#include "engine/Error.h"
#include "engine/FccLattice.h"
#include "engine/Units.h"
#include "integrators/InitialVelocities.h"

namespace faraday {
namespace {

struct BenchOptions {
  std::vector<int> cells{10, 20, 40};  ///< fcc cells per edge: 4k, 32k, 256k atoms
  long long steps = 0;                 ///< 0: 200 / 100 / 20 by size
  int threads = 0;                     ///< 0: all cores
  double dt = 0.004;                   ///< ps
};

std::vector<int> parseIntList(const std::string& key, const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      out.push_back(std::stoi(item));
    } catch (const std::exception&) {
      throw Error("bench md: " + key + " expects integers separated by commas, got '" + text + "'");
    }
    if (out.back() < 3) throw Error("bench md: " + key + " values must be >= 3 fcc cells");
  }
  return out;
}

double parseNumber(const std::string& key, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw Error("bench md: " + key + " expects a number, got '" + text + "'");
}

BenchOptions parseOptions(const std::vector<std::string>& args) {
  BenchOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    // --key=value or --key value
    std::string key = args[i], value;
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key.resize(eq);
    } else {
      if (i + 1 >= args.size()) throw Error("bench md: " + key + " needs a value");
      value = args[++i];
    }
    if (key == "--sizes") o.cells = parseIntList(key, value);
    else if (key == "--steps") o.steps = (long long)parseNumber(key, value);
    else if (key == "--threads") o.threads = int(parseNumber(key, value));
    else if (key == "--dt") o.dt = parseNumber(key, value);
    else throw Error("bench md: unknown option '" + key + "' (expected --sizes, --steps, --threads, --dt)");
  }
  return o;
}

/// Argon, LJ cutoff 1.0 nm with potential shift, buffer 0.1 nm, velocity Verlet, no charges.
Config benchConfig(const BenchOptions& o) {
  Config c;
  c.run.platform = "cpu";
  c.run.threads = o.threads;
  c.electrostatics.method = "none";
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = 0.1;
  c.nonbonded.ljShift = true;
  c.integrator.type = "verlet";
  c.integrator.dt = o.dt;
  return c;
}

struct BenchRow {
  std::size_t atoms = 0;
  int threads = 0;
  long long steps = 0, builds = 0;
  double seconds = 0, neighbor = 0, nonbonded = 0, integrate = 0;
};

long long stepsFor(std::size_t atoms, const BenchOptions& o) {
  if (o.steps > 0) return o.steps;
  return atoms <= 8000 ? 200 : atoms <= 64000 ? 100 : 20;
}

BenchRow runOne(int cells, const BenchOptions& o) {
  const BuiltSystem b = fccArgon(cells);
  Timers timers;
  CpuBackend backend(benchConfig(o), b.system, &timers);
  State s;
  s.positions = b.positions;
  s.velocities = maxwellBoltzmannVelocities(b.system, 120.0, 1, "verlet");
  s.box = b.system.box;
  backend.setState(s, {});
  backend.computeForces();
  const long long steps = stepsFor(b.system.size(), o);
  for (long long k = 0; k < std::max(5LL, steps / 10); ++k) backend.step();  // warm-up
  timers.clear();
  const long long buildsBefore = backend.neighborListBuilds();
  const auto start = std::chrono::steady_clock::now();
  for (long long k = 0; k < steps; ++k) backend.step();
  BenchRow r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.atoms = b.system.size();
  r.threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  r.steps = steps;
  r.builds = backend.neighborListBuilds() - buildsBefore;
  for (const auto& [name, e] : timers.ordered()) {
    if (name == "neighbor") r.neighbor = e.seconds;
    if (name == "nonbonded") r.nonbonded = e.seconds;
    if (name == "integrate") r.integrate = e.seconds;
  }
  return r;
}

void printRow(const BenchRow& r, double dt) {
  const double msPerStep = 1e3 * r.seconds / double(r.steps);
  const double nsPerDay = dt / units::kPsPerNs * units::kSecondsPerDay / (msPerStep * 1e-3);
  const double pct = 100.0 / r.seconds;
  std::printf("%9zu %7d %6lld %10.3f %9.2f %9.1f %10.1f %10.1f %7lld\n", r.atoms, r.threads, r.steps, msPerStep,
              nsPerDay, r.neighbor * pct, r.nonbonded * pct, r.integrate * pct, r.builds);
  std::fflush(stdout);
}

}  // namespace

int benchMd(const std::vector<std::string>& args) {
  const BenchOptions o = parseOptions(args);
  std::printf("faraday bench md: CPU backend, fcc argon liquid (21.1 /nm^3), LJ cutoff 1.0 nm + buffer 0.1 nm, "
              "velocity Verlet, dt %.4g ps\n",
              o.dt);
  std::printf("%9s %7s %6s %10s %9s %9s %10s %10s %7s\n", "atoms", "threads", "steps", "ms/step", "ns/day",
              "neigh%", "nonbond%", "integr%", "builds");
  for (int c : o.cells) printRow(runOne(c, o), o.dt);
  return 0;
}

}  // namespace faraday
