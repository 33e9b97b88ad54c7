#pragma once
// Grid keying, per-atom grid coordinates and the spreading bricks of the GPU PME
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
/// `length` nm, as 32-bit fixed point: round(s 2^32), where 2^32 wraps to 0, the same
/// periodic image. Resolution 2.3e-10 of the box edge (finer than a float offset); half
/// the bytes of a double position: what the host uploads to the GPU PME.
FARADAY_HD std::uint32_t fractionalFixedPoint(double x, double length) {
  double s = x / length;
  s -= floor(s);
  return std::uint32_t(static_cast<std::uint64_t>(s * 4294967296.0 + 0.5) & 0xffffffffu);
}

/// gridCoordinate() of a fixed-point fractional coordinate f: u = K f 2^-32 is exact in
/// double (f K < 2^53).
FARADAY_HD void gridCoordinateFixed(std::uint32_t f, int K, int order, int& first, float& w) {
  double wd;
  splitGridCoordinate<double>(double(f) * double(K) * 2.3283064365386962890625e-10, K, order, first, wd);
  w = float(wd);
}

// ---- Spreading bricks ------------------------------------------------------------------
// The spreading kernel gives one thread block a brick of kBrick^3 grid points with origin
// (x0, y0, z0) (bricks at the high edges are cut at K). The atoms whose spline reaches the
// brick are those of the cells with unwrapped first index u in [b - order + 1, end - 1] per
// dimension (b the brick origin, end = min(b + kBrick, K)). Sorted by cell key, they form one
// contiguous range of sorted atoms per (x, y) cell row and z piece: the halo has
// brickHalo(order)^2 rows; each row has up to two z pieces, the part of the z range below 0
// (wrapped to the top of the grid) and the rest. An atom of cell (cx, cy, cz) in a row adds
// to the brick points (rx + i, ry + j, cz + rzShift + k), i, j, k in [0, order), that lie
// in [0, kBrick)^3. As K >= order, a (cell, point) pair passes for at most one unwrapped
// image, so every contribution is added exactly once even when the halo of a small grid
// covers a cell twice.

inline constexpr int kBrick = 8;

FARADAY_HD int brickHalo(int order) { return kBrick + order - 1; }

/// Bricks per dimension for K grid points.
FARADAY_HD int bricksAlong(int K) { return (K + kBrick - 1) / kBrick; }

struct BrickRow {
  bool valid;
  int rx, ry;               ///< first-point offset of the row's cells from the brick origin
  std::uint32_t rowKey;     ///< cellKey(g, cx, cy, 0)
  int zBegin[2], zEnd[2];   ///< z cells [zBegin, zEnd) of the two pieces (may be empty)
  int rzShift[2];           ///< offset from the brick origin of cell cz: cz + rzShift
};

/// Row `row` in [0, brickHalo(order)^2) of the halo of the brick with origin (x0, y0, z0).
FARADAY_HD BrickRow brickRow(const GridDims& g, int order, int x0, int y0, int z0, int row) {
  BrickRow r{false, 0, 0, 0, {0, 0}, {0, 0}, {0, 0}};
  const int h = brickHalo(order);
  const int ux = x0 - order + 1 + row / h, uy = y0 - order + 1 + row % h;
  const int xEnd = x0 + kBrick < g.k[0] ? x0 + kBrick : g.k[0];
  const int yEnd = y0 + kBrick < g.k[1] ? y0 + kBrick : g.k[1];
  if (row >= h * h || ux >= xEnd || uy >= yEnd) return r;
  r.valid = true;
  r.rx = ux - x0;
  r.ry = uy - y0;
  r.rowKey = cellKey(g, ux < 0 ? ux + g.k[0] : ux, uy < 0 ? uy + g.k[1] : uy, 0);
  const int zLo = z0 - order + 1;
  const int zEnd = z0 + kBrick < g.k[2] ? z0 + kBrick : g.k[2];
  if (zLo < 0) {
    r.zBegin[0] = zLo + g.k[2];
    r.zEnd[0] = g.k[2];
    r.rzShift[0] = -g.k[2] - z0;
  }
  r.zBegin[1] = zLo > 0 ? zLo : 0;
  r.zEnd[1] = zEnd;
  r.rzShift[1] = -z0;
  return r;
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
