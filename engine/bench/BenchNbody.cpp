// `faraday bench nbody`: all-pairs softened gravity on a Plummer sphere, N from 1k to 1M:
// the triangular warp-tile kernel, the CUDA samples' one-sided kernel and the CPU loop,
// as interactions per second counted N^2 (the samples' convention), next to the GPU's
// reciprocal-square-root ceiling measured in the same run.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>

#include "core/Error.h"
#include "engine/bench/Bench.h"
#include "engine/bench/BenchOptions.h"
#include "engine/bench/CudaDcsStudy.h"
#include "kernels/common/Device.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/nbody/AllPairs.h"
#if defined(FARADAY_HAVE_CUDA)
#include "kernels/nbody/CudaAllPairs.h"
#endif

namespace faraday {
namespace {

struct Options {
  std::vector<int> sizes;
  double softening = 0.01;
  int repeats = 5, threads = 0;
  long long cpuMax = 65536;
  std::string platforms = "both", csv = "nbody_bench.csv";
};

bool parse(const std::vector<std::string>& args, Options& o) {
  std::string sizes = "1024,4096,16384,65536,262144,1048576";
  BenchOptions parser("nbody",
                      "All-pairs softened gravity on a Plummer sphere (G = M = 1, scale radius 1 nm): the triangular\n"
                      "warp-tile kernel (every pair once), the CUDA samples' one-sided kernel (every ordered pair)\n"
                      "and the CPU loop (every pair once, double), as N^2 interactions per second, with the\n"
                      "GPU's rsqrt ceiling, the force error against double and the exact zero of the total force.");
  parser.add("sizes", sizes, "bodies, comma-separated", "system sizes (32..2^24)");
  parser.add("softening", o.softening, "nm", "Plummer softening length");
  parser.add("repeats", o.repeats, "calls", "timed calls per kernel and size (average)");
  parser.add("cpu-max", o.cpuMax, "bodies", "largest size the CPU loop is timed for");
  parser.add("threads", o.threads, "", "CPU threads (0 = all)");
  parser.add("platforms", o.platforms, "", "cpu | cuda | both (both = cuda only when a device is usable)");
  parser.add("csv", o.csv, "path", "CSV output (\"\" = none)");
  if (!parser.parse(args, std::cout)) return false;
  for (double n : parser.numberList("sizes", sizes)) {
    if (!(n >= 32 && n <= 16777216)) throw Error("faraday bench nbody: --sizes: " + std::to_string(n) + " outside 32..2^24");
    o.sizes.push_back(int(n));
  }
  parser.checkPlatforms(o.platforms);
  if (!(o.softening > 0)) throw Error("faraday bench nbody: --softening must be > 0");
  o.repeats = std::max(1, o.repeats);
  return true;
}

/// A Plummer sphere of n equal masses (total 1), scale radius 1, truncated at 20 radii.
std::vector<Vec3> plummer(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec3> x(static_cast<std::size_t>(n));
  for (Vec3& p : x) {
    double r;
    do r = 1.0 / std::sqrt(std::pow(std::max(u(rng), 1e-12), -2.0 / 3.0) - 1.0);
    while (r > 20.0);
    const double z = 2 * u(rng) - 1, phi = 2 * M_PI * u(rng), s = std::sqrt(1 - z * z);
    p = Vec3{r * s * std::cos(phi), r * s * std::sin(phi), r * z};
  }
  return x;
}

/// The force on body i by a double sum over all others (the reference for sampled bodies).
Vec3 referenceForce(const std::vector<Vec3>& x, double m, double eps2, std::size_t i) {
  Vec3 f{};
  for (std::size_t j = 0; j < x.size(); ++j) {
    if (j == i) continue;
    const Vec3 d = x[i] - x[j];
    f += d * softenedGravityPair(dot(d, d), m * m, eps2).fOverR;
  }
  return f;
}

struct Row {
  int n = 0;
  double triMs = NAN, oneMs = NAN, cpuMs = NAN, ceiling = NAN;
  double triErr = NAN, oneErr = NAN, pairsEvaluated = NAN;
  double uniMs = NAN, uniErr = NAN;
  bool exactZero = false;
};

#if defined(FARADAY_HAVE_CUDA)
void runGpu(const Options& o, const std::vector<Vec3>& x, double m, Row& row) {
  const int n = int(x.size());
  AllPairsParams params;
  params.G = 1;
  params.softening = o.softening;
  const std::vector<double> mass(x.size(), m);
  std::vector<float4> host(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) host[i] = make_float4(float(x[i].x), float(x[i].y), float(x[i].z), float(m));
  DeviceBuffer<float4> body("bodies", 0), accel("accelerations", x.size());
  body.upload(host);
  const std::size_t stride = x.size();
  DeviceBuffer<unsigned long long> force("forces", 3 * stride);
  CudaAllPairs kernel(n, params);
  AllPairsDeviceInput in;
  in.n = n;
  in.body = body.data();
  in.force = force.data();
  in.stride = stride;
  in.scale = allPairsForceScale(params, mass, {});
  row.pairsEvaluated = kernel.pairsEvaluated();
  // Correctness first: one call on zeroed forces against the double sums of sampled bodies.
  force.zero();
  kernel.enqueue(nullptr, in);
  const std::vector<unsigned long long> fixedForces = force.toHost();
  const float eps2 = float(o.softening * o.softening);
  timeOneSidedGravity(body.data(), n, eps2, accel.data(), 1);
  const std::vector<float4> a = accel.toHost();
  long long sum[3] = {0, 0, 0};
  for (int c = 0; c < 3; ++c)
    for (std::size_t i = 0; i < x.size(); ++i) sum[c] += (long long)fixedForces[c * stride + i];
  row.exactZero = sum[0] == 0 && sum[1] == 0 && sum[2] == 0;
  double triNum = 0, oneNum = 0, den = 0;
  const std::size_t step = std::max<std::size_t>(1, x.size() / 64);
  for (std::size_t i = 0; i < x.size(); i += step) {
    const Vec3 ref = referenceForce(x, m, o.softening * o.softening, i);
    const Vec3 tri{double((long long)fixedForces[i]) / in.scale, double((long long)fixedForces[stride + i]) / in.scale,
                   double((long long)fixedForces[2 * stride + i]) / in.scale};
    const Vec3 one = Vec3{a[i].x, a[i].y, a[i].z} * m;
    triNum += norm2(tri - ref), oneNum += norm2(one - ref), den += norm2(ref);
  }
  row.triErr = std::sqrt(triNum / den);
  row.oneErr = std::sqrt(oneNum / den);
  // The same bodies through the uniform-mass path (every mass equal: masses out of the pair math).
  CudaAllPairs uniform(n, params, m);
  force.zero();
  uniform.enqueue(nullptr, in);
  const std::vector<unsigned long long> uniformForces = force.toHost();
  double uniNum = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int c = 0; c < 3; ++c) {
      const double d = double((long long)uniformForces[c * stride + i] - (long long)fixedForces[c * stride + i]) / in.scale;
      uniNum += d * d;
    }
  double all = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int c = 0; c < 3; ++c) all += std::pow(double((long long)fixedForces[c * stride + i]) / in.scale, 2);
  row.uniErr = std::sqrt(uniNum / all);
  const int repeats = n <= 65536 ? o.repeats * 20 : o.repeats;
  row.triMs = timeAllPairs(kernel, in, repeats);
  row.uniMs = timeAllPairs(uniform, in, repeats);
  row.oneMs = timeOneSidedGravity(body.data(), n, eps2, accel.data(), repeats);
}
#endif

