// The host/device helpers the GPU PME is built on, tested on the host (no GPU needed):
// bins, grid coordinates from fixed-point fractions, influence factors, the bins of each
// brick, a host replay of the spreading kernel's bricks against a direct scatter of the
// charges, and the line transforms' plans, walks and tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>
#include <random>
#include <vector>

#include "core/Units.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CpuPme.h"
#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "tests/ElectrostaticsTestSupport.h"
#include "tests/TestSupport.h"
#include "tests/Tolerances.h"

namespace faraday {
namespace {

using pme::GridDims;

TEST(CudaPmeGeometry, BinsCoverTheGridWithThinLastBins) {
  // 27 x 30 x 32 cells: 7 x 8 x 8 bins of 4^3 cells, the last ones in x and y thinner.
  const GridDims g{{27, 30, 32}};
  EXPECT_EQ(pme::numCells(g), 27u * 30u * 32u);
  const int nb[3] = {pme::binsAlong(g.k[0]), pme::binsAlong(g.k[1]), pme::binsAlong(g.k[2])};
  EXPECT_TRUE(nb[0] == 7 && nb[1] == 8 && nb[2] == 8);
  std::vector<int> cellsInBin(std::size_t(nb[0]) * nb[1] * nb[2], 0);
  for (int x = 0; x < g.k[0]; ++x)
    for (int y = 0; y < g.k[1]; ++y)
      for (int z = 0; z < g.k[2]; ++z) {
        const std::uint32_t b = pme::binIndex(nb, x, y, z);
        ASSERT_LT(b, cellsInBin.size());
        // z fastest, then y, then x
        ASSERT_EQ(b, std::uint32_t(((x / 4) * nb[1] + y / 4) * nb[2] + z / 4)) << x << " " << y << " " << z;
        ++cellsInBin[b];
      }
  EXPECT_EQ(cellsInBin[0], 64);                            // a full bin
  EXPECT_EQ(cellsInBin[(6 * nb[1] + 7) * nb[2] + 7], 3 * 2 * 4);  // x cells 24..26, y 28..29
}

TEST(CudaPmeGeometry, GridCoordinateMatchesCpuSplit) {
  // CpuPme: s = r/L - floor(r/L), splitGridCoordinate(K s) in double.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-100.0, 100.0);
  const double L = 31.4159;
  for (int order = pme::kMinSplineOrder; order <= pme::kMaxSplineOrder; ++order) {
    for (int i = 0; i < 2000; ++i) {
      const double x = i < 4 ? double(i - 2) * L : u(rng);  // exact box multiples too
      const int K = 262;
      double s = x / L;
      s -= std::floor(s);
      int firstCpu;
      double wCpu;
      pme::splitGridCoordinate(s * K, K, order, firstCpu, wCpu);
      int first;
      float w;
      pme::gridCoordinate(x, L, K, order, first, w);
      ASSERT_EQ(first, firstCpu) << x;
      ASSERT_EQ(w, float(wCpu)) << x;
      ASSERT_TRUE(first >= 0 && first < K);
    }
  }
}

TEST(CudaPmeGeometry, FixedPointFractionsGiveTheDoubleGridCoordinate) {
  // Positions inside and outside the box (unwrapped, negative too), including exact multiples
  // of the edge and points just below them (whose fraction rounds to 2^32, which must wrap
  // to 0).
  std::mt19937_64 rng(12);
  const double L = 9.87;
  std::uniform_real_distribution<double> u(-3 * L, 4 * L);
  std::vector<double> xs{0.0, L, -L, 2 * L, std::nextafter(L, 0.0), std::nextafter(0.0, -1.0), 1e-12};
  for (int i = 0; i < 20000; ++i) xs.push_back(u(rng));
  for (int K : {5, 17, 64, 125, 270, 300}) {
    for (int order : {4, 8}) {
      double worst = 0;
      for (double x : xs) {
        int firstD, firstF;
        float wD, wF;
        pme::gridCoordinate(x, L, K, order, firstD, wD);
        pme::gridCoordinateFixed(pme::fractionalFixedPoint(x, pme::fixedPointScale(L)), K, order, firstF, wF);
        ASSERT_GE(firstF, 0);
        ASSERT_LT(firstF, K);
        ASSERT_GE(wF, 0.f);
        ASSERT_LT(wF, 1.f);
        double d = (double(firstF) + wF) - (double(firstD) + wD);
        d -= K * std::floor(d / K + 0.5);  // periodic difference
        worst = std::max(worst, std::fabs(d));
      }
      EXPECT_LT(worst, tol::kCudaPmeFixedPointGridUnits) << "K " << K << " order " << order;
    }
  }
}

TEST(CudaPmeGeometry, InfluenceFactorsMatchCpuInfluenceFunction) {
  // k_C / (pi V m^2) f_x f_y f_z against CpuPme's eterm formula term by term.
  const double beta = 3.1, Lx = 3.0, Ly = 3.3, Lz = 2.9;
  const std::array<int, 3> K{27, 30, 25};
  const std::array<double, 3> L{Lx, Ly, Lz};
  std::array<std::vector<double>, 3> mod, f;
  for (int d = 0; d < 3; ++d) {
    mod[d] = pme::bsplineModuli(K[d], 5);
    f[d] = pme::influenceFactors(mod[d], L[d], beta);
  }
  const double pi2b2 = units::kPi * units::kPi / (beta * beta);
  const double pre = units::kCoulomb / (units::kPi * Lx * Ly * Lz);
  double worst = 0;
  for (int ix = 0; ix < K[0]; ++ix)
    for (int iy = 0; iy < K[1]; ++iy)
      for (int iz = 0; iz <= K[2] / 2; ++iz) {
        if (ix == 0 && iy == 0 && iz == 0) continue;
        const double mx = (ix <= K[0] / 2 ? ix : ix - K[0]) / Lx;
        const double my = (iy <= K[1] / 2 ? iy : iy - K[1]) / Ly;
        const double mz = iz / Lz;
        const double m2 = mx * mx + my * my + mz * mz;
        const double cpu = pre * std::exp(-pi2b2 * m2) / m2 * mod[0][ix] * mod[1][iy] * mod[2][iz];
        const double gpu = pre * f[0][ix] * f[1][iy] * f[2][iz] / m2;
        worst = std::max(worst, std::fabs(gpu - cpu) / cpu);
      }
  EXPECT_LT(worst, tol::kDoubleSum);
}

/// Host replay of spreadKernel: the same bins, bricks, bin lists and visiting order (bins in
/// brickBins() order, atoms of a bin by index), summed in double. Every grid point must be
/// written once and receive exactly the direct scatter.
std::vector<double> spreadByBricks(const GridDims& g, int order, const std::vector<std::array<int, 3>>& first,
                                   const std::vector<std::vector<double>>& qtx,
                                   const std::vector<std::vector<double>>& ty,
                                   const std::vector<std::vector<double>>& tz) {
  const int nb[3] = {pme::binsAlong(g.k[0]), pme::binsAlong(g.k[1]), pme::binsAlong(g.k[2])};
  std::vector<std::vector<int>> binAtoms(std::size_t(nb[0]) * nb[1] * nb[2]);
  for (int a = 0; a < int(first.size()); ++a)  // ascending atom index within each bin
    binAtoms[pme::binIndex(nb, first[a][0], first[a][1], first[a][2])].push_back(a);
  std::vector<double> grid(pme::numCells(g), std::nan(""));
  std::vector<int> written(pme::numCells(g), 0);
  for (int bx = 0; bx < pme::bricksAlong(g.k[0]); ++bx)
    for (int by = 0; by < pme::bricksAlong(g.k[1]); ++by)
      for (int bz = 0; bz < pme::bricksAlong(g.k[2]); ++bz) {
        const int o[3] = {bx * pme::kBrickEdge, by * pme::kBrickEdge, bz * pme::kBrickEdge};
        int list[3][pme::kMaxBrickBins], len[3];
        for (int d = 0; d < 3; ++d) len[d] = pme::brickBins(g.k[d], order, o[d], list[d]);
        std::vector<double> acc(std::size_t(pme::kBrickEdge) * pme::kBrickEdge * pme::kBrickEdge, 0.0);
        for (int ix = 0; ix < len[0]; ++ix)
          for (int iy = 0; iy < len[1]; ++iy)
            for (int iz = 0; iz < len[2]; ++iz) {
              const std::size_t bin = (std::size_t(list[0][ix]) * nb[1] + list[1][iy]) * nb[2] + list[2][iz];
              for (int a : binAtoms[bin]) {
                const std::vector<double>* const weights[3] = {&qtx[a], &ty[a], &tz[a]};
                double w[3][pme::kBrickEdge];
                for (int d = 0; d < 3; ++d)
                  for (int p = 0; p < pme::kBrickEdge; ++p) {
                    const int i = pme::brickWeightIndex(g.k[d], o[d], p, first[a][d]);
                    w[d][p] = i < order ? (*weights[d])[i] : 0.0;
                  }
                for (int px = 0; px < pme::kBrickEdge; ++px)
                  for (int py = 0; py < pme::kBrickEdge; ++py)
                    for (int pz = 0; pz < pme::kBrickEdge; ++pz)
                      acc[(px * pme::kBrickEdge + py) * pme::kBrickEdge + pz] += w[0][px] * w[1][py] * w[2][pz];
              }
            }
        for (int px = 0; px < pme::kBrickEdge; ++px)
          for (int py = 0; py < pme::kBrickEdge; ++py)
            for (int pz = 0; pz < pme::kBrickEdge; ++pz) {
              const int x = o[0] + px, y = o[1] + py, z = o[2] + pz;
              if (x >= g.k[0] || y >= g.k[1] || z >= g.k[2]) continue;
              const std::size_t at = (std::size_t(x) * g.k[1] + y) * g.k[2] + z;
              grid[at] = acc[(px * pme::kBrickEdge + py) * pme::kBrickEdge + pz];
              ++written[at];
            }
      }
  for (std::size_t i = 0; i < written.size(); ++i)
    if (written[i] != 1) grid[i] = std::nan("");  // caught as "not written once"
  return grid;
}

TEST(CudaPmeGeometry, BrickBinsListEachNeededBinOnce) {
  // Every cell in o - order + 1 .. min(o + 8, K) - 1 (periodic) lies in a listed bin, and no
  // bin is listed twice, on grids of sizes not multiples of the bin, and smaller than a brick.
  for (int K : {4, 5, 7, 9, 12, 17, 30, 125}) {
    for (int order = pme::kMinSplineOrder; order <= std::min(pme::kMaxSplineOrder, K); ++order) {
      for (int o = 0; o < K; o += pme::kBrickEdge) {
        int bins[pme::kMaxBrickBins];
        const int n = pme::brickBins(K, order, o, bins);
        ASSERT_LE(n, pme::kMaxBrickBins);
        for (int i = 0; i < n; ++i)
          for (int j = i + 1; j < n; ++j) EXPECT_NE(bins[i], bins[j]) << "K " << K << " o " << o;
        for (int u = o - order + 1; u <= std::min(o + pme::kBrickEdge, K) - 1; ++u) {
          const int c = ((u % K) + K) % K;
          EXPECT_NE(std::find(bins, bins + n, c / pme::kBinEdge), bins + n) << "K " << K << " o " << o << " cell " << c;
        }
      }
    }
  }
}

TEST(CudaPmeGeometry, BrickBinRunsAreTheBrickBinLists) {
  // Where the periodic run is valid (length at most nb) it is brickBins()'s list, bin for
  // bin; it is valid on every grid of at least order + 7 points, and the only other grids
  // take the host table.
  int runs = 0;
  for (int K : {4, 5, 7, 9, 11, 12, 15, 16, 17, 30, 125, 270}) {
    const int nb = pme::binsAlong(K);
    for (int order = pme::kMinSplineOrder; order <= std::min(pme::kMaxSplineOrder, K); ++order) {
      for (int o = 0; o < K; o += pme::kBrickEdge) {
        int bins[pme::kMaxBrickBins];
        const int n = pme::brickBins(K, order, o, bins);
        int first = -1;
        const int len = pme::brickBinRun(K, nb, order, o, first);
        if (K >= order + 7) EXPECT_LE(len, nb) << "K " << K << " order " << order << " o " << o;
        if (len > nb) continue;
        ++runs;
        ASSERT_EQ(len, n) << "K " << K << " order " << order << " o " << o;
        for (int i = 0; i < n; ++i) {
          const int b = first + i < nb ? first + i : first + i - nb;
          EXPECT_EQ(b, bins[i]) << "K " << K << " order " << order << " o " << o << " i " << i;
        }
      }
    }
  }
  EXPECT_GT(runs, 100);
}

TEST(CudaPmeGeometry, BrickSpreadingEqualsDirectScatter) {
  // Grids with odd sizes, sizes not multiples of the bin or the brick, and sizes close to
  // the order (a brick and its halo wrap onto themselves across the periodic boundary).
  struct Case {
    GridDims g;
    int order;
  };
  const Case cases[] = {{{{9, 10, 12}}, 4}, {{{13, 7, 11}}, 4}, {{{5, 5, 5}}, 5},
                        {{{16, 17, 18}}, 8}, {{{11, 9, 6}}, 6}, {{{20, 4, 4}}, 4}, {{{25, 18, 33}}, 4}};
  std::mt19937_64 rng(5);
  for (const Case& cs : cases) {
    const GridDims& g = cs.g;
    const int n = 300;
    std::vector<std::array<int, 3>> first(n);
    std::vector<std::vector<double>> qtx(n), ty(n), tz(n);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> direct(pme::numCells(g), 0.0);
    for (int a = 0; a < n; ++a) {
      std::vector<double> th[3];
      for (int d = 0; d < 3; ++d) {
        double w;
        pme::splitGridCoordinate(u(rng) * g.k[d], g.k[d], cs.order, first[a][d], w);
        th[d].resize(cs.order);
        pme::bsplineWeights<double>(w, cs.order, th[d].data(), nullptr);
      }
      const double q = a % 2 ? -1.0 : 1.0;
      qtx[a] = th[0];
      for (double& v : qtx[a]) v *= q;
      ty[a] = th[1];
      tz[a] = th[2];
      for (int i = 0; i < cs.order; ++i)
        for (int j = 0; j < cs.order; ++j)
          for (int k = 0; k < cs.order; ++k) {
            const int x = (first[a][0] + i) % g.k[0], y = (first[a][1] + j) % g.k[1], z = (first[a][2] + k) % g.k[2];
            direct[(std::size_t(x) * g.k[1] + y) * g.k[2] + z] += qtx[a][i] * ty[a][j] * tz[a][k];
          }
    }
    const std::vector<double> byBricks = spreadByBricks(g, cs.order, first, qtx, ty, tz);
    double worst = 0, scale = 0;
    for (std::size_t i = 0; i < direct.size(); ++i) {
      ASSERT_FALSE(std::isnan(byBricks[i])) << "grid point " << i << " not written exactly once";
      worst = std::max(worst, std::fabs(byBricks[i] - direct[i]));
      scale = std::max(scale, std::fabs(direct[i]));
    }
    EXPECT_LT(worst, tol::kDoubleSum * scale) << "grid " << g.k[0] << "x" << g.k[1] << "x" << g.k[2] << " order "
                                              << cs.order;
  }
}

/// The line transform of LineFft.h replayed in double: the kernel's passes and index walk
/// (J threads per column: thread j0 takes butterflies j0, j0 + J, ...), each radix-R
/// butterfly as a direct DFT.
std::vector<std::complex<double>> replayLineTransform(const pme::LinePlan& plan, std::vector<std::complex<double>> a,
                                                     int J) {
  const int n = plan.n;
  constexpr double kTwoPi = 2.0 * units::kPi;
  auto w = [&](long long power) { return std::polar(1.0, -kTwoPi * double(power % n) / double(n)); };
  std::vector<std::complex<double>> b(n);
  pme::LinePass passes[pme::kMaxLinePasses];
  const int count = pme::linePasses(plan, J, passes);
  for (int pass = 0; pass < count; ++pass) {
    const pme::LinePass& p = passes[pass];
    const int R = p.radix;
    for (int j0 = 0; j0 < J; ++j0)
      for (pme::LineWalk f(j0, p); f.j < n / R; f.next(J, p)) {
        std::vector<std::complex<double>> v(R), out(R);
        for (int r = 0; r < R; ++r) v[r] = a[f.j + r * (n / R)] * w((long long)r * f.twiddleStep(p));
        for (int q = 0; q < R; ++q)
          for (int r = 0; r < R; ++r) out[q] += v[r] * w((long long)(r * q % R) * (n / R));
        for (int r = 0; r < R; ++r) b[f.dst + r * p.ns] = out[r];
      }
    std::swap(a, b);
  }
  return a;
}

TEST(CudaPmeGeometry, LinePlansFactorSmoothLengths) {
  for (int n = 1; n <= 1200; ++n) {
    pme::LinePlan plan;
    const bool made = pme::makeLinePlan(n, plan);
    EXPECT_EQ(made, nextFftSize(n) == n) << n;  // 2-3-5-7 smooth
    if (!made) continue;
    long long product = 1;
    for (int p = 0; p < plan.passes; ++p) {
      const int R = plan.radix[p];
      EXPECT_TRUE(R == 2 || R == 3 || R == 4 || R == 5 || R == 7) << n;
      product *= R;
    }
    EXPECT_EQ(product, n);
  }
}

TEST(CudaPmeGeometry, LineWalkStartsAtTheRemainder) {
  // k = j0 mod Ns from 1 / Ns in float, for every first butterfly a thread can have.
  for (int ns = 1; ns <= 4096; ++ns)
    for (int j0 = 0; j0 < pme::kMaxLineStride; ++j0) {
      const pme::LinePass p{2, ns, 1, 0, 0, float(1.0 / ns)};
      const pme::LineWalk walk(j0, p);
      ASSERT_EQ(walk.k, j0 % ns) << "j0 " << j0 << " ns " << ns;
      ASSERT_EQ(walk.dst, (j0 - j0 % ns) * 2 + j0 % ns);
    }
}

TEST(CudaPmeGeometry, LineTransformReplayEqualsDirectDft) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int n : {1, 2, 3, 4, 5, 7, 8, 12, 16, 36, 60, 64, 98, 125, 270, 343}) {
    pme::LinePlan plan;
    ASSERT_TRUE(pme::makeLinePlan(n, plan));
    std::vector<std::complex<double>> x(n);
    for (auto& v : x) v = {u(rng), u(rng)};
    std::vector<std::complex<double>> direct(n);
    double scale = 0;
    for (int k = 0; k < n; ++k) {
      for (int j = 0; j < n; ++j) direct[k] += x[j] * std::polar(1.0, -2.0 * units::kPi * double((long long)j * k % n) / n);
      scale = std::max(scale, std::abs(direct[k]));
    }
    for (int J : {1, 2, 3, 8, 16, 64}) {  // threads per column (256 threads over 2^logW columns)
      const auto fast = replayLineTransform(plan, x, J);
      double worst = 0;
      for (int k = 0; k < n; ++k) worst = std::max(worst, std::abs(fast[k] - direct[k]));
      EXPECT_LT(worst, tol::kDoubleSum * scale) << "n = " << n << ", J = " << J;
    }
  }
}

