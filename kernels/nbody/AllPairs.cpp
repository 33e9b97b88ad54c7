// The CPU all-pairs loop: every pair i < j once, F_i += F_ij, F_j -= F_ij (the "triangular"
// loop), in double precision.
//
// Threads and determinism: the rows are cut into a fixed number of chunks of about equal pair
// counts, independent of the thread count. Each chunk sums its forces (its rows' own forces and
// the reactions on the later rows) into an array of its own, and its energy and virial into
// its own sums; a chunk runs on one thread in a fixed order. The arrays and sums are then
// added chunk by chunk in chunk order. The result is therefore the same bits for any number
// of threads.
#include "kernels/nbody/AllPairs.h"

#include <omp.h>

#include <algorithm>
#include <array>

#include "core/Error.h"
#include "core/Virial.h"

namespace faraday {
namespace {

/// Chunks of rows (at most; fewer for small systems): enough to share among the threads of
/// one node, few enough that the per-chunk force arrays stay small next to the O(N^2) work.
constexpr int kChunks = 64;

/// Plummer-softened gravity of particles i and j.
struct GravityPairs {
  const double* mass;
  double G, eps2;
  PairResult<double> operator()(std::size_t i, std::size_t j, double r2) const {
    return softenedGravityPair(r2, G * mass[i] * mass[j], eps2);
  }
};

/// The typed pair force of particles i and j, from their types' entry.
struct TypedPairs {
  const int* type;
  const TypedPairTable* table;
  double rmin2;
  PairResult<double> operator()(std::size_t i, std::size_t j, double r2) const {
    return typedPair(r2, table->at(type[i], type[j]), rmin2);
  }
};

/// What one chunk of rows adds: forces on particles first..N-1, energy, virial (xx yy zz xy xz yz).
struct ChunkSums {
  std::size_t first = 0;
  std::vector<Vec3> force;  ///< force[p - first]
  double energy = 0;
  std::array<double, 6> w{};
};

/// Rows [begin, end) of the triangular loop.
template <typename Pair>
void sumRows(const std::vector<Vec3>& x, std::size_t begin, std::size_t end, const Pair& pair, ChunkSums& c) {
  const std::size_t n = x.size();
  c.first = begin;
  c.force.assign(n - begin, Vec3{});
  c.energy = 0;
  c.w.fill(0);
  for (std::size_t i = begin; i < end; ++i) {
    const Vec3 xi = x[i];
    Vec3 fi{};
    for (std::size_t j = i + 1; j < n; ++j) {
      const Vec3 d = xi - x[j];  // r_ij = x_i - x_j
      const PairResult<double> p = pair(i, j, norm2(d));
      const Vec3 f = d * p.fOverR;
      fi += f;
      c.force[j - begin] -= f;
      c.energy += p.energy;
      addPairVirial(c.w.data(), d, f);
    }
    c.force[i - begin] += fi;
  }
}

/// Row boundaries of `chunks` chunks with about equal pair counts: row i has N - 1 - i pairs,
/// so the rows before boundary k hold about k/chunks of the N(N-1)/2 pairs.
std::vector<std::size_t> chunkBounds(std::size_t n, int chunks) {
  std::vector<std::size_t> bounds(std::size_t(chunks) + 1, n);
  bounds[0] = 0;
  const double total = 0.5 * double(n) * double(n - 1);
  std::size_t row = 0;
  double pairsBefore = 0;
  for (int k = 1; k < chunks; ++k) {
    const double target = total * k / chunks;
    while (row < n && pairsBefore < target) pairsBefore += double(n - 1 - row), ++row;
    bounds[std::size_t(k)] = row;
  }
  return bounds;
}

template <typename Pair>
AllPairsResult sumAllPairs(const std::vector<Vec3>& x, const Pair& pair, std::vector<Vec3>& forces, int threads) {
  const std::size_t n = x.size();
  const int chunks = int(std::min<std::size_t>(kChunks, std::max<std::size_t>(n, 1)));
  const std::vector<std::size_t> bounds = chunkBounds(n, chunks);
  std::vector<ChunkSums> sums(static_cast<std::size_t>(chunks));
  const int team = threads > 0 ? threads : omp_get_max_threads();
  // Threads only when there is enough work to repay the fork (N = 128: 8128 pairs).
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (n >= 128)
  for (int k = 0; k < chunks; ++k) sumRows(x, bounds[std::size_t(k)], bounds[std::size_t(k) + 1], pair, sums[std::size_t(k)]);

  forces.assign(n, Vec3{});
  const long long count = (long long)n;
#pragma omp parallel for num_threads(team) schedule(static) if (n >= 16384)
  for (long long p = 0; p < count; ++p)
    for (const ChunkSums& c : sums)  // chunk order: the same sum for any thread count
      if (std::size_t(p) >= c.first) forces[std::size_t(p)] += c.force[std::size_t(p) - c.first];

  AllPairsResult r;
  std::array<double, 6> w{};
  for (const ChunkSums& c : sums) {
    r.energy += c.energy;
    for (int k = 0; k < 6; ++k) w[k] += c.w[k];
  }
  r.virial = symmetricTensor(w.data());
  return r;
}

}  // namespace

AllPairsResult allPairsForces(const std::vector<Vec3>& positions, const std::vector<double>& mass,
                              const std::vector<int>& type, const AllPairsParams& params, std::vector<Vec3>& forces,
                              int threads) {
  const std::size_t n = positions.size();
  if (params.potential == AllPairsPotential::Gravity) {
    if (mass.size() != n) throw Error("all-pairs: one mass per particle is needed");
    if (!(params.softening > 0)) throw Error("all-pairs: the gravitational softening must be > 0");
    return sumAllPairs(positions, GravityPairs{mass.data(), params.G, params.softening * params.softening}, forces,
                       threads);
  }
  const TypedPairTable& t = params.typed;
  if (type.size() != n) throw Error("all-pairs: one type per particle is needed");
  if (t.params.size() != std::size_t(t.types) * std::size_t(t.types))
    throw Error("all-pairs: the typed pair table must have types x types entries");
  for (int k : type)
    if (k < 0 || k >= t.types) throw Error("all-pairs: particle type " + std::to_string(k) + " is not in the typed table");
  return sumAllPairs(positions, TypedPairs{type.data(), &t, t.rmin * t.rmin}, forces, threads);
}

}  // namespace faraday