void runCpu(const Options& o, const std::vector<Vec3>& x, double m, Row& row) {
  AllPairsParams params;
  params.softening = o.softening;
  const std::vector<double> mass(x.size(), m);
  const std::vector<int> type(x.size(), 0);
  std::vector<Vec3> f;
  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  const auto t0 = std::chrono::steady_clock::now();
  allPairsForces(x, mass, type, params, f, threads);
  row.cpuMs = 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string rate(double n, double ms) {
  if (!std::isfinite(ms)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", n * n / (1e-3 * ms));
  return b;
}

/// The table's and the CSV's headers; without a GPU (`gpu` false) only the CPU loop's columns.
void printHeaders(bool gpu, std::ofstream& csv) {
  if (!gpu) {
    if (csv) csv << "n,cpu_ms,cpu_interactions_per_s\n";
    std::printf("%9s %11s %12s\n", "N", "cpu ms", "cpu int/s");
    return;
  }
  if (csv) csv << "n,triangular_ms,triangular_interactions_per_s,pairs_evaluated_per_s,one_sided_ms,"
                  "one_sided_interactions_per_s,cpu_ms,cpu_interactions_per_s,rsqrt_ceiling_per_s,"
                  "triangular_force_rel_rms,one_sided_force_rel_rms,total_force_exactly_zero,uniform_mass_ms,"
                  "uniform_mass_interactions_per_s\n";
  std::printf("%9s %11s %12s %12s %11s %12s %11s %12s %9s %9s %10s %10s %6s\n", "N", "tri ms", "tri int/s",
              "tri pairs/s", "1-side ms", "1-side int/s", "cpu ms", "cpu int/s", "tri/1side", "tri/cpu",
              "tri err", "1side err", "sum=0");
}

/// One size's line of the table and row of the CSV (the columns of printHeaders).
void printRow(const Row& row, bool gpu, double ceiling, std::ofstream& csv) {
  const double nn = double(row.n);
  if (!gpu) {
    std::printf("%9d %11.2f %12s\n", row.n, row.cpuMs, rate(nn, row.cpuMs).c_str());
    if (csv) csv << row.n << ',' << row.cpuMs << ',' << rate(nn, row.cpuMs) << '\n';
    std::fflush(stdout);
    return;
  }
  char pairsRate[32] = "-";
  if (std::isfinite(row.triMs)) std::snprintf(pairsRate, sizeof pairsRate, "%.3e", row.pairsEvaluated / (1e-3 * row.triMs));
  std::printf("%9d %11.4f %12s %12s %11.4f %12s %11.2f %12s %9.2f %9.0f %10.2e %10.2e %6s\n", row.n, row.triMs,
              rate(nn, row.triMs).c_str(), pairsRate, row.oneMs, rate(nn, row.oneMs).c_str(), row.cpuMs,
              rate(nn, row.cpuMs).c_str(), row.oneMs / row.triMs, row.cpuMs / row.triMs, row.triErr, row.oneErr,
              std::isfinite(row.triMs) ? (row.exactZero ? "yes" : "NO") : "-");
  if (std::isfinite(row.uniMs))
    std::printf("%9s uniform-mass path: %.4f ms, %s interactions/s (%.2fx the general path; forces differ from it by rel RMS %.1e)\n",
                "", row.uniMs, rate(nn, row.uniMs).c_str(), row.triMs / row.uniMs, row.uniErr);
  std::fflush(stdout);
  if (csv) csv << row.n << ',' << row.triMs << ',' << rate(nn, row.triMs) << ',' << pairsRate << ',' << row.oneMs << ','
               << rate(nn, row.oneMs) << ',' << row.cpuMs << ',' << rate(nn, row.cpuMs) << ',' << ceiling << ','
               << row.triErr << ',' << row.oneErr << ',' << (row.exactZero ? 1 : 0) << ',' << row.uniMs << ','
               << rate(nn, row.uniMs) << '\n';
}

}  // namespace

int benchNbody(const std::vector<std::string>& args) {
  Options o;
  if (!parse(args, o)) return 0;
  const bool gpu = o.platforms != "cpu" && builtWithCuda() && cudaDeviceCount() > 0;
  if (o.platforms == "cuda" && !gpu) throw Error("faraday bench nbody --platforms=cuda: " + cudaDeviceDescription());
  const bool cpu = o.platforms != "cuda";
  std::ofstream csv = BenchOptions::openCsv(o.csv);
  if (gpu) std::printf("device: %s\n", cudaDeviceDescription().c_str());
  else std::printf("no CUDA device (%s): the CPU loop alone\n", cudaDeviceDescription().c_str());
  std::printf("softening %.4g nm; interactions/s = N^2 / time; CPU: %d threads, up to N = %lld\n", o.softening,
              o.threads > 0 ? o.threads : omp_get_max_threads(), o.cpuMax);
  printHeaders(gpu, csv);
  double ceiling = NAN;
#if defined(FARADAY_HAVE_CUDA)
  if (gpu) ceiling = cudaRsqrtCeiling();
#endif
  for (int n : o.sizes) {
    if (!gpu && n > o.cpuMax) continue;  // no column would have a value
    const std::vector<Vec3> x = plummer(n, 2026u + unsigned(n));
    const double m = 1.0 / n;
    Row row;
    row.n = n;
#if defined(FARADAY_HAVE_CUDA)
    if (gpu) runGpu(o, x, m, row);
#endif
    if (cpu && n <= o.cpuMax) runCpu(o, x, m, row);
    printRow(row, gpu, ceiling, csv);
  }
#if defined(FARADAY_HAVE_CUDA)
  if (gpu) {
    const double after = cudaRsqrtCeiling();
    std::printf("rsqrt ceiling: %.3e /s before, %.3e /s after (one rsqrt per pair: the triangular kernel's N^2 rate"
                " can reach twice it)\n", ceiling, after);
  }
#endif
  return 0;
}

}  // namespace faraday
