#include "kernels/pme/SlabPme.h"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <mutex>
#include <string>
#include <tuple>

#include "core/Error.h"
#include "core/Units.h"
#include "core/Virial.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/FftwSupport.h"
#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeConvolution.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday {

namespace {

using Complex = std::complex<double>;

/// The four transforms: one (y, z) plane r2c and c2r, one x line forward and backward.
/// FFTW_ESTIMATE (the same plans, and bits, every run); FFTW_UNALIGNED (run on any plane).
struct Plans {
  fftw_plan planeForward = nullptr, planeInverse = nullptr, lineForward = nullptr, lineInverse = nullptr;

  explicit Plans(const std::array<int, 3>& K) {
    std::vector<double> real(std::size_t(K[1]) * K[2]);
    std::vector<Complex> plane(static_cast<std::size_t>(K[1]) * (K[2] / 2 + 1)), line(static_cast<std::size_t>(K[0]));
    auto* p = reinterpret_cast<fftw_complex*>(plane.data());
    auto* l = reinterpret_cast<fftw_complex*>(line.data());
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    planeForward = fftw_plan_dft_r2c_2d(K[1], K[2], real.data(), p, flags);
    planeInverse = fftw_plan_dft_c2r_2d(K[1], K[2], p, real.data(), flags);
    lineForward = fftw_plan_dft_1d(K[0], l, l, FFTW_FORWARD, flags);
    lineInverse = fftw_plan_dft_1d(K[0], l, l, FFTW_BACKWARD, flags);
    if (!planeForward || !planeInverse || !lineForward || !lineInverse) {
      release();
      throw Error("slab PME: FFTW could not plan the grid");
    }
  }
  ~Plans() {
    std::lock_guard<std::mutex> lock(fftwPlannerMutex());
    release();
  }
  Plans(const Plans&) = delete;
  Plans& operator=(const Plans&) = delete;

 private:
  void release() {
    for (fftw_plan plan : {planeForward, planeInverse, lineForward, lineInverse})
      if (plan) fftw_destroy_plan(plan);
    planeForward = planeInverse = lineForward = lineInverse = nullptr;
  }
};

/// One charged atom's spline: the first grid index and the weights and derivatives per dimension.
struct Spline {
  int atom;
  double q;
  int first[3];
  double theta[3][pme::kMaxSplineOrder], dtheta[3][pme::kMaxSplineOrder];
};

/// What one rank holds: its x planes, real and half-complex, and its m_y rows of every x.
struct Rank {
  int x0, x1, y0, y1;
  std::vector<double> real;      ///< (x1 - x0) planes of K_y K_z
  std::vector<Complex> planes;   ///< (x1 - x0) planes of K_y (K_z / 2 + 1)
  std::vector<Complex> rows;     ///< K_x x (y1 - y0) rows of K_z / 2 + 1, x slowest
  pme::ConvolutionSums sums{};
};

/// The grid's sizes as the slab steps index it: K, the order, the half-complex z length and
/// the sizes of one real and one half-complex (y, z) plane.
struct SlabGrid {
  std::array<int, 3> K;
  int n, cz;
  std::size_t realPlane, complexPlane;

  SlabGrid(const std::array<int, 3>& k, int order)
      : K(k), n(order), cz(k[2] / 2 + 1), realPlane(std::size_t(k[1]) * k[2]),
        complexPlane(std::size_t(k[1]) * (k[2] / 2 + 1)) {}
  /// first + c, wrapped into 0..K_d - 1 (the stencil reaches at most one period past the edge).
  int wrapped(int first, int c, int d) const { return first + c < K[d] ? first + c : first + c - K[d]; }
};

void checkSlabArguments(const PmeParams& params, int ranks, const std::vector<Vec3>& positions,
                        const std::vector<double>& charges, const Box& box, const std::vector<Vec3>& forces,
                        SlabCut cut) {
  const std::array<int, 3> K = params.grid;
  const int n = params.order;
  if (n < pme::kMinSplineOrder || n > pme::kMaxSplineOrder) throw Error("slab PME: order outside 4..8");
  for (int d = 0; d < 3; ++d)
    if (K[d] < n) throw Error("slab PME: a grid dimension is smaller than the order");
  if (!(params.beta > 0)) throw Error("slab PME: beta must be > 0");
  if (!box.isValid()) throw Error("slab PME: the box must be in reduced triclinic form");
  const int slabs = cut == SlabCut::planes ? K[0] : pme::bricksAlong(K[0]);
  if (ranks < 1 || ranks > slabs || ranks > K[1])
    throw Error("slab PME: " + std::to_string(ranks) + " ranks for " + std::to_string(slabs) +
                (cut == SlabCut::planes ? " x planes and " : " bricks of x planes and ") +
                std::to_string(K[1]) + " y rows (1 to the smaller of them)");
  if (charges.size() != positions.size() || forces.size() != positions.size())
    throw Error("slab PME: positions, charges and forces differ in size");
}

/// Every charged atom's spline: every rank computes them all (the replicated state), one list here.
std::vector<Spline> chargedSplines(const SlabGrid& g, const std::vector<Vec3>& positions,
                                   const std::vector<double>& charges, const ReciprocalBox& recip) {
  std::vector<Spline> splines;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if (charges[i] == 0.0) continue;
    Spline s{int(i), charges[i], {}, {}, {}};
    const Vec3 u = recip.fractional(positions[i]);
    for (int d = 0; d < 3; ++d) {
      double f = u[d];
      f -= std::floor(f);
      double w;
      pme::splitGridCoordinate(f * g.K[d], g.K[d], g.n, s.first[d], w);
      pme::bsplineWeights<double>(w, g.n, s.theta[d], s.dtheta[d]);
    }
    splines.push_back(s);
  }
  return splines;
}

