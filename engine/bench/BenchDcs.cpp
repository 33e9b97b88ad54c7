#include "engine/bench/BenchDcs.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>

#include "core/Error.h"
#include "engine/bench/BenchOptions.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/common/Device.h"
#include "kernels/dcs/Dcs.h"

namespace faraday {

namespace {

struct Atoms {
  std::vector<Vec3> positions;
  std::vector<double> charges;
};

/// n atoms uniform in [0, L) with charges +-q alternating (neutral for even n): a
/// water-like density at L^3 = n / 100 nm^3.
Atoms randomAtoms(std::size_t n, Vec3 L, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Atoms a;
  a.positions.resize(n);
  a.charges.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.positions[i] = {u(rng) * L.x, u(rng) * L.y, u(rng) * L.z};
    a.charges[i] = (i % 2 ? -0.5 : 0.5) * (0.5 + u(rng));
  }
  return a;
}

Lattice lattice(int nx, int ny, int nz, double h) {
  Lattice l;
  l.origin = {0, 0, 0};
  l.spacing = {h, h, h};
  l.nx = nx;
  l.ny = ny;
  l.nz = nz;
  return l;
}

double relRms(const std::vector<double>& a, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - ref[i]) * (a[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

struct Row {
  std::string caseName, kernel;
  std::size_t atoms;
  std::string latticeText;
  double effective, actual, seconds, error;  // error < 0: not measured
  std::string note;
};

std::string dims(const Lattice& l) {
  return std::to_string(l.nx) + "x" + std::to_string(l.ny) + "x" + std::to_string(l.nz);
}

/// A study variant of the direct kernel: its tuning, accumulation and table name.
struct StudyVariant {
  DcsGatherTuning t;
  DcsAccumulation acc;
  const char* name;
};

/// gatherKernel with `c` points per thread, `mb` blocks per SM, `fold` atoms per float
/// fold, and the near-atom test on every pair (`perPair`) or once per atom and row.
DcsGatherTuning gatherTuning(int c, int mb, int fold, bool perPair = false) {
  DcsGatherTuning t;
  t.coarsening = c;
  t.minBlocksPerSm = mb;
  t.foldAtoms = fold;
  t.perPairTest = perPair;
  t.tileKernel = false;
  return t;
}

/// The tile kernel, as gatherTuning(), with `unroll` atoms per inner iteration and the last
/// partial wave split over atom ranges (`split`).
DcsGatherTuning tileTuning(int c, int mb, int fold, int unroll = 4, bool split = true) {
  DcsGatherTuning t = gatherTuning(c, mb, fold);
  t.tileKernel = true;
  t.unroll = unroll;
  t.splitTail = split;
  return t;
}

/// Non-periodic direct summation, the method every timing case below uses.
MapOptions directOptions() {
  MapOptions direct;
  direct.method = MapMethod::Direct;
  direct.periodic = false;
  return direct;
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<StudyVariant> studyVariants() {
  using S = StudyVariant;
  constexpr auto B = DcsAccumulation::BlockedDouble;
  constexpr auto F = DcsAccumulation::Float;
  return {
      {gatherTuning(8, 10, 32), B, "gather x8 mb10 fold32 (old production)"},
      {gatherTuning(8, 10, 128), B, "gather x8 mb10 fold128"},
      {gatherTuning(8, 10, 32, true), B, "gather x8 mb10 fold32 test per pair"},
      {tileTuning(8, 10, 128, 4, false), B, "tiles x8 mb10 fold128 u4"},
      {tileTuning(8, 10, 128, 4, true), B, "tiles x8 mb10 fold128 u4 split"},
      {tileTuning(8, 10, 128, 8, false), B, "tiles x8 mb10 fold128 u8"},
      {tileTuning(8, 10, 128, 8, true), B, "tiles x8 mb10 fold128 u8 split"},
      {tileTuning(8, 10, 64, 4, true), B, "tiles x8 mb10 fold64 u4 split"},
      {tileTuning(8, 8, 128, 8, true), B, "tiles x8 mb8 fold128 u8 split"},
      {tileTuning(16, 5, 128, 4, true), B, "tiles x16 mb5 fold128 u4 split"},
      {tileTuning(16, 6, 128, 4, true), B, "tiles x16 mb6 fold128 u4 split"},
      {tileTuning(8, 10, 128, 4, true), F, "tiles x8 mb10 float u4 split"},
  };
}

/// The study's cases: the timing lattice and atoms; for accuracy, 2 slices of the timing case
/// (same atoms) and 100000 atoms on 32x32x8, with their CPU double references.
struct StudyCases {
  Lattice l = lattice(512, 256, 32, 0.1);
  Atoms a = randomAtoms(16000, {51.2, 25.6, 3.2}, 13);
  Lattice slab, lm = lattice(32, 32, 8, 0.1);
  Atoms am = randomAtoms(100000, {3.2, 3.2, 0.8}, 11);
  std::vector<double> refSlab, refMany;

  explicit StudyCases(const MapOptions& direct) : slab(l) {
    slab.nz = 2;
    cpuDirectMap(slab, a.positions, a.charges, direct, refSlab);
    cpuDirectMap(lm, am.positions, am.charges, direct, refMany);
  }
};

/// The study's timings: evaluations per second per variant and round, of the production path
/// per round, and the rsqrt ceiling before, between and after the rounds.
struct StudyRates {
  std::vector<std::vector<double>> variant;
  std::vector<double> production, ceilings;
};

StudyRates timeStudyRounds(const std::vector<StudyVariant>& variants, const StudyCases& c, const MapOptions& direct) {
  const int rounds = 5;
  StudyRates rate;
  rate.variant.resize(variants.size());
  rate.ceilings.push_back(cudaRsqrtCeiling());
  DcsKernelStats st;
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t v = 0; v < variants.size(); ++v) {
      cudaPotentialMap(DcsKernel::Coalesced, variants[v].acc, c.l, c.a.positions, c.a.charges, direct, &st, 7,
                       &variants[v].t);
      rate.variant[v].push_back(st.effectiveEvaluations / st.seconds);
    }
    cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, c.l, c.a.positions, c.a.charges, direct, &st, 7);
    rate.production.push_back(st.effectiveEvaluations / st.seconds);
    if (r == rounds / 2) rate.ceilings.push_back(cudaRsqrtCeiling());
  }
  rate.ceilings.push_back(cudaRsqrtCeiling());
  return rate;
}

/// One study row, printed and written to the CSV: the rates' median, min and max, the median
/// as a percentage of the ceiling, and the two accuracy errors.
void studyRow(std::ofstream& csv, double ceiling, const char* name, const std::vector<double>& x, double e1,
              double e2) {
  const double lo = *std::min_element(x.begin(), x.end()), hi = *std::max_element(x.begin(), x.end());
  std::printf("%-40s %10.3e %10.3e %10.3e %6.1f%% %10.2e %10.2e\n", name, median(x), lo, hi,
              100 * median(x) / ceiling, e1, e2);
  if (csv)
    csv << '"' << name << "\"," << median(x) << ',' << lo << ',' << hi << ',' << 100 * median(x) / ceiling << ','
        << e1 << ',' << e2 << '\n';
}

/// Whole waves: 512x264x40 has 2 x 66 x 40 = 5280 tiles = 4 x 1320 resident blocks (x8, 10
/// per SM on 132 SMs): no partial last wave, so its rate shows what the tail costs.
void studyWholeWaves(const std::vector<StudyVariant>& variants, const Atoms& a, const MapOptions& direct) {
  const Lattice w = lattice(512, 264, 40, 0.1);
  DcsKernelStats st;
  for (std::size_t v : {std::size_t(1), std::size_t(3), std::size_t(4)}) {
    std::vector<double> x;
    for (int r = 0; r < 3; ++r) {
      cudaPotentialMap(DcsKernel::Coalesced, variants[v].acc, w, a.positions, a.charges, direct, &st, 7,
                       &variants[v].t);
      x.push_back(st.effectiveEvaluations / st.seconds);
    }
    std::printf("whole waves %s: %-32s %10.3e /s\n", dims(w).c_str(), variants[v].name, median(x));
  }
}

}  // namespace

