// `faraday bench md`: whole-step MD throughput of the NaCl melt (PME) and liquid argon (LJ)
// at several sizes, and of the systems of given configs (molecules from a topology: a solvated
// protein, water boxes), on the GPU (the whole step on the device) and the CPU backend, with
// the time per phase, the GPU tile list's efficiency and its kernels alone. --gro-dir writes
// every benchmarked system as a .gro, so that tools run on exactly the same systems (the
// OpenMM anchor, ../shared/tools/openmm_anchor.py).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "engine/formats/Coordinates.h"
#include "engine/backends/CpuBackend.h"
#include "core/Error.h"
#include "engine/setup/FccLattice.h"
#include "engine/formats/GroFile.h"
#include "core/Units.h"
#include "engine/bench/Bench.h"
#include "engine/bench/BenchOptions.h"
#include "integrators/InitialVelocities.h"
#include "kernels/common/Device.h"
#if defined(FARADAY_HAVE_CUDA)
#include "engine/backends/CudaBackend.h"
#endif
#include "engine/backends/BackendFactory.h"
#include "engine/config/ConfigKeys.h"
#include "engine/config/KernelParams.h"
#include "engine/config/LoadConfig.h"
#include "engine/run/Barostat.h"
#include "engine/setup/ConstraintSetup.h"
#include "engine/setup/SystemSetup.h"

