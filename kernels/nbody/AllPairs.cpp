#include "kernels/nbody/AllPairs.h"

#include <omp.h>

#include <algorithm>

namespace faraday {
namespace {

/// Every pair i < j once with `pair(i, j, r2)` -> PairResult; per-thread force arrays
/// summed in thread order (the same sums for the same thread count).
template <class Pair>
AllPairsResult triangle(const std::vector<Vec3>& x, std::vector<Vec3>& forces, int threads, Pair pair) {
  const long long n = (long long)x.size();
  const std::size_t count = x.size();
  std::vector<std::vector<Vec3>> partial(static_cast<std::size_t>(threads), std::vector<Vec3>(count));
  std::vector<double> energy(static_cast<std::size_t>(threads), 0.0);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    std::vector<Vec3>& f = partial[std::size_t(t)];
    double e = 0;
    // Rows are dealt cyclically: row i has n - 1 - i pairs, so the threads' shares even out.
#pragma omp for schedule(static, 1)
    for (long long i = 0; i < n; ++i) {
      Vec3 fi{};
      const Vec3 xi = x[i];
      for (long long j = i + 1; j < n; ++j) {
        const Vec3 d = xi - x[j];
        const PairResult<double> p = pair(i, j, dot(d, d));
        const Vec3 fij = d * p.fOverR;
        fi += fij;
        f[j] -= fij;
        e += p.energy;
      }
      f[i] += fi;
    }
    energy[std::size_t(t)] = e;
  }
  forces.assign(count, Vec3{});
  AllPairsResult total;
  for (int t = 0; t < threads; ++t) {
    for (long long i = 0; i < n; ++i) forces[i] += partial[t][i];
    total.energy += energy[std::size_t(t)];
  }
  // Without periodic images sum over pairs (x_i - x_j) (x) F_ij = sum over i x_i (x) F_i.
  for (long long i = 0; i < n; ++i) {
    const double xi[3] = {x[i].x, x[i].y, x[i].z};
    const double fi[3] = {forces[i].x, forces[i].y, forces[i].z};
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) total.virial.m[a][b] += xi[a] * fi[b];
  }
  return total;
}

}  // namespace

AllPairsResult allPairsForces(const std::vector<Vec3>& positions, const std::vector<double>& mass,
                              const std::vector<int>& type, const AllPairsParams& params, std::vector<Vec3>& forces,
                              int threads) {
  threads = std::max(1, threads);
  if (params.potential == AllPairsPotential::Gravity) {
    const double eps2 = params.softening * params.softening, g = params.G;
    return triangle(positions, forces, threads, [&](long long i, long long j, double r2) {
      return softenedGravityPair(r2, g * mass[i] * mass[j], eps2);
    });
  }
  const double rmin2 = params.typed.rmin * params.typed.rmin;
  return triangle(positions, forces, threads, [&](long long i, long long j, double r2) {
    return typedPair(r2, params.typed.at(type[i], type[j]), rmin2);
  });
}

}  // namespace faraday