/// Timing and accuracy study of the direct kernel's variants in one process: each variant
/// timed in several rounds (median of 7 launches per round, rounds interleaved so that a
/// drift of the GPU's state hits every variant), the rsqrt ceiling measured before, between
/// and after the rounds; accuracy of each variant against the CPU double reference on a
/// slab of the timing case and on the many-atoms case.
static int benchDcsStudy(std::ofstream& csv) {
  const MapOptions direct = directOptions();
  const std::vector<StudyVariant> variants = studyVariants();
  const StudyCases c(direct);
  const StudyRates rate = timeStudyRounds(variants, c, direct);
  const std::vector<double>& ceilings = rate.ceilings;
  std::printf("\nstudy: lattice %s, %zu atoms (%.2e evaluations); rsqrt ceiling %.3e %.3e %.3e /s\n",
              dims(c.l).c_str(), c.a.positions.size(), double(c.l.size()) * double(c.a.positions.size()),
              ceilings[0], ceilings[1], ceilings[2]);
  std::printf("accuracy: rel RMS vs CPU double on %s (same atoms) and on %s with %zu atoms\n", dims(c.slab).c_str(),
              dims(c.lm).c_str(), c.am.positions.size());
  std::printf("%-40s %10s %10s %10s %7s %10s %10s\n", "variant", "median/s", "min/s", "max/s", "%ceil", "err slab",
              "err many");
  const double ceiling = median(ceilings);
  if (csv) csv << "variant,median_per_s,min_per_s,max_per_s,ceiling_pct,error_slab,error_many\n";
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const double e1 = relRms(cudaPotentialMap(DcsKernel::Coalesced, variants[v].acc, c.slab, c.a.positions,
                                              c.a.charges, direct, nullptr, 1, &variants[v].t),
                             c.refSlab);
    const double e2 = relRms(cudaPotentialMap(DcsKernel::Coalesced, variants[v].acc, c.lm, c.am.positions,
                                              c.am.charges, direct, nullptr, 1, &variants[v].t),
                             c.refMany);
    studyRow(csv, ceiling, variants[v].name, rate.variant[v], e1, e2);
  }
  studyWholeWaves(variants, c.a, direct);
  const std::vector<double> p1 =
      cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, c.slab, c.a.positions, c.a.charges, direct);
  const bool same = p1 == cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, c.slab, c.a.positions,
                                           c.a.charges, direct);
  studyRow(csv, ceiling, same ? "production path (bitwise repeatable)" : "production path (NOT REPEATABLE)",
           rate.production, relRms(p1, c.refSlab),
           relRms(cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, c.lm, c.am.positions, c.am.charges,
                                   direct),
                  c.refMany));
  return 0;
}