TEST(CudaPmeGeometry, LineTilesFitSharedMemoryAndFillTheGpu) {
  constexpr std::size_t kBudget = pme::kLineSharedBudget, kMax = 225 * 1024;
  // 100k ions (125^3): 16 columns (33 KB), 500 blocks; 1M (270^3): 16 columns (69 KB).
  EXPECT_EQ(pme::lineTileLog(125, 125, 63, 264, kBudget, kMax), 4);
  EXPECT_EQ(pme::lineTileLog(270, 270, 136, 264, kBudget, kMax), 4);
  // Few rows: the narrowest tile (4 columns) for the most blocks.
  EXPECT_EQ(pme::lineTileLog(60, 60, 31, 264, kBudget, kMax), 2);
  // Wide enough: 32 columns.
  EXPECT_EQ(pme::lineTileLog(48, 200, 33, 264, kBudget, kMax), 5);
  // Too long a line for even 4 columns: none (the 3D transforms are used).
  EXPECT_EQ(pme::lineTileLog(5000, 8, 8, 264, kBudget, kMax), -1);
  for (int logW = 2; logW <= 5; ++logW) EXPECT_EQ(pme::lineSharedBytes(100, logW), (200 + 2 * (100 << logW)) * 8u);
}

}  // namespace
}  // namespace faraday
