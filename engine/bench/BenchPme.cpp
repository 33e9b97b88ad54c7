#include "engine/bench/BenchPme.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "engine/config/Config.h"
#include "core/Error.h"
#include "engine/config/KernelParams.h"
#include "core/Units.h"
#include "engine/bench/BenchOptions.h"
#include "kernels/common/Device.h"
#include "kernels/neighbor/NeighborList.h"
#include "kernels/nonbonded/CpuNonbonded.h"
#include "kernels/pme/Electrostatics.h"
#include "kernels/pme/Ewald.h"

namespace faraday {
namespace {

const std::vector<std::string> kPhases = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                                          "pme.convolve", "pme.fft_inverse", "pme.gather"};

struct Options {
  std::vector<int> sizes{4000, 32000, 256000};
  double spacing = 0.12, cutoff = 1.0, rtol = 1e-5;
  int order = 4, repeats = 5, warmup = 1, threads = 0;
  std::string platforms = "both", csv = "pme_bench.csv";
  bool error = true, pairs = true;
};

/// The options of `faraday bench pme`; false when --help was given.
bool parse(const std::vector<std::string>& args, Options& o) {
  std::string sizes = "4000,32000,256000";
  bool noError = false, noPairs = false;
  BenchOptions parser("pme",
                      "Times every PME phase on the CPU (FFTW) and the GPU (cuFFT) for random neutral ion systems at\n"
                      "the NaCl melt density: median time per phase and platform with the speedup, a CSV, and the\n"
                      "relative RMS force error of PME against the plain Ewald sum for the smallest size.");
  parser.add("sizes", sizes, "ions, comma-separated", "system sizes (rounded to even, 2..5e7)");
  parser.add("spacing", o.spacing, "nm", "PME grid spacing");
  parser.add("order", o.order, "", "B-spline order (4..8)");
  parser.add("cutoff", o.cutoff, "nm", "real-space cutoff (sets beta with --rtol)");
  parser.add("rtol", o.rtol, "", "ewald_rtol: erfc(beta cutoff)");
  parser.add("repeats", o.repeats, "evaluations", "timed evaluations per size and platform (median reported)");
  parser.add("warmup", o.warmup, "evaluations", "untimed evaluations first");
  parser.add("platforms", o.platforms, "", "cpu | cuda | both (both = cuda only when a device is usable)");
  parser.add("threads", o.threads, "", "CPU threads (0 = all)");
  parser.add("csv", o.csv, "path", "CSV output (\"\" = none)");
  parser.flag("no-error", noError, "skip the PME-vs-Ewald force error of the smallest size");
  parser.flag("no-pairs", noPairs, "skip timing the real-space pair loop");
  if (!parser.parse(args, std::cout)) return false;
  o.error = !noError;
  o.pairs = !noPairs;
  o.repeats = std::max(1, o.repeats);
  o.warmup = std::max(0, o.warmup);
  o.sizes.clear();
  for (double n : parser.numberList("sizes", sizes)) {
    if (!(n >= 2 && n <= 5e7)) throw Error("faraday bench pme: --sizes: " + std::to_string(n) + " outside 2..5e7");
    o.sizes.push_back(int(n) / 2 * 2);
  }
  parser.checkPlatforms(o.platforms);
  return true;
}

/// Joung-Cheatham Na+/Cl- types (LJ only matters for the pair-loop timing).
std::vector<AtomType> ionTypes(bool withLj) {
  AtomType na{"NA", 22.98977, 1.0, 0.2159538, withLj ? 1.4754532 : 0.0};
  AtomType cl{"CL", 35.453, -1.0, 0.4830453, withLj ? 0.0534924 : 0.0};
  return {na, cl};
}

/// n ions (n/2 of each sign, signs shuffled) on the sites of a cubic lattice at the NaCl
/// melt density 1.55 g/cm^3, each displaced at random by up to a quarter of the site
/// spacing: random, neutral, O(n) to build, and no two ions closer than half a spacing.
struct Sample {
  System system;
  std::vector<Vec3> positions;
};

Sample randomMelt(int n, unsigned seed, bool withLj) {
  const double ionsPerNm3 = 2.0 * 1.55e-21 * units::kAvogadro / 58.443;
  const double edge = std::cbrt(n / ionsPerNm3);
  const int m = int(std::ceil(std::cbrt(double(n))));
  const double d = edge / m;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> jitter(-0.25 * d, 0.25 * d);
  std::vector<int> sites(std::size_t(m) * m * m);
  for (std::size_t i = 0; i < sites.size(); ++i) sites[i] = int(i);
  std::shuffle(sites.begin(), sites.end(), rng);
  Sample s;
  s.system.types = ionTypes(withLj);
  s.system.box = Box::rectangular(edge, edge, edge);
  for (int i = 0; i < n; ++i) {
    const int site = sites[i], ix = site / (m * m), iy = (site / m) % m, iz = site % m;
    const Vec3 r{(ix + 0.5) * d + jitter(rng), (iy + 0.5) * d + jitter(rng), (iz + 0.5) * d + jitter(rng)};
    const int t = i % 2;
    s.positions.push_back(s.system.box.wrap(r));
    s.system.type.push_back(t);
    s.system.charge.push_back(s.system.types[t].charge);
    s.system.mass.push_back(s.system.types[t].mass);
    s.system.atomName.push_back(s.system.types[t].name);
    s.system.residueName.push_back(s.system.types[t].name);
    s.system.residueId.push_back(i + 1);
  }
  return s;
}

EwaldSetup setupFor(const Options& o, const Box& box) {
  Config c;
  c.nonbonded.cutoff = o.cutoff;
  c.electrostatics.method = ElectrostaticsMethod::Pme;
  c.electrostatics.ewaldRtol = o.rtol;
  c.electrostatics.fourierSpacing = o.spacing;
  c.electrostatics.pmeOrder = o.order;
  return chooseEwaldSetup(c, box);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : 0.5 * (v[k - 1] + v[k]);
}

/// Median seconds per phase (and "total", "sum of phases", "(a) evaluation", "(b) whole
/// compute()") over `repeats` evaluations after `warmup`.
std::map<std::string, double> timePme(ReciprocalSolver& solver, const Sample& s, int warmup, int repeats) {
  std::vector<Vec3> forces(s.positions.size());
  for (int w = 0; w < warmup; ++w) solver.compute(s.positions, s.system.charge, s.system.box, forces, nullptr);
  std::map<std::string, std::vector<double>> samples;
  for (int r = 0; r < repeats; ++r) {
    Timers timers;
    const auto t0 = std::chrono::steady_clock::now();
    solver.compute(s.positions, s.system.charge, s.system.box, forces, &timers);
    samples["total"].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    double evaluation = 0;
    for (const auto& [name, entry] : timers.ordered()) {
      samples[name].push_back(entry.seconds);
      if (std::find(kPhases.begin(), kPhases.end(), name) != kPhases.end()) evaluation += entry.seconds;
    }
    // The six phases (on the GPU, back-to-back event intervals from the first kernel to the
    // last, each phase boundary an event node of the timed graph); (b) the whole compute()
    // call, wall clock: host staging, transfers and waits included.
    samples["sum of phases"].push_back(evaluation);
    samples["(b) whole compute()"].push_back(samples["total"].back());
  }
  // (a) the evaluation alone, data resident on the device: where the solver measures it (the
  // GPU: its untimed graph, from launch to the last kernel's end), from as many calls without
  // timers; else the sum of the phases.
  for (int r = 0; r < repeats; ++r) {
    solver.compute(s.positions, s.system.charge, s.system.box, forces, nullptr);
    const double seconds = solver.lastEvaluationSeconds();
    if (seconds < 0) {
      samples["(a) evaluation"] = samples["sum of phases"];
      break;
    }
    samples["(a) evaluation"].push_back(seconds);
  }
  std::map<std::string, double> out;
  for (const auto& [name, v] : samples) out[name] = median(v);
  return out;
}

double timePairs(const Sample& s, const Options& o, double beta, int threads) {
  NeighborList list(o.cutoff, 0.1, threads);
  list.build(s.positions, s.system.box);
  NonbondedOptions no;
  no.cutoff = o.cutoff;
  no.ewaldBeta = beta;
  no.threads = threads;
  CpuNonbonded nb(s.system, no);
  std::vector<Vec3> forces;
  nb.compute(s.positions, s.system.box, list, forces);
  std::vector<double> t;
  for (int r = 0; r < o.repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    nb.compute(s.positions, s.system.box, list, forces);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

/// RMS |F_PME,rec - F_Ewald,rec| / RMS |F_elec| (F_elec = real + Ewald reciprocal).
double forceError(const Options& o, int n, int threads) {
  const Sample s = randomMelt(n, 99, /*withLj=*/false);
  const EwaldSetup setup = setupFor(o, s.system.box);
  const std::size_t na = s.positions.size();
  std::vector<Vec3> pme(na), ewald(na), real;
  auto solver = makeReciprocalSolver(setup, s.system, false, threads);
  solver->compute(s.positions, s.system.charge, s.system.box, pme, nullptr);
  EwaldSum reference(setup.beta, 1e-10, threads);
  reference.compute(s.positions, s.system.charge, s.system.box, ewald, nullptr);
  NeighborList list(o.cutoff, 0.0, threads);
  list.build(s.positions, s.system.box);
  NonbondedOptions no;
  no.cutoff = o.cutoff;
  no.ewaldBeta = setup.beta;
  no.threads = threads;
  CpuNonbonded nb(s.system, no);
  nb.compute(s.positions, s.system.box, list, real);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < na; ++i) {
    num += norm2(pme[i] - ewald[i]);
    den += norm2(real[i] + ewald[i]);
  }
  return std::sqrt(num / den);
}

using PhaseTimes = std::map<std::string, std::map<std::string, double>>;              // platform -> phase -> s
using PlatformResults = std::map<std::string, std::pair<double, std::vector<Vec3>>>;  // platform -> energy, forces

/// The platforms to time: cpu unless only cuda was asked for; cuda when asked for, or with
/// "both" when a device is usable (else a line saying why not).
std::vector<std::string> selectPlatforms(const Options& o) {
  const bool cudaUsable = builtWithCuda() && cudaDeviceCount() > 0;
  std::vector<std::string> platforms;
  if (o.platforms != "cuda") platforms.push_back("cpu");
  if (o.platforms == "cuda" || (o.platforms == "both" && cudaUsable)) platforms.push_back("cuda");
  if (o.platforms == "both" && !cudaUsable) std::cout << "cuda: not measured (" << cudaDeviceDescription() << ")\n";
  return platforms;
}

/// One CSV row of a size: atoms, grid, order, spacing, platform, phase and value.
struct SizeCsv {
  std::ofstream& csv;
  const Options& o;
  int n;
  std::array<int, 3> g;

  void operator()(const std::string& plat, const std::string& name, double value) const {
    if (csv)
      csv << n << ',' << g[0] << 'x' << g[1] << 'x' << g[2] << ',' << o.order << ',' << o.spacing << ',' << plat
          << ",\"" << name << "\"," << value << '\n';
  }
};

/// Every platform's phase times and its energy and forces for one sample; a platform that
/// fails is reported and left out.
void measurePlatforms(const Options& o, const std::vector<std::string>& platforms, const Sample& s,
                      const EwaldSetup& setup, int threads, PhaseTimes& times, PlatformResults& results) {
  for (const std::string& p : platforms) {
    try {
      auto solver = makeReciprocalSolver(setup, s.system, p == "cuda", threads);
      times[p] = timePme(*solver, s, o.warmup, o.repeats);
      auto& [energy, forces] = results[p];
      forces.assign(s.positions.size(), Vec3{});
      energy = solver->compute(s.positions, s.system.charge, s.system.box, forces, nullptr).energy;
    } catch (const Error& e) {
      std::printf("  %s: %s\n", p.c_str(), e.what());
    }
  }
}

/// The table of phases, cpu and cuda milliseconds and the speedup, each value also a CSV row.
void printPhases(PhaseTimes& times, const SizeCsv& csvRow) {
  std::printf("  %-22s %12s %12s %10s\n", "phase", "cpu (ms)", "cuda (ms)", "speedup");
  std::vector<std::string> rows = kPhases;
  rows.insert(rows.end(), {"pme.transfer", "sum of phases", "(a) evaluation", "(b) whole compute()"});
  for (const std::string& ph : rows) {
    const double c = times.count("cpu") && times["cpu"].count(ph) ? 1e3 * times["cpu"][ph] : -1;
    const double d = times.count("cuda") && times["cuda"].count(ph) ? 1e3 * times["cuda"][ph] : -1;
    char cs[32] = "-", ds[32] = "-", sp[32] = "-";
    if (c >= 0) std::snprintf(cs, sizeof cs, "%.3f", c);
    if (d >= 0) std::snprintf(ds, sizeof ds, "%.3f", d);
    if (c > 0 && d > 0) std::snprintf(sp, sizeof sp, "%.1fx", c / d);
    std::printf("  %-22s %12s %12s %10s\n", ph.c_str(), cs, ds, sp);
    for (const auto& [plat, val] : std::map<std::string, double>{{"cpu", c}, {"cuda", d}})
      if (val >= 0) csvRow(plat, ph, val);
  }
}

/// The GPU against the CPU path, same parameters: |dE| / |E| and RMS |dF| / RMS |F|.
void printCudaVsCpu(PlatformResults& results, const SizeCsv& csvRow) {
  const auto& [eCpu, fCpu] = results["cpu"];
  const auto& [eCuda, fCuda] = results["cuda"];
  double num = 0, den = 0;
  for (std::size_t i = 0; i < fCpu.size(); ++i) {
    num += norm2(fCuda[i] - fCpu[i]);
    den += norm2(fCpu[i]);
  }
  const double eRel = std::fabs(eCuda - eCpu) / std::fabs(eCpu), fRel = std::sqrt(num / den);
  std::printf("  cuda vs cpu: energy rel %.2e, force rel RMS %.2e\n", eRel, fRel);
  csvRow("cuda", "energy_rel_vs_cpu", eRel);
  csvRow("cuda", "force_rel_rms_vs_cpu", fRel);
}

/// One system size: its phases timed on every platform, the pair loop on the CPU, the table.
void benchSize(const Options& o, const std::vector<std::string>& platforms, int n, int threads, std::ofstream& csv) {
  const Sample s = randomMelt(n, 1234 + unsigned(n), /*withLj=*/true);
  const EwaldSetup setup = setupFor(o, s.system.box);
  const auto& g = setup.pme.grid;
  PhaseTimes times;
  PlatformResults results;
  measurePlatforms(o, platforms, s, setup, threads, times, results);
  double pairSeconds = -1;
  if (o.pairs && std::find(platforms.begin(), platforms.end(), "cpu") != platforms.end())
    pairSeconds = timePairs(s, o, setup.beta, threads);

  const SizeCsv csvRow{csv, o, n, g};
  const Vec3 L = s.system.box.diagonal();
  std::printf("\n%d ions, box %.3f nm, grid %dx%dx%d\n", n, L.x, g[0], g[1], g[2]);
  printPhases(times, csvRow);
  for (const auto& [plat, t] : times)
    std::printf("  %7d %-4s grid %dx%dx%d: (a) evaluation %9.4f ms, (b) whole compute() %9.4f ms\n", n,
                plat.c_str(), g[0], g[1], g[2], 1e3 * t.at("(a) evaluation"), 1e3 * t.at("(b) whole compute()"));
  if (results.count("cpu") && results.count("cuda")) printCudaVsCpu(results, csvRow);
  if (pairSeconds >= 0) {
    std::printf("  %-18s %12.3f %12s %10s\n", "real-space pairs", 1e3 * pairSeconds, "-", "-");
    if (csv) csv << n << ",,,," << "cpu,nonbonded," << 1e3 * pairSeconds << '\n';
  }
}

}  // namespace

int benchPme(const std::vector<std::string>& args) {
  Options o;
  if (!parse(args, o)) return 0;
  const std::vector<std::string> platforms = selectPlatforms(o);
  const int threads = o.threads > 0 ? o.threads : 0;

  std::ofstream csv = BenchOptions::openCsv(o.csv);
  if (csv) csv << "atoms,grid,order,spacing_nm,platform,phase,median_ms\n";
  std::printf("PME benchmark: order %d, spacing %.3g nm, cutoff %.3g nm, rtol %.1e, median of %d after %d warm-up\n",
              o.order, o.spacing, o.cutoff, o.rtol, o.repeats, o.warmup);
  if (std::find(platforms.begin(), platforms.end(), "cuda") != platforms.end())
    std::printf("cuda: (a) is timed around the evaluation's graph; the phases come from a second graph with an\n"
                "event between phases (each adds ~2 us to their sum). Where the x transforms run with the\n"
                "convolution, fft_forward and fft_inverse are the (y, z) transforms.\n");
  for (int n : o.sizes) benchSize(o, platforms, n, threads, csv);
  if (o.error) {
    const int n = *std::min_element(o.sizes.begin(), o.sizes.end());
    const double err = forceError(o, n, threads);
    std::printf("\nPME vs Ewald, %d ions: relative RMS force error %.3e (%.1f x ewald_rtol %.1e)\n", n, err,
                err / o.rtol, o.rtol);
    if (csv) csv << n << ",,," << o.spacing << ",cpu,force_error_vs_ewald," << err << '\n';
  }
  if (!o.csv.empty()) std::printf("CSV written to %s\n", o.csv.c_str());
  return 0;
}

}  // namespace faraday