namespace {

/// The benchmark's rows: each printed as it is added, all of them as a table at the end.
struct Table {
  std::vector<Row> rows;

  void add(Row r) {
    rows.push_back(r);
    std::printf("  %s | %s: %.3f ms, %.3e effective atom-evals/s\n", r.caseName.c_str(), r.kernel.c_str(),
                1e3 * r.seconds, r.effective / r.seconds);
    std::fflush(stdout);
  }
};

/// Accuracy of the accumulation modes against the CPU double reference (many atoms per point
/// is where a single float accumulator loses digits), and the CPU timing.
void accuracyCase(bool quick, const MapOptions& direct, Table& table) {
  const Lattice l = lattice(32, 32, 8, 0.1);
  const Atoms a = randomAtoms(quick ? 20000 : 100000, {3.2, 3.2, 0.8}, 11);
  std::vector<double> ref;
  const auto t0 = std::chrono::steady_clock::now();
  cpuDirectMap(l, a.positions, a.charges, direct, ref);
  const double cpuSeconds = secondsSince(t0);
  const double evals = double(l.size()) * double(a.positions.size());
  table.add({"accuracy", "CPU double reference (OpenMP)", a.positions.size(), dims(l), evals, evals, cpuSeconds, -1, ""});
  for (DcsAccumulation acc : {DcsAccumulation::Float, DcsAccumulation::Kahan, DcsAccumulation::BlockedDouble}) {
    DcsKernelStats st;
    const std::vector<double> m = cudaPotentialMap(DcsKernel::Coalesced, acc, l, a.positions, a.charges, direct, &st, 3);
    table.add({"accuracy", std::string("coalesced ") + dcsAccumulationName(acc), a.positions.size(), dims(l),
               st.effectiveEvaluations, st.actualEvaluations, st.seconds, relRms(m, ref), "rel RMS vs CPU"});
  }
}

/// Scatter with atomics vs gather on a small case (scatter is slow).
void scatterCase(const MapOptions& direct, Table& table) {
  const Lattice l = lattice(64, 64, 16, 0.1);
  const Atoms a = randomAtoms(4096, {6.4, 6.4, 1.6}, 12);
  DcsKernelStats st;
  const std::vector<double> g =
      cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, direct, &st, 3);
  const std::vector<double> s =
      cudaPotentialMap(DcsKernel::Scatter, DcsAccumulation::Float, l, a.positions, a.charges, direct, &st, 1);
  table.add({"small", "scatter (atomicAdd, bench only)", a.positions.size(), dims(l), st.effectiveEvaluations,
             st.actualEvaluations, st.seconds, relRms(s, g), "rel RMS vs production"});
  cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, direct, &st, 5);
  table.add({"small", "gather coarsened+coalesced", a.positions.size(), dims(l), st.effectiveEvaluations,
             st.actualEvaluations, st.seconds, -1, ""});
  std::vector<double> ref;
  const auto t0 = std::chrono::steady_clock::now();
  cpuDirectMap(l, a.positions, a.charges, direct, ref);
  const double cpuSeconds = secondsSince(t0);
  table.add({"small", "CPU double reference (OpenMP)", a.positions.size(), dims(l), st.effectiveEvaluations,
             st.effectiveEvaluations, cpuSeconds, relRms(g, ref), "GPU rel RMS vs CPU"});
}

