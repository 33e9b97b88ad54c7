#pragma once
#include <cmath>
// The per-pair terms of a potential map, written once for the CPU reference and the
// CUDA kernels. Potential in kJ/(mol e) once multiplied by units::kCoulomb; these
// return q / r (e/nm) without the constant.
#include "core/HostDevice.h"
#include "kernels/dcs/ShearedBox.h"

namespace faraday::dcs {

/// Lattice points closer than this to an atom (nm) skip that atom's term: the Coulomb
/// potential is singular at the atom, and a map point sitting on a nucleus carries no
/// meaning. VMD does the same (the term is dropped, not clamped). 1e-4 nm is far below
/// any map spacing (>= 0.01 nm) and far above float rounding of coordinates (~1e-6 nm).
inline constexpr double kMinDistance = 1e-4;
inline constexpr double kMinDistance2 = kMinDistance * kMinDistance;

/// What the near-atom tests of the GPU kernels need: the lattice's step vectors as a sheared
/// box (lattice point (i, j, k) at sheared coordinates (i h_x, j h_y, k h_z)), the margin per
/// sheared axis (2 kMinDistance times the axis' stretch: the rounding of float coordinates
/// included) and, for a periodic map, the box (whose images are tested).
struct NearTest {
  ShearedBox lattice;
  double h[3];       ///< nm
  double margin[3];  ///< nm, along the lattice's sheared axes
  ShearedBox box;    ///< the periodic box (unused when not periodic)
  bool periodic;
};

/// Whether sheared coordinate t lies within `margin` of a lattice plane t = n h.
FARADAY_HD bool nearPlane(double t, double h, double margin) { return fabs(t - nearbyint(t / h) * h) < margin; }

/// Whether an atom at (x, y, z) (nm, relative to the lattice origin), or, when periodic, one
/// of the images of its representative in the cell (ShearedBox::wrapIntoCell) one box vector
/// away, could come within kMinDistance of a lattice point, or with `rowsOnly` of a lattice
/// row (a line of points along x; x is not used). An atom near no row cannot come that close
/// to any point, so it needs no per-pair test in the gather kernels. (A lattice over the cell
/// lies within those images.)
FARADAY_HD bool nearLattice(const NearTest& n, double x, double y, double z, bool rowsOnly) {
  const int images = n.periodic ? 1 : 0;
  if (n.periodic) {
    double r[3] = {x, y, z}, t[3];
    n.box.wrapIntoCell(r, t);
    x = r[0];
    y = r[1];
    z = r[2];
  }
  for (int mz = -images; mz <= images; ++mz) {
    const double zi = z + mz * n.box.cz;
    if (!nearPlane(zi, n.h[2], n.margin[2])) continue;
    for (int my = -images; my <= images; ++my) {
      const double yi = y + my * n.box.by + mz * n.box.cy;
      const double ty = yi - n.lattice.syz * zi;
      if (!nearPlane(ty, n.h[1], n.margin[1])) continue;
      if (rowsOnly) return true;
      for (int mx = -images; mx <= images; ++mx) {
        const double xi = x + mx * n.box.ax + my * n.box.bx + mz * n.box.cx;
        if (nearPlane(xi - n.lattice.sxy * ty - n.lattice.sxz * zi, n.h[0], n.margin[0])) return true;
      }
    }
  }
  return false;
}
FARADAY_HD bool nearLatticeRow(const NearTest& n, double y, double z) { return nearLattice(n, 0, y, z, true); }
FARADAY_HD bool nearLatticePoint(const NearTest& n, double x, double y, double z) {
  return nearLattice(n, x, y, z, false);
}

/// Direct term q / r for r^2 = r2 (nm^2), rinv = 1/r, q in e; 0 when r < kMinDistance.
/// Flops: 1 compare + select, 1 mul (fused into the caller's add) besides the rsqrt.
template <typename T>
FARADAY_HD T directTerm(T q, T r2, T rinv) {
  return q * (r2 >= T(kMinDistance2) ? rinv : T(0));
}

/// Cutoff term with the switching of Rodrigues et al. (2008), as in VMD's cutoff maps:
///   q / r * (1 - r^2/rc^2)^2   for r < rc, else 0.
/// Value and first derivative vanish at rc, so the map is continuous (and smooth) at the
/// cutoff; it needs only r^2 and 1/r (no extra square root). inv_rc2 = 1/rc^2 (nm^-2).
/// Flops: 1 fma + 1 max (s), 1 compare + select, 2 mul, besides the rsqrt.
template <typename T>
FARADAY_HD T cutoffTerm(T q, T r2, T rinv, T inv_rc2) {
  T s = T(1) - r2 * inv_rc2;
  s = s > T(0) ? s : T(0);
  return q * (r2 >= T(kMinDistance2) ? rinv : T(0)) * (s * s);
}

/// cutoffTerm for a pair known to be at least kMinDistance apart (the GPU cutoff kernel
/// sends atoms that could come that close to a lattice point to the host list): no test.
/// Flops: 1 fma + 1 max (s), 3 mul/fma, besides the rsqrt.
template <typename T>
FARADAY_HD T cutoffTermFar(T q, T r2, T rinv, T inv_rc2) {
  T s = T(1) - r2 * inv_rc2;
  s = s > T(0) ? s : T(0);
  return (q * rinv) * (s * s);
}

#if defined(__CUDACC__)
/// 1/sqrt(x) in one special-function instruction (MUFU.RSQ) with denormal inputs flushed
/// to zero. Plain rsqrtf (no -ftz) wraps MUFU in a denormal fix-up of ~3 more instructions
/// per pair, which costs a third of the gather kernels' throughput; r^2 here is either 0
/// (rsqrt = inf, then dropped by the kMinDistance test) or far above the denormal range.
__device__ __forceinline__ float fastRsqrt(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
#endif

}  // namespace faraday::dcs
