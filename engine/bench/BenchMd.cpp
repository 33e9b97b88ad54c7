// `faraday bench md`: CPU MD throughput on fcc argon liquids of several sizes.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "engine/CpuBackend.h"
#include "engine/Error.h"
#include "engine/FccLattice.h"
#include "engine/Units.h"
#include "engine/bench/Bench.h"
#include "engine/bench/BenchOptions.h"
#include "integrators/InitialVelocities.h"

namespace faraday {
namespace {

struct MdOptions {
  std::vector<int> cells{10, 20, 40};  ///< fcc cells per edge: 4k, 32k, 256k atoms
  long long steps = 0;                 ///< 0: 200 / 100 / 20 by size
  int threads = 0;                     ///< 0: all cores
  double dt = 0.004;                   ///< ps
  std::string csv = "md_bench.csv";
};

/// The options of `faraday bench md`; false when --help was given.
bool parseOptions(const std::vector<std::string>& args, MdOptions& o) {
  std::string sizes = "10,20,40";
  BenchOptions parser("md",
                      "CPU MD throughput on fcc argon liquids (4 C^3 atoms for C cells per edge): ms/step, ns/day\n"
                      "and the time split between neighbour list, nonbonded forces and integration.");
  parser.add("sizes", sizes, "fcc cells per edge, comma-separated", "system sizes, each >= 3");
  parser.add("steps", o.steps, "steps", "timed steps per size (0: 200, 100 or 20 by size)");
  parser.add("threads", o.threads, "", "OpenMP threads (0 = all cores)");
  parser.add("dt", o.dt, "ps", "time step");
  parser.add("csv", o.csv, "path", "CSV output (\"\" = none)");
  if (!parser.parse(args, std::cout)) return false;
  o.cells.clear();
  for (double c : parser.numberList("sizes", sizes)) {
    if (!(c >= 3) || c != std::floor(c)) throw Error("faraday bench md: --sizes values must be whole numbers >= 3");
    o.cells.push_back(int(c));
  }
  return true;
}

/// Argon, LJ cutoff 1.0 nm with potential shift, buffer 0.1 nm, velocity Verlet, no charges.
Config benchConfig(const MdOptions& o) {
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

long long stepsFor(std::size_t atoms, const MdOptions& o) {
  if (o.steps > 0) return o.steps;
  return atoms <= 8000 ? 200 : atoms <= 64000 ? 100 : 20;
}

BenchRow runOne(int cells, const MdOptions& o) {
  const BuiltSystem b = fccArgon(cells);
  Timers timers;
  CpuBackend backend(benchConfig(o), b.system, &timers);
  State s;
  s.positions = b.positions;
  s.velocities = maxwellBoltzmannVelocities(b.system, 120.0, 1);
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

/// One row of the table, and of the CSV when it is open.
void printRow(const BenchRow& r, double dt, std::ofstream& csv) {
  const double msPerStep = 1e3 * r.seconds / double(r.steps);
  const double nsPerDay = dt / units::kPsPerNs * units::kSecondsPerDay / (msPerStep * 1e-3);
  const double pct = 100.0 / r.seconds;
  std::printf("%9zu %7d %6lld %10.3f %9.2f %9.1f %10.1f %10.1f %7lld\n", r.atoms, r.threads, r.steps, msPerStep,
              nsPerDay, r.neighbor * pct, r.nonbonded * pct, r.integrate * pct, r.builds);
  std::fflush(stdout);
  if (csv)
    csv << r.atoms << ',' << r.threads << ',' << r.steps << ',' << msPerStep << ',' << nsPerDay << ','
        << r.neighbor * pct << ',' << r.nonbonded * pct << ',' << r.integrate * pct << ',' << r.builds << '\n';
}

}  // namespace

int benchMd(const std::vector<std::string>& args) {
  MdOptions o;
  if (!parseOptions(args, o)) return 0;
  std::ofstream csv = BenchOptions::openCsv(o.csv);
  if (csv) csv << "atoms,threads,steps,ms_per_step,ns_per_day,neighbor_pct,nonbonded_pct,integrate_pct,builds\n";
  std::printf("faraday bench md: CPU backend, fcc argon liquid (21.1 /nm^3), LJ cutoff 1.0 nm + buffer 0.1 nm, "
              "velocity Verlet, dt %.4g ps\n",
              o.dt);
  std::printf("%9s %7s %6s %10s %9s %9s %10s %10s %7s\n", "atoms", "threads", "steps", "ms/step", "ns/day",
              "neigh%", "nonbond%", "integr%", "builds");
  for (int c : o.cells) printRow(runOne(c, o), o.dt, csv);
  return 0;
}

}  // namespace faraday