/// Timing studies of the production kernel's shape (coarsening, occupancy, the near-atom test
/// per pair as before the per-row test) on the throughput case, and its tail effect on a
/// lattice 4x larger in z (more waves per launch).
void shapeStudies(const Lattice& l, const Atoms& a, const std::vector<double>& prod, const MapOptions& direct,
                  Table& table) {
  using S = StudyVariant;
  constexpr auto B = DcsAccumulation::BlockedDouble;
  DcsKernelStats st;
  for (S v : {S{gatherTuning(8, 10, 32), B, "study: gather x8 fold32 (old production)"},
              S{tileTuning(8, 10, 128), B, "study: tiles x8 fold128 split"},
              S{tileTuning(16, 6, 128), B, "study: tiles x16 minBlocks 6"},
              S{gatherTuning(8, 10, 32, true), B, "study: gather x8 test per pair"},
              S{tileTuning(8, 10, 128), DcsAccumulation::Float, "study: tiles x8 float"}}) {
    const std::vector<double> m =
        cudaPotentialMap(DcsKernel::Coalesced, v.acc, l, a.positions, a.charges, direct, &st, 5, &v.t);
    table.add({"study", v.name, a.positions.size(), dims(l), st.effectiveEvaluations, st.actualEvaluations,
               st.seconds, relRms(m, prod), "rel RMS vs production"});
  }
  Lattice big = l;
  big.nz *= 4;
  cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, big, a.positions, a.charges, direct, &st, 3);
  table.add({"study", "production, 4x more slices", a.positions.size(), dims(big), st.effectiveEvaluations,
             st.actualEvaluations, st.seconds, -1, ""});
}

/// Throughput of the gather progression (non-periodic direct, MUFU rsqrt), then the shape studies.
void throughputCase(bool quick, const MapOptions& direct, Table& table) {
  const double ceiling = cudaRsqrtCeiling();
  table.add({"throughput", "ceiling: bare rsqrt loop", 0, "-", ceiling, ceiling, 1.0, -1, "evals/s = rsqrt/s"});
  const Lattice l = lattice(512, 256, quick ? 8 : 32, 0.1);
  const Atoms a = randomAtoms(16000, {51.2, 25.6, 3.2}, 13);
  std::vector<double> prod;
  DcsKernelStats st;
  prod = cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, l, a.positions, a.charges, direct, &st, 5);
  struct V {
    DcsKernel k;
    DcsAccumulation acc;
  };
  for (V v : {V{DcsKernel::Gather, DcsAccumulation::Float}, V{DcsKernel::Gather, DcsAccumulation::BlockedDouble},
              V{DcsKernel::Coarsened, DcsAccumulation::Float},
              V{DcsKernel::Coarsened, DcsAccumulation::BlockedDouble},
              V{DcsKernel::Coalesced, DcsAccumulation::Float}, V{DcsKernel::Coalesced, DcsAccumulation::Kahan},
              V{DcsKernel::Coalesced, DcsAccumulation::BlockedDouble}}) {
    const std::vector<double> m = cudaPotentialMap(v.k, v.acc, l, a.positions, a.charges, direct, &st, 5);
    table.add({"throughput", std::string(dcsKernelName(v.k)) + " " + dcsAccumulationName(v.acc), a.positions.size(),
               dims(l), st.effectiveEvaluations, st.actualEvaluations, st.seconds, relRms(m, prod),
               "rel RMS vs production"});
  }
  shapeStudies(l, a, prod, direct, table);
}

