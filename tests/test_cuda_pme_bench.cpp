// PME timing on the GPU alone and against the CPU oracle: a benchmark, not a test. It is
// disabled by default and runs with
//   faraday_tests --gtest_also_run_disabled_tests --gtest_filter='CudaPmeBenchmark.*'
// FARADAY_BENCH_NO_CPU skips the CPU. Sizes from FARADAY_BENCH_SIZES (default 10000,100000,1000000), repetitions from
// FARADAY_BENCH_REPS (default 50; the CPU runs a fifth of them). NaCl melt density
// (31.9 ions/nm^3), spacing 0.12 nm, order 4, beta for a 1 nm cutoff at ewald_rtol 1e-5.
// Reported: medians after warm-up of the whole compute() (host clock: copies up and down
// and the host-side staging included), of the device work without the copies (sum of the
// six phase events) and of each phase; agreement of the GPU with the CPU.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/Timers.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/Electrostatics.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"

namespace faraday {
namespace {

const char* const kPhases[] = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                               "pme.convolve", "pme.fft_inverse", "pme.gather"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Timing {
  double whole = 0;               ///< median of the whole compute(), s
  double device = 0;              ///< median of the six phases summed, s
  double transfer = 0;            ///< median of pme.transfer (GPU only), s
  std::map<std::string, double> phase;  ///< median per phase, s
  ReciprocalResult result;
  std::vector<Vec3> forces;
};

Timing timeSolver(ReciprocalSolver& solver, const test::Ions& s, int warmup, int reps) {
  Timing t;
  t.forces.assign(s.positions.size(), Vec3{});
  t.result = solver.compute(s.positions, s.charges, s.box, t.forces, nullptr);
  std::vector<Vec3> scratch(s.positions.size());
  for (int i = 0; i < warmup; ++i) solver.compute(s.positions, s.charges, s.box, scratch, nullptr);
  std::vector<double> whole, device, transfer;
  std::map<std::string, std::vector<double>> phase;
  for (int i = 0; i < reps; ++i) {
    Timers timers;
    const auto t0 = std::chrono::steady_clock::now();
    solver.compute(s.positions, s.charges, s.box, scratch, &timers);
    whole.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    double sum = 0;
    for (const auto& [name, e] : timers.ordered()) {
      phase[name].push_back(e.seconds);
      if (name == "pme.transfer") transfer.push_back(e.seconds);
      else sum += e.seconds;
    }
    device.push_back(sum);
  }
  t.whole = median(whole);
  t.device = median(device);
  t.transfer = transfer.empty() ? 0 : median(transfer);
  for (auto& [name, v] : phase) t.phase[name] = median(v);
  return t;
}

std::vector<int> benchSizes() {
  const char* env = std::getenv("FARADAY_BENCH_SIZES");
  std::string spec = env ? env : "10000,100000,1000000";
  std::vector<int> sizes;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) sizes.push_back(std::stoi(item));
  return sizes;
}

TEST(CudaPmeBenchmark, DISABLED_GpuAndCpuPhases) {
  FARADAY_REQUIRE_GPU();
  const char* repsEnv = std::getenv("FARADAY_BENCH_REPS");
  const int reps = repsEnv ? std::max(1, std::atoi(repsEnv)) : 50;
  std::printf("device: %s; CPU threads: %d\n", cudaDeviceDescription().c_str(), omp_get_max_threads());
  std::string table;
  char line[512];
  for (int n : benchSizes()) {
    test::Ions s;
    const double edge = test::meltEdge(n);
    s.box = Box::rectangular(edge, edge, edge);
    std::mt19937_64 rng(n);
    std::uniform_real_distribution<double> u(0.0, edge);
    for (int i = 0; i < n; ++i) {
      s.positions.push_back({u(rng), u(rng), u(rng)});
      s.charges.push_back(i % 2 ? -1.0 : 1.0);
    }
    const PmeParams p = test::pmeParams(ewaldBetaFromRtol(1.0, 1e-5), 4, 0.12, s.box);
    auto gpu = makeCudaPme(p, s.positions.size());
    const Timing g = timeSolver(*gpu, s, 5, reps);
    Timing c = g;  // FARADAY_BENCH_NO_CPU: GPU alone (e.g. under a profiler); CPU columns repeat the GPU
    if (!std::getenv("FARADAY_BENCH_NO_CPU")) {
      CpuPme cpuSolver(p, 0);
      c = timeSolver(cpuSolver, s, 1, std::max(3, reps / 5));
    }
    const double eRel = std::fabs(g.result.energy - c.result.energy) / std::fabs(c.result.energy);
    const double fRel = test::relativeRmsDifference(g.forces, c.forces, c.forces);

    std::printf("\nN = %d, box %.3f nm, grid %dx%dx%d, order 4: energy rel diff %.2e, force rel RMS diff %.2e\n", n,
                edge, p.grid[0], p.grid[1], p.grid[2], eRel, fRel);
    std::printf("  %-16s %12s %12s %9s\n", "phase", "GPU ms", "CPU ms", "speedup");
    for (const char* ph : kPhases) {
      const double gm = 1e3 * g.phase.at(ph), cm = 1e3 * c.phase.at(ph);
      std::printf("  %-16s %12.4f %12.4f %9.1f\n", ph, gm, cm, cm / gm);
    }
    std::printf("  %-16s %12.4f\n", "pme.transfer", 1e3 * g.transfer);
    std::printf("  %-16s %12.4f %12.4f %9.1f\n", "device (6 phases)", 1e3 * g.device, 1e3 * c.device,
                c.device / g.device);
    std::printf("  %-16s %12.4f %12.4f %9.1f\n", "whole compute()", 1e3 * g.whole, 1e3 * c.whole, c.whole / g.whole);
    std::snprintf(line, sizeof line, "%8d %5d^3 %9.3f %9.3f %8.3f %9.3f %9.3f %10.2f %8.1e %8.1e\n", n, p.grid[0],
                  1e3 * g.phase.at("pme.spread"), 1e3 * g.phase.at("pme.gather"), 1e3 * g.transfer, 1e3 * g.device,
                  1e3 * g.whole, 1e3 * c.whole, eRel, fRel);
    table += line;
  }
  std::printf("\nSummary (medians, ms; GPU %d reps, CPU %d reps)\n", reps, std::max(3, reps / 5));
  std::printf("%8s %7s %9s %9s %8s %9s %9s %10s %8s %8s\n", "atoms", "grid", "spread", "gather", "xfer",
              "GPU dev", "GPU whole", "CPU whole", "E rel", "F rms");
  std::printf("%s", table.c_str());
}

}  // namespace
}  // namespace faraday
