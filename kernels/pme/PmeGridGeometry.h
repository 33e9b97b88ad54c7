#pragma once
// Grid keying, per-atom grid coordinates and the bins and bricks of the GPU PME
// (CudaPme.cu). Written once for host and device, so that tests without a GPU can check
// them against the CPU code and against a direct scatter of the charges.
//
// Grid layout (as cuFFT and FFTW expect for r2c): point (ix, iy, iz) at
// (ix K_y + iy) K_z + iz, x slowest, z fastest.
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/Box.h"
#include "core/HostDevice.h"
#include "kernels/pme/BSpline.h"

namespace faraday::pme {

/// Grid points per dimension.
struct GridDims {
  int k[3];
};

/// Number of grid cells K_x K_y K_z. The cell of an atom is the first grid point its
/// spline touches in each dimension (cx, cy, cz).
FARADAY_HD std::uint32_t numCells(const GridDims& g) {
  return std::uint32_t(g.k[0]) * std::uint32_t(g.k[1]) * std::uint32_t(g.k[2]);
}

/// Grid coordinate of position x (nm) in a box edge of `length` nm with K points: the first
/// grid index of the spline of `order` and the fractional part w in [0, 1]. The fractional
/// coordinate s = x/L - floor(x/L) and u = K s are formed in double: in float, an absolute
/// position of 30 nm carries only ~2e-6 nm, which alone moves PME forces by ~1e-5
/// relative. w itself needs only float (error 6e-8 of a grid spacing).
FARADAY_HD void gridCoordinate(double x, double length, int K, int order, int& first, float& w) {
  double s = x / length;
  s -= floor(s);
  double wd;
  splitGridCoordinate<double>(s * double(K), K, order, first, wd);
  w = float(wd);
}

/// Fractional coordinate s = x/L - floor(x/L) in [0, 1) of position x (nm) in a box edge of
/// L nm, as 32-bit fixed point, from scale = 2^32 / L (1/nm): round(x/L 2^32) mod 2^32
/// (x/L 2^32 + 1/2 truncated toward zero, which for x < 0 may be one step below the rounded
/// value; 2^32 wraps to 0, the same periodic image). Resolution 2.3e-10 of the box edge
/// (finer than a float offset); half the bytes of a double position: what the host uploads
/// to the GPU PME. One multiply-add and one conversion, as fast as a copy (no division, no
/// floor()). Valid for |x| < 2^31 L.
FARADAY_HD std::uint32_t fractionalFixedPoint(double x, double scale) {
  return std::uint32_t(static_cast<std::uint64_t>(static_cast<std::int64_t>(x * scale + 0.5)));
}

/// The scale of fractionalFixedPoint() for a box edge of `length` nm: 2^32 / L (1/nm).
FARADAY_HD double fixedPointScale(double length) { return 4294967296.0 / length; }

/// The scales of fractionalFixedPoints() for a box in reduced form: 2^32 times the reciprocal
/// vectors' components a*_x, a*_y, a*_z, b*_y, b*_z and c*_z (1/nm). The diagonal ones are
/// fixedPointScale() of the diagonal elements (a*_x = 1/a_x ...), so that a rectangular box
/// gives fractionalFixedPoint()'s numbers exactly.
struct FractionScales {
  double ax = 0, ay = 0, az = 0, by = 0, bz = 0, cz = 0;
};

/// FractionScales from the reciprocal vectors' components (ReciprocalBox of core/Box.h) and
/// the diagonal elements.
FARADAY_HD FractionScales fractionScales(double ax, double by, double cz, double recipAy, double recipAz,
                                         double recipBz) {
  constexpr double k32 = 4294967296.0;
  return {fixedPointScale(ax), k32 * recipAy, k32 * recipAz, fixedPointScale(by), k32 * recipBz, fixedPointScale(cz)};
}

inline FractionScales fractionScalesOf(const Box& box) {
  const ReciprocalBox r = box.reciprocal();
  return fractionScales(box.a.x, box.b.y, box.c.z, r.a.y, r.a.z, r.b.z);
}

/// The three fractional coordinates (a*.r, b*.r, c*.r), each in [0, 1) as 32-bit fixed point
/// (fractionalFixedPoint's rounding and range): the tilt terms are added to 1/2 first, so
/// that with zero tilts each is fractionalFixedPoint(x_d, scale_d) bit for bit.
FARADAY_HD void fractionalFixedPoints(double x, double y, double z, const FractionScales& s, std::uint32_t f[3]) {
  const auto fixedOf = [](double v) { return std::uint32_t(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); };
#if defined(__CUDA_ARCH__)
  // Fused as the device compiles fractionalFixedPoint's x * scale + 0.5.
  f[0] = fixedOf(__fma_rn(x, s.ax, __fma_rn(y, s.ay, __fma_rn(z, s.az, 0.5))));
  f[1] = fixedOf(__fma_rn(y, s.by, __fma_rn(z, s.bz, 0.5)));
  f[2] = fixedOf(__fma_rn(z, s.cz, 0.5));
#else
  f[0] = fixedOf(x * s.ax + (y * s.ay + (z * s.az + 0.5)));
  f[1] = fixedOf(y * s.by + (z * s.bz + 0.5));
  f[2] = fixedOf(z * s.cz + 0.5);
#endif
}

/// gridCoordinate() of a fixed-point fractional coordinate f: u = K f 2^-32 is exact in
/// double (f K < 2^53).
FARADAY_HD void gridCoordinateFixed(std::uint32_t f, int K, int order, int& first, float& w) {
  double wd;
  splitGridCoordinate<double>(double(f) * double(K) * 2.3283064365386962890625e-10, K, order, first, wd);
  w = float(wd);
}

// ---- Bins and bricks -------------------------------------------------------------------
// Atoms are binned by cell into bins of kBinEdge^3 cells (the last bin of a dimension may
// be thinner). The spreading gives one thread block a brick of kBrickEdge^3 grid points,
// origin o = kBrickEdge * brick index; the atoms that reach it are those whose cell lies in
// o - order + 1 .. o + kBrickEdge - 1 (periodically), which brickBins() lists as whole
// bins, per dimension. Inside the brick, an atom of cell c gives point o + g the weight
// theta[(o + g - c) mod K] when that index is below the order, else nothing
// (brickWeightIndex()); as K >= order, each (atom, point) pair is counted exactly once,
// even on grids smaller than a brick and its halo.

inline constexpr int kBinEdge = 4;
inline constexpr int kBrickEdge = 8;
/// Bins one dimension of a brick can need: its cells span at most kBrickEdge + 7 (order 8).
inline constexpr int kMaxBrickBins = (kBrickEdge + kMaxSplineOrder - 1 + kBinEdge - 1) / kBinEdge + 1;

FARADAY_HD int binsAlong(int K) { return (K + kBinEdge - 1) / kBinEdge; }
FARADAY_HD int bricksAlong(int K) { return (K + kBrickEdge - 1) / kBrickEdge; }

/// Bin index of cell (cx, cy, cz) with nb bins per dimension: z fastest.
FARADAY_HD std::uint32_t binIndex(const int nb[3], int cx, int cy, int cz) {
  return (std::uint32_t(cx / kBinEdge) * std::uint32_t(nb[1]) + std::uint32_t(cy / kBinEdge)) * std::uint32_t(nb[2]) +
         std::uint32_t(cz / kBinEdge);
}

/// The distinct bins (in one dimension of K cells) holding the cells o - order + 1 ..
/// min(o + kBrickEdge, K) - 1, taken periodically, in the order first met; returns their
/// number (at most kMaxBrickBins).
FARADAY_HD int brickBins(int K, int order, int o, int bins[kMaxBrickBins]) {
  int count = 0;
  const int last = o + kBrickEdge - 1 < K - 1 ? o + kBrickEdge - 1 : K - 1;
  for (int u = o - order + 1; u <= last; ++u) {
    int c = u % K;
    if (c < 0) c += K;
    const int b = c / kBinEdge;
    bool seen = false;
    for (int i = 0; i < count; ++i) seen = seen || bins[i] == b;
    if (!seen) bins[count++] = b;
  }
  return count;
}

/// The bins of brickBins() as a periodic run (no loop, no division: the spreading finds them
/// at the start of every brick): nb = binsAlong(K) bins; sets first and returns the length.
/// Bin first + i (minus nb past the last) is brickBins()'s i-th bin whenever the length is
/// at most nb; a longer run means that the cells wrap onto bins already met (grids of a few
/// bins), where brickBins() is needed. Needs 0 <= o < K and order <= K.
FARADAY_HD int brickBinRun(int K, int nb, int order, int o, int& first) {
  const int start = o - order + 1, last = (o + kBrickEdge < K ? o + kBrickEdge : K) - 1;
  if (start >= 0) {
    first = start / kBinEdge;
    return last / kBinEdge - first + 1;
  }
  first = (start + K) / kBinEdge;
  return nb - first + last / kBinEdge + 1;
}

/// Spline index of the point o + g for an atom of cell c: (o + g - c) mod K, in [0, K);
/// the point gets weight theta[index] when index < order. Needs |o + g - c| < 2K.
FARADAY_HD int brickWeightIndex(int K, int o, int g, int c) {
  int i = o + g - c;
  if (i < 0) i += K;
  if (i >= K) i -= K;
  return i;
}

/// Bin capacity for n atoms over `bins` bins: the mean plus five standard deviations of a
/// Poisson count plus 4. An evaluation that finds a fuller bin grows the capacity to fit
/// and runs again.
inline int initialBinCapacity(std::size_t n, std::size_t bins) {
  const double mean = double(n) / double(bins);
  return int(std::ceil(mean + 5.0 * std::sqrt(mean) + 4.0));
}

/// Per-dimension factor of the influence function: f[k] = |b(k)|^2 exp(-pi^2 m^2 / beta^2),
/// m = k'/L with the signed frequency k' = k (k <= K/2) or k - K. The influence function is
/// k_C / (pi V m^2) f_x f_y f_z (Essmann eq. 3.9). Host, double precision.
inline std::vector<double> influenceFactors(const std::vector<double>& moduli, double length, double beta) {
  constexpr double kPi = 3.14159265358979323846;
  const int K = int(moduli.size());
  std::vector<double> f(K);
  for (int k = 0; k < K; ++k) {
    const double m = double(k <= K / 2 ? k : k - K) / length;
    f[k] = moduli[k] * std::exp(-kPi * kPi * m * m / (beta * beta));
  }
  return f;
}

}  // namespace faraday::pme