/// Cutoff binned vs direct, 1M atoms at water density on a 0.1 nm lattice.
void cutoffCase(bool quick, const MapOptions& direct, Table& table) {
  const std::size_t n = quick ? 100000 : 1000000;
  const double L = std::cbrt(double(n) / 100.0);
  const Atoms a = randomAtoms(n, {L, L, L}, 14);
  const Lattice full = Lattice::fromBox(Box::rectangular(L, L, L), 0.1);
  MapOptions cut;
  cut.method = MapMethod::Cutoff;
  cut.cutoff = 1.2;
  cut.periodic = false;
  DcsKernelStats st;
  cudaPotentialMap(DcsKernel::CutoffBinned, kProductionAccumulation, full, a.positions, a.charges, cut, &st, 3);
  char note[128];
  std::snprintf(note, sizeof note, "rc 1.2 nm, cap %d, %lld overflow atoms (host %.1f ms)", cut.binCapacity,
                st.overflowAtoms, 1e3 * st.hostOverflowSeconds);
  table.add({"1M cutoff", "cutoff binned", n, dims(full), st.effectiveEvaluations, st.actualEvaluations, st.seconds,
             -1, note});
  std::snprintf(note, sizeof note, "of which host binning + upload %.1f ms", 1e3 * st.binningSeconds);
  table.add({"1M cutoff", "cutoff binned: kernel alone", n, dims(full), st.effectiveEvaluations,
             st.actualEvaluations, st.kernelSeconds, -1, note});
  const double cutoffSeconds = st.seconds;
  Lattice slices = full;
  slices.nz = 24;  // enough slices to fill the GPU (4 would leave it mostly idle)
  cudaPotentialMap(DcsKernel::Coalesced, kProductionAccumulation, slices, a.positions, a.charges, direct, &st, 2);
  const double scale = double(full.nz) / double(slices.nz);
  std::snprintf(note, sizeof note, "%d of %d z-slices timed, x%.1f extrapolated; %.0fx the cutoff time", slices.nz,
                full.nz, scale, st.seconds * scale / cutoffSeconds);
  table.add({"1M direct", "gather coarsened+coalesced", n, dims(full), st.effectiveEvaluations * scale,
             st.actualEvaluations * scale, st.seconds * scale, -1, note});
}

void printTable(const std::vector<Row>& rows, std::ofstream& csv) {
  std::printf("\n%-14s %-34s %8s %-12s %9s %9s %10s %9s %9s %9s %s\n", "case", "kernel", "atoms", "lattice",
              "eff.evals", "act.evals", "time ms", "eff/s", "act/s", "error", "note");
  if (csv) csv << "case,kernel,atoms,lattice,effective_evals,actual_evals,time_ms,effective_per_s,actual_per_s,error,note\n";
  for (const Row& r : rows) {
    char err[16] = "-";
    if (r.error >= 0) std::snprintf(err, sizeof err, "%.2e", r.error);
    if (csv)
      csv << '"' << r.caseName << "\",\"" << r.kernel << "\"," << r.atoms << ',' << r.latticeText << ',' << r.effective << ','
          << r.actual << ',' << 1e3 * r.seconds << ',' << r.effective / r.seconds << ',' << r.actual / r.seconds
          << ',' << (r.error >= 0 ? err : "") << ",\"" << r.note << "\"\n";
    std::printf("%-14s %-34s %8zu %-12s %9.2e %9.2e %10.3f %9.2e %9.2e %9s %s\n", r.caseName.c_str(),
                r.kernel.c_str(), r.atoms, r.latticeText.c_str(), r.effective, r.actual, 1e3 * r.seconds,
                r.effective / r.seconds, r.actual / r.seconds, err, r.note.c_str());
  }
}

}  // namespace

int benchDcs(const std::vector<std::string>& args) {
  bool quick = false, study = false;
  std::string csvPath = "dcs_bench.csv";
  BenchOptions parser("dcs",
                      "The potential-map kernels on the GPU (scatter with atomics, gather, coarsened, coalesced, cutoff\n"
                      "binned) in atom evaluations per second, the accumulation modes' accuracy against the CPU\n"
                      "reference, and cutoff-binned against direct for a 1M-atom system.");
  parser.flag("quick", quick, "smaller cases (a check that every kernel runs, not a measurement)");
  parser.flag("study", study, "the timing and accuracy study of the direct kernel's variants instead");
  parser.add("csv", csvPath, "path", "CSV output (\"\" = none)");
  if (!parser.parse(args, std::cout)) return 0;
  if (cudaDeviceCount() == 0) throw Error("bench dcs needs a CUDA device: " + cudaDeviceDescription());
  std::ofstream csv = BenchOptions::openCsv(csvPath);
  if (study) {
    std::printf("DCS study on %s, %d OpenMP threads\n", cudaDeviceDescription().c_str(), omp_get_max_threads());
    return benchDcsStudy(csv);
  }
  std::printf("DCS benchmark on %s, %d OpenMP threads\n", cudaDeviceDescription().c_str(), omp_get_max_threads());
  const MapOptions direct = directOptions();
  Table table;
  accuracyCase(quick, direct, table);
  scatterCase(direct, table);
  throughputCase(quick, direct, table);
  cutoffCase(quick, direct, table);
  printTable(table.rows, csv);
  return 0;
}

}  // namespace faraday