std::vector<Rank> makeRanks(const SlabGrid& g, int ranks, SlabCut cut) {
  std::vector<Rank> rank(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    Rank& R = rank[std::size_t(r)];
    std::tie(R.x0, R.x1) = slabPlanes(g.K[0], ranks, r, cut);
    std::tie(R.y0, R.y1) = slabRange(g.K[1], ranks, r);
    R.real.assign(std::size_t(R.x1 - R.x0) * g.realPlane, 0.0);
    R.planes.assign(std::size_t(R.x1 - R.x0) * g.complexPlane, Complex{});
    R.rows.assign(std::size_t(g.K[0]) * (R.y1 - R.y0) * g.cz, Complex{});
  }
  return rank;
}

/// Spreading: the rank adds every atom's charge to those of its planes the stencil reaches.
void spreadOnRank(const SlabGrid& g, const std::vector<Spline>& splines, Rank& R) {
  const int n = g.n;
  for (const Spline& s : splines)
    for (int i = 0; i < n; ++i) {
      const int ix = g.wrapped(s.first[0], i, 0);
      if (ix < R.x0 || ix >= R.x1) continue;
      double* plane = &R.real[std::size_t(ix - R.x0) * g.realPlane];
      for (int j = 0; j < n; ++j) {
        const double qxy = s.q * s.theta[0][i] * s.theta[1][j];
        double* row = plane + std::size_t(g.wrapped(s.first[1], j, 1)) * g.K[2];
        for (int c = 0; c < n; ++c) row[g.wrapped(s.first[2], c, 2)] += qxy * s.theta[2][c];
      }
    }
}

/// Forward: rank p's planes, the rows of rank q, to q; back: the reverse.
void allToAll(const SlabGrid& g, std::vector<Rank>& rank, bool forward) {
  const int cz = g.cz;
  for (Rank& p : rank)
    for (Rank& q : rank)
      for (int x = p.x0; x < p.x1; ++x)
        for (int y = q.y0; y < q.y1; ++y) {
          Complex* plane = &p.planes[std::size_t(x - p.x0) * g.complexPlane + std::size_t(y) * cz];
          Complex* row = &q.rows[(std::size_t(x) * (q.y1 - q.y0) + (y - q.y0)) * cz];
          if (forward) std::copy(plane, plane + cz, row);
          else std::copy(row, row + cz, plane);
        }
}

/// The rank's x lines forward, the convolution (CpuPme::convolve's terms) with the energy and
/// virial into R.sums, the lines backward.
void convolveOnRank(const SlabGrid& g, const Plans& plans, const std::array<std::vector<double>, 3>& moduli,
                    const ReciprocalBox& recip, double piOverBeta2, double prefactor, Rank& R) {
  const std::array<int, 3>& K = g.K;
  const int cz = g.cz;
  std::vector<Complex> line(static_cast<std::size_t>(K[0]));
  auto* l = reinterpret_cast<fftw_complex*>(line.data());
  const int ny = R.y1 - R.y0;
  const auto at = [&](int x, int y, int z) -> Complex& { return R.rows[(std::size_t(x) * ny + (y - R.y0)) * cz + z]; };
  const auto lines = [&](fftw_plan plan) {
    for (int y = R.y0; y < R.y1; ++y)
      for (int z = 0; z < cz; ++z) {
        for (int x = 0; x < K[0]; ++x) line[std::size_t(x)] = at(x, y, z);
        fftw_execute_dft(plan, l, l);
        for (int x = 0; x < K[0]; ++x) at(x, y, z) = line[std::size_t(x)];
      }
  };
  lines(plans.lineForward);
  for (int ix = 0; ix < K[0]; ++ix) {
    const Vec3 ma = recip.a * double(ix <= K[0] / 2 ? ix : ix - K[0]);  // m = i a* + j b* + k c*
    for (int iy = R.y0; iy < R.y1; ++iy) {
      const int myi = iy <= K[1] / 2 ? iy : iy - K[1];
      const double my = ma.y + myi * recip.b.y, mzab = ma.z + myi * recip.b.z;
      const double bxy = moduli[0][ix] * moduli[1][iy];
      for (int iz = 0; iz < cz; ++iz) {
        const double weight = (iz == 0 || 2 * iz == K[2]) ? 1.0 : 2.0;
        pme::convolvePoint(at(ix, iy, iz), ma.x, my, mzab + iz * recip.c.z, bxy, moduli[2][iz], weight, piOverBeta2, prefactor,
                           R.sums);
      }
    }
  }
  lines(plans.lineInverse);
}

