#pragma once
// Grid keying, per-atom grid coordinates and the spreading windows of the GPU PME
// (CudaPme.cu). Written once for host and device, so that tests without a GPU can check
// them against the CPU code and against a direct scatter of the charges.
//
// Grid layout (as cuFFT and FFTW expect for r2c): point (ix, iy, iz) at
// (ix K_y + iy) K_z + iz, x slowest, z fastest.
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/HostDevice.h"
#include "kernels/pme/BSpline.h"

namespace faraday::pme {

/// Grid points per dimension.
struct GridDims {
  int k[3];
};

/// Number of grid cells K_x K_y K_z; also the sort key of atoms that are skipped (q = 0).
FARADAY_HD std::uint32_t numCells(const GridDims& g) {
  return std::uint32_t(g.k[0]) * std::uint32_t(g.k[1]) * std::uint32_t(g.k[2]);
}

/// Cell of an atom: the first grid point its spline touches in each dimension (cx, cy, cz).
/// Key (cx K_y + cy) K_z + cz, the grid index of that point: sorted by it, the atoms of one
/// (cx, cy) row with cz in a window are one contiguous range.
FARADAY_HD std::uint32_t cellKey(const GridDims& g, int cx, int cy, int cz) {
  return (std::uint32_t(cx) * std::uint32_t(g.k[1]) + std::uint32_t(cy)) * std::uint32_t(g.k[2]) + std::uint32_t(cz);
}

FARADAY_HD void decodeCellKey(const GridDims& g, std::uint32_t key, int& cx, int& cy, int& cz) {
  cz = int(key % std::uint32_t(g.k[2]));
  const std::uint32_t row = key / std::uint32_t(g.k[2]);
  cy = int(row % std::uint32_t(g.k[1]));
  cx = int(row / std::uint32_t(g.k[1]));
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

/// gridCoordinate() of a fixed-point fractional coordinate f: u = K f 2^-32 is exact in
/// double (f K < 2^53).
FARADAY_HD void gridCoordinateFixed(std::uint32_t f, int K, int order, int& first, float& w) {
  double wd;
  splitGridCoordinate<double>(double(f) * double(K) * 2.3283064365386962890625e-10, K, order, first, wd);
  w = float(wd);
}

// ---- Spreading windows ---------------------------------------------------------------
// The spreading kernel gives one warp a tile of kSpreadTileY x kSpreadTileZ grid points in
// (y, z) and a segment [x0, x1) in x, which it sweeps cell by cell. At the step for cell
// column cx it visits, in a fixed order, the sorted atoms of up to 32 windows: window
// `slot` = sub * 16 + r covers row cy = (gy0 - order + 1 + r) mod K_y and the z cells of
// [gz0 - order + 1, gz0 + kSpreadTileZ - 1]; sub 0 is the part of that z range below 0
// (wrapped to the top of the grid), sub 1 the rest. Each lane tests the unwrapped offsets
// gy - yUnwrapped and gz - (cz + zShift) against [0, order): as K >= order, a (cell, point)
// pair passes for at most one unwrapped image, so every contribution is added exactly once
// even when the windows of a small grid overlap.

inline constexpr int kSpreadTileY = 4;
inline constexpr int kSpreadTileZ = 8;

struct SpreadWindow {
  bool valid;
  int yUnwrapped;  ///< row index before wrapping (may be negative)
  int cy;          ///< row index in [0, K_y)
  int zLo, zHi;    ///< z cells [zLo, zHi], in [0, K_z)
  int zShift;      ///< unwrapped z = cz + zShift
};

FARADAY_HD SpreadWindow spreadWindow(const GridDims& g, int order, int gy0, int gz0, int slot) {
  SpreadWindow w{false, 0, 0, 0, -1, 0};
  const int r = slot & 15, sub = slot >> 4;
  const int yU = gy0 - order + 1 + r;
  const int yHi = gy0 + kSpreadTileY - 1 < g.k[1] - 1 ? gy0 + kSpreadTileY - 1 : g.k[1] - 1;
  if (yU > yHi) return w;
  w.yUnwrapped = yU;
  w.cy = yU < 0 ? yU + g.k[1] : yU;
  const int zLo = gz0 - order + 1;
  const int zHi = gz0 + kSpreadTileZ - 1 < g.k[2] - 1 ? gz0 + kSpreadTileZ - 1 : g.k[2] - 1;
  if (sub == 0) {
    if (zLo >= 0) return w;
    w.zLo = zLo + g.k[2];
    w.zHi = g.k[2] - 1;
    w.zShift = -g.k[2];
  } else {
    w.zLo = zLo > 0 ? zLo : 0;
    w.zHi = zHi;
    w.zShift = 0;
  }
  w.valid = true;
  return w;
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