namespace faraday {
namespace {

struct MdOptions {
  std::string nacl = "4096,32768,110592,1000000";  ///< ions: 8 c^3 for c rock-salt cells per edge
  std::string argon = "4000,256000";                ///< atoms: 4 c^3 for c fcc cells per edge
  std::string platforms = "cuda";                   ///< cuda, cpu or both
  long long steps = 0;                              ///< 0: by size
  int threads = 0;                                  ///< CPU backend threads (0 = all cores)
  std::string groDir;                               ///< write the systems here ("" = no)
  std::string csv = "md_bench.csv";
  bool kernels = true;                              ///< the GPU list build and tile kernel alone
  std::string configs;                              ///< config files whose systems are benchmarked too
  std::string buffer;                               ///< pair-list buffers: nm or auto ("": auto, configs their own)
  std::vector<double> buffers;                      ///< parsed: nm, kAutoBuffer, or kOwnBuffer (the option empty)
  std::vector<long long> naclSizes, argonSizes;     ///< parsed from nacl, argon
  std::vector<std::string> configList;              ///< parsed from configs
  std::string devices = "1";                        ///< GPU counts, each a run on GPUs 0 .. count - 1
  std::vector<int> deviceCounts;                    ///< parsed from devices
  std::string pmeSplit = "auto";                    ///< run.pme_split on several GPUs
  std::string gpuSum = "auto";                      ///< run.gpu_sum on several GPUs
  std::string updateSplit = "auto";                 ///< run.update_split on several GPUs
};

/// --buffer entries: auto (nonbonded.buffer = auto), and, with the option empty, auto for the
/// NaCl melt and argon and each config's own.
constexpr double kAutoBuffer = -1, kOwnBuffer = -2;

/// The non-empty items of a comma-separated list.
std::vector<std::string> commaItems(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) items.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return items;
}

/// Option `option`'s value stored into `config` as the config key `key` reads it (Error
/// naming the option for a value the key does not allow).
void setAsKey(Config& config, const char* option, const char* key, const std::string& value) {
  try {
    config::findKey(key)->set(config, config::Value{value, {}});
  } catch (const config::BadValue& e) {
    throw keyError(option, e.what);
  }
}

/// Option `option`'s value checked as the config key `key` checks it (its allowed values).
void checkAsKey(const char* option, const char* key, const std::string& value) {
  Config scratch;
  setAsKey(scratch, option, key, value);
}

bool parseOptions(const std::vector<std::string>& args, MdOptions& o) {
  BenchOptions parser("md",
                      "Whole-step MD throughput (ns/day) of the NaCl melt (PME, Langevin 1300 K, dt 2 fs) and liquid\n"
                      "argon (LJ, Langevin 86.64 K, dt 4 fs) as in systems/, per size and platform, with the time per\n"
                      "phase and the GPU tile list's useful-pair fraction and kernel times.");
  parser.add("nacl", o.nacl, "ions, comma-separated", "NaCl melt sizes, each 8 c^3 (\"\" = none)");
  parser.add("argon", o.argon, "atoms, comma-separated", "argon sizes, each 4 c^3 (\"\" = none)");
  parser.add("platforms", o.platforms, "", "cuda, cpu or both");
  parser.add("configs", o.configs, "paths, comma-separated",
             "also the system of each config (its topology, integrator and electrostatics; \"\" = none)");
  parser.add("steps", o.steps, "steps", "timed steps per system (0: by size)");
  parser.add("threads", o.threads, "", "OpenMP threads of the CPU backend (0 = all cores)");
  parser.add("gro-dir", o.groDir, "path", "write each system as nacl_N.gro / argon_N.gro here (\"\" = no)");
  parser.add("kernels", o.kernels, "0 or 1", "also time the GPU list build, tile kernel, constraint and integrator kernels alone");
  parser.add("buffer", o.buffer, "nm or auto",
             "pair-list buffer beyond the cutoff (nonbonded.buffer); \"\": auto, and each config's own; "
             "several, comma-separated: each system at each");
  parser.add("csv", o.csv, "path", "CSV output (\"\" = none)");
  parser.add("devices", o.devices, "GPU counts, comma-separated",
             "each CUDA system on GPUs 0 .. N - 1 for every N (1,2,4: one GPU against two and four)");
  parser.add("pme-split", o.pmeSplit, "auto, slabs, slabs-nccl or first", "PME on several GPUs (run.pme_split)");
  parser.add("gpu-sum", o.gpuSum, "auto or nccl", "the forces' sum on several GPUs (run.gpu_sum)");
  parser.add("update-split", o.updateSplit, "auto, on or off", "each GPU updates its own atoms (run.update_split)");
  if (!parser.parse(args, std::cout)) return false;
  checkAsKey("pme-split", "run.pme_split", o.pmeSplit);
  checkAsKey("gpu-sum", "run.gpu_sum", o.gpuSum);
  checkAsKey("update-split", "run.update_split", o.updateSplit);
  for (double v : parser.numberList("devices", o.devices)) {
    if (!(v >= 1 && v == std::floor(v))) throw keyError("devices", "GPU counts are whole numbers >= 1");
    o.deviceCounts.push_back(int(v));
  }
  if (o.buffer.empty()) o.buffers = {kOwnBuffer};
  for (const std::string& item : commaItems(o.buffer)) {
    if (item == "auto") {
      o.buffers.push_back(kAutoBuffer);
      continue;
    }
    const double nm = parser.numberList("buffer", item).at(0);
    if (!(nm >= 0 && nm < 1)) throw Error("faraday bench md: --buffer: each entry must be auto or in [0, 1) nm");
    o.buffers.push_back(nm);
  }
  if (o.buffers.empty()) throw Error("faraday bench md: --buffer: no entry");
  parser.checkPlatforms(o.platforms);
  if (!o.nacl.empty())
    for (double v : parser.numberList("nacl", o.nacl)) o.naclSizes.push_back((long long)v);
  if (!o.argon.empty())
    for (double v : parser.numberList("argon", o.argon)) o.argonSizes.push_back((long long)v);
  o.configList = commaItems(o.configs);
  return true;
}

struct BenchSystem {
  std::string name;  ///< nacl, argon, or a config's folder name
  BuiltSystem built;
  std::vector<Vec3> velocities;  ///< from the coordinate file (configs), else empty: Maxwell-Boltzmann
  Config config;
  double temperature = 0;
};

/// Cells per edge c with count = perCell c^3, or an Error naming the option.
int cellsFor(long long count, int perCell, const char* option) {
  const int c = int(std::lround(std::cbrt(double(count) / perCell)));
  if (c < 1 || (long long)perCell * c * c * c != count)
    throw Error(std::string("faraday bench md: --") + option + " " + std::to_string(count) + " is not " +
                std::to_string(perCell) + " c^3");
  return c;
}

/// The parameters of systems/nacl_melt/sim.cfg and systems/argon/sim.cfg.
BenchSystem makeSystem(const std::string& name, long long count, double buffer) {
  BenchSystem s;
  s.name = name;
  Config& c = s.config;
  c.nonbonded.cutoff = 1.0;
  c.nonbonded.buffer = buffer;
  c.nonbonded.ljShift = true;
  c.nonbonded.dispersionCorrection = true;
  c.integrator.type = IntegratorType::Langevin;
  c.integrator.friction = 1.0;
  c.integrator.seed = 2026;
  if (name == "nacl") {
    s.built = rockSalt(cellsFor(count, 8, "nacl"));
    c.electrostatics.method = ElectrostaticsMethod::Pme;
    c.electrostatics.ewaldRtol = 1e-5;
    c.electrostatics.fourierSpacing = 0.12;
    c.electrostatics.pmeOrder = 4;
    c.integrator.dt = 0.002;
    s.temperature = 1300;
  } else {
    s.built = fccArgon(cellsFor(count, 4, "argon"), 0.5719);
    s.built.system.types[0].epsilon = 0.99774;
    c.electrostatics.method = ElectrostaticsMethod::None;
    c.integrator.dt = 0.004;
    s.temperature = 86.6404;
  }
  c.integrator.temperature = s.temperature;
  c.system.temperature = s.temperature;
  return s;
}

struct Row {
  std::string system, platform;
  std::size_t atoms = 0;
  double bufferNm = 0;  ///< the pair-list buffer the run used
  long long steps = 0, builds = 0;
  double seconds = 0;
  std::map<std::string, double> phaseMs;  ///< ms per step
  double buildMs = 0, tilesMs = 0, constraintKernelsMs = 0, halvesMs = 0, pairsEvaluated = 0, pairsInCutoff = 0;
  long long tiles = 0;
  std::string barostat;  ///< the barostat's summary of the timed run ("" without one)
};

long long stepsFor(std::size_t atoms, bool gpu, const MdOptions& o) {
  if (o.steps > 0) return o.steps;
  if (gpu) return atoms <= 8000 ? 5000 : atoms <= 64000 ? 2000 : atoms <= 300000 ? 1000 : 300;
  return atoms <= 8000 ? 100 : atoms <= 64000 ? 20 : 5;
}

/// A config's system with its settings (the pair-list buffer `buffer`, unless kOwnBuffer).
BenchSystem configSystem(const std::string& file, double buffer) {
  BenchSystem s;
  s.config = loadConfig(file, {});
  if (buffer != kOwnBuffer) s.config.nonbonded.buffer = buffer;
  const Setup setup = buildSetup(s.config);
  s.name = std::filesystem::absolute(file).parent_path().filename().string();
  s.built.system = setup.system;
  s.built.positions = setup.state.positions;
  if (setup.velocitiesFromFile) s.velocities = setup.state.velocities;
  s.temperature = s.config.integrator.type == IntegratorType::Langevin ? s.config.integrator.temperature : s.config.system.temperature;
  return s;
}

State startState(const BenchSystem& s) {
  State st;
  st.positions = s.built.positions;
  st.velocities = !s.velocities.empty()
                      ? s.velocities
                      : maxwellBoltzmannVelocities(s.built.system, s.temperature, 2026, s.config.integrator.type);
  st.box = s.built.system.box;
  constrainInitialState(s.config, s.built.system, st, s.velocities.empty() ? s.temperature : -1.0);
  return st;
}

/// `steps` steps with energies only on the last (as a run that reports rarely) and, with a
/// barostat, on the step before each of its volume moves, as a run takes them.
double timeSteps(Backend& backend, long long steps, MonteCarloBarostat* barostat = nullptr, Box* box = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  for (long long k = 1; k <= steps; ++k) {
    const bool move = barostat && k % barostat->interval() == 0;
    backend.advance(move || k == steps);
    if (move) barostat->attempt(backend, *box);
  }
  backend.energies();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A run's platform column: cuda, cpu, or cuda and the GPU count (cuda2) on several GPUs.
std::string platformLabel(const std::string& platform, int gpus) {
  return gpus > 1 ? platform + std::to_string(gpus) : platform;
}

Row runOne(const BenchSystem& s, const std::string& platform, const MdOptions& o, int gpus = 1) {
  Config config = s.config;
  config.run.platform = platform == "cuda" ? Platform::Cuda : Platform::Cpu;
  config.run.threads = platform == "cpu" ? o.threads : 1;
  for (int d = 0; d < gpus && gpus > 1; ++d) config.run.devices += (d ? "," : "") + std::to_string(d);
  setAsKey(config, "pme-split", "run.pme_split", o.pmeSplit);
  setAsKey(config, "gpu-sum", "run.gpu_sum", o.gpuSum);
  setAsKey(config, "update-split", "run.update_split", o.updateSplit);
  const bool gpu = platform == "cuda";
  Row r;
  r.system = s.name;
  r.platform = platformLabel(platform, gpus);
  r.atoms = s.built.system.size();
  r.bufferNm = pairListBuffer(config, s.built.system, gpu);
  r.steps = stepsFor(r.atoms, gpu, o);
  // Throughput without timers (no event nodes in the GPU graphs).
  {
    auto backend = makeBackend(config, s.built.system, nullptr);
    const State start = startState(s);
    Box box = start.box;
    backend->setState(start, {});
    backend->computeForces();
    const std::unique_ptr<MonteCarloBarostat> barostat = makeBarostat(config, s.built.system);
    timeSteps(*backend, gpu ? 200 : 2, barostat.get(), &box);  // warm-up
    const long long builds = backend->neighborListBuilds();
    r.seconds = timeSteps(*backend, r.steps, barostat.get(), &box);
    if (barostat) r.barostat = barostat->summary();
    r.builds = backend->neighborListBuilds() - builds;
  }
  // The time per phase from a second, timed run.
  Timers timers;
  auto backend = makeBackend(config, s.built.system, &timers);
  backend->setState(startState(s), {});
  backend->computeForces();
  const long long phaseSteps = gpu ? std::min<long long>(r.steps, 500) : std::max<long long>(2, r.steps / 2);
  timeSteps(*backend, gpu ? 100 : 1);
  timers.clear();
  timeSteps(*backend, phaseSteps);
  State st;
  backend->getState(st);  // collects the last samples
  for (const auto& [name, e] : timers.ordered())
    if (name != "output") r.phaseMs[name] = 1e3 * e.seconds / double(phaseSteps);
#if defined(FARADAY_HAVE_CUDA)
  if (gpu && o.kernels) {
    auto* cuda = dynamic_cast<CudaBackend*>(backend.get());
    if (!cuda) return r;  // several GPUs: the step as a whole
    const CudaBackend::KernelTimes k = cuda->timeKernels(20);
    r.buildMs = k.buildMs;
    r.tilesMs = k.tilesMs;
    r.constraintKernelsMs = k.constraintsMs;
    r.halvesMs = k.firstHalfMs + k.secondHalfMs;
    const TileListStats t = cuda->tileListStats();
    r.tiles = t.tiles;
    r.pairsEvaluated = double(t.pairsEvaluated);
    r.pairsInCutoff = double(t.pairsInCutoff);
  }
#endif
  return r;
}

double nsPerDay(const Row& r, double dt) { return dt * double(r.steps) / r.seconds * units::kSecondsPerDay / 1e3; }

void printRow(const Row& r, double dt, std::ofstream& csv) {
  const double ms = 1e3 * r.seconds / double(r.steps);
  auto phase = [&](const char* p) {
    auto it = r.phaseMs.find(p);
    return it == r.phaseMs.end() ? 0.0 : it->second;
  };
  // The GPU's "pme" row holds its phases (pme.*); the CPU path has the phases alone.
  double pme = phase("pme");
  if (r.phaseMs.count("pme") == 0)
    for (const auto& [name, v] : r.phaseMs)
      if (name.rfind("pme.", 0) == 0) pme += v;
  const double useful = r.pairsEvaluated > 0 ? r.pairsInCutoff / r.pairsEvaluated : 0;
  std::printf("%-8s %8zu %5.3f %-5s %6lld %9.4f %10.1f %8.1f | %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f",
              r.system.c_str(), r.atoms, r.bufferNm, r.platform.c_str(), r.steps, ms, nsPerDay(r, dt),
              1000.0 * double(r.builds) / double(r.steps),
              phase("neighbor"), phase("nonbonded"), phase("bonded"), phase("exclusion correction"), pme,
              phase("integrate"), phase("constraints"), phase("gpu sum"));
  if (r.tiles > 0)
    std::printf(" | %8.4f %8.4f %6.1f%% %9.3g %9.3g %8.4f %8.4f", r.buildMs, r.tilesMs, 100 * useful,
                r.pairsEvaluated / (1e-3 * r.tilesMs), r.pairsInCutoff / (1e-3 * r.tilesMs), r.constraintKernelsMs,
                r.halvesMs);
  std::printf("\n");
  if (!r.barostat.empty()) std::printf("  %s%s", r.barostat.c_str(), r.barostat.back() == '\n' ? "" : "\n");
  std::fflush(stdout);
  if (csv)
    csv << r.system << ',' << r.atoms << ',' << r.platform << ',' << r.steps << ',' << ms << ',' << nsPerDay(r, dt)
        << ',' << 1000.0 * double(r.builds) / double(r.steps) << ',' << phase("neighbor") << ','
        << phase("nonbonded") << ',' << phase("bonded") << ',' << phase("exclusion correction") << ',' << pme << ','
        << phase("integrate") << ',' << phase("constraints") << ',' << phase("gpu sum") << ',' << r.buildMs << ',' << r.tilesMs
        << ',' << (long long)r.pairsEvaluated << ',' << (long long)r.pairsInCutoff << ',' << useful << ','
        << r.constraintKernelsMs << ',' << r.halvesMs << ',' << r.bufferNm << '\n';
}

}  // namespace

int benchMd(const std::vector<std::string>& args) {
  MdOptions o;
  if (!parseOptions(args, o)) return 0;
  std::vector<std::string> platforms;
  // Without a GPU the CPU path still measures: it runs alone, and the first line says why.
  const bool gpu = o.platforms != "cpu" && cudaDeviceCount() > 0;
  if (o.platforms != "cpu" && !gpu)
    std::printf("faraday bench md: no CUDA device (%s): the CPU path alone\n", cudaDeviceDescription().c_str());
  if (gpu) platforms.push_back("cuda");
  if (o.platforms != "cuda" || !gpu) platforms.push_back("cpu");
  std::ofstream csv = BenchOptions::openCsv(o.csv);
  if (csv)
    csv << "system,atoms,platform,steps,ms_per_step,ns_per_day,builds_per_1000_steps,neighbor_ms,nonbonded_ms,"
           "bonded_ms,exclusion_ms,pme_ms,integrate_ms,constraints_ms,gpu_sum_ms,list_build_ms,tile_kernel_ms,pairs_evaluated,pairs_in_cutoff,useful_fraction,constraint_kernels_ms,integrator_kernels_ms,buffer_nm\n";
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  std::printf("faraday bench md: Langevin BAOAB, cutoff 1.0 nm + buffer %s, dispersion correction; NaCl: PME "
              "(rtol 1e-5, 0.12 nm, order 4), dt 2 fs; argon: dt 4 fs. CPU backend: %d threads.\n"
              "Phase columns are ms per step (GPU: CUDA events around the phases of every 10th step).\n",
              o.buffer.empty() ? "auto (configs: their own)" : (o.buffer + " nm").c_str(), threads);
  std::printf("%-8s %8s %5s %-5s %6s %9s %10s %8s | %8s %8s %8s %8s %8s %8s %8s %8s | %8s %8s %7s %9s %9s %8s %8s\n",
              "system", "atoms", "buf", "plat", "steps", "ms/step", "ns/day", "builds/k", "neighbor", "nonbond", "bonded",
              "excl", "pme", "integr", "constr", "gpu sum", "build ms", "tiles ms", "useful", "pairs/s", "useful/s", "cons ms", "integ ms");
  // A system whose dynamics fail (StepFailure: constraints that cannot be met) gets a line
  // saying so and no CSV row; the others still run, and the bench exits non-zero at the end.
  int failed = 0;
  const auto bench = [&](const BenchSystem& s, const std::string& groName) {
    if (!o.groDir.empty()) {
      std::filesystem::create_directories(o.groDir);
      State st = startState(s);
      writeGro(std::filesystem::path(o.groDir) / groName, coordinatesOf(s.built.system, st, s.name + " benchmark start"));
    }
    for (const std::string& p : platforms)
      for (int gpus : p == "cuda" ? o.deviceCounts : std::vector<int>{1}) {
        try {
          printRow(runOne(s, p, o, gpus), s.config.integrator.dt, csv);
        } catch (const StepFailure& e) {
          ++failed;
          std::printf("%-8s %8zu %5s %-5s failed: %s\n", s.name.c_str(), s.built.system.size(), "",
                      platformLabel(p, gpus).c_str(), e.what());
          std::fflush(stdout);
        }
      }
  };
  for (const double buffer : o.buffers) {
    for (const std::string system : {"nacl", "argon"})
      for (long long count : system == "nacl" ? o.naclSizes : o.argonSizes)
        bench(makeSystem(system, count, buffer == kOwnBuffer ? kAutoBuffer : buffer),
              system + "_" + std::to_string(count) + ".gro");
    for (const std::string& file : o.configList) {
      const BenchSystem s = configSystem(file, buffer);
      bench(s, s.name + "_" + std::to_string(s.built.system.size()) + ".gro");
    }
  }
  if (failed > 0)
    throw Error("faraday bench md: " + std::to_string(failed) + " run" + (failed > 1 ? "s" : "") +
                " stopped (see the table); the other rows are complete");
  return 0;
}

}  // namespace faraday