/// Gathering: the rank's part of every atom's force, from its own planes, subtracted from forces.
void gatherOnRank(const SlabGrid& g, const std::vector<Spline>& splines, const ReciprocalBox& recip, const Rank& R,
                  std::vector<Vec3>& forces) {
  const std::array<int, 3>& K = g.K;
  const int n = g.n;
  const Vec3 sa = recip.a * double(K[0]), sb = recip.b * double(K[1]), sc = recip.c * double(K[2]);
  for (const Spline& s : splines) {
    double gx = 0, gy = 0, gz = 0;
    for (int i = 0; i < n; ++i) {
      const int ix = g.wrapped(s.first[0], i, 0);
      if (ix < R.x0 || ix >= R.x1) continue;
      for (int j = 0; j < n; ++j) {
        const double* row = &R.real[std::size_t(ix - R.x0) * g.realPlane + std::size_t(g.wrapped(s.first[1], j, 1)) * K[2]];
        double sumT = 0, sumD = 0;
        for (int c = 0; c < n; ++c) {
          const double phi = row[g.wrapped(s.first[2], c, 2)];
          sumT += phi * s.theta[2][c];
          sumD += phi * s.dtheta[2][c];
        }
        gx += s.dtheta[0][i] * s.theta[1][j] * sumT;
        gy += s.theta[0][i] * s.dtheta[1][j] * sumT;
        gz += s.theta[0][i] * s.theta[1][j] * sumD;
      }
    }
    forces[std::size_t(s.atom)] -= (sa * gx + sb * gy + sc * gz) * s.q;
  }
}

}  // namespace

std::pair<int, int> slabRange(int count, int ranks, int rank) {
  const int base = count / ranks, extra = count % ranks;
  const int first = rank * base + std::min(rank, extra);
  return {first, first + base + (rank < extra ? 1 : 0)};
}

std::pair<int, int> slabPlanes(int kx, int ranks, int rank, SlabCut cut) {
  if (cut == SlabCut::planes) return slabRange(kx, ranks, rank);
  const auto [b0, b1] = slabRange(pme::bricksAlong(kx), ranks, rank);
  return {std::min(b0 * pme::kBrickEdge, kx), std::min(b1 * pme::kBrickEdge, kx)};
}

bool slabSplitPossible(const PmeParams& params, int ranks) {
  pme::LinePlan plan;
  return ranks >= 1 && ranks <= pme::bricksAlong(params.grid[0]) && ranks <= params.grid[1] &&
         pme::makeLinePlan(params.grid[0], plan);
}

bool slabSplitPays(const PmeParams& params) {
  return double(params.grid[0]) * params.grid[1] * params.grid[2] >= kSlabSplitMinGridPoints;
}

ReciprocalResult slabPme(const PmeParams& params, int ranks, const std::vector<Vec3>& positions,
                         const std::vector<double>& charges, const Box& box, std::vector<Vec3>& forces,
                         SlabCut cut) {
  checkSlabArguments(params, ranks, positions, charges, box, forces, cut);
  const SlabGrid g(params.grid, params.order);
  const ReciprocalBox recip = box.reciprocal();
  std::array<std::vector<double>, 3> moduli;
  for (int d = 0; d < 3; ++d) moduli[d] = pme::bsplineModuli(g.K[d], g.n);
  const Plans plans(g.K);
  const std::vector<Spline> splines = chargedSplines(g, positions, charges, recip);
  std::vector<Rank> rank = makeRanks(g, ranks, cut);

  for (Rank& R : rank) spreadOnRank(g, splines, R);
  // The planes' transforms, then the all-to-all.
  for (Rank& R : rank)
    for (int x = 0; x < R.x1 - R.x0; ++x)
      fftw_execute_dft_r2c(plans.planeForward, &R.real[std::size_t(x) * g.realPlane],
                           reinterpret_cast<fftw_complex*>(&R.planes[std::size_t(x) * g.complexPlane]));
  allToAll(g, rank, true);
  const double piOverBeta2 = units::kPi * units::kPi / (params.beta * params.beta);
  const double prefactor = units::kCoulomb / (units::kPi * box.volume());
  for (Rank& R : rank) convolveOnRank(g, plans, moduli, recip, piOverBeta2, prefactor, R);
  allToAll(g, rank, false);
  for (Rank& R : rank)
    for (int x = 0; x < R.x1 - R.x0; ++x)
      fftw_execute_dft_c2r(plans.planeInverse, reinterpret_cast<fftw_complex*>(&R.planes[std::size_t(x) * g.complexPlane]),
                           &R.real[std::size_t(x) * g.realPlane]);
  // Each rank's part of every force, added in rank order.
  for (const Rank& R : rank) gatherOnRank(g, splines, recip, R, forces);

  pme::ConvolutionSums sum{};
  for (const Rank& R : rank)
    for (int c = 0; c < 7; ++c) sum[c] += R.sums[c];
  ReciprocalResult result;
  result.energy = sum[0];
  result.virial = symmetricTensor(sum.data() + 1);
  return result;
}

}  // namespace faraday
