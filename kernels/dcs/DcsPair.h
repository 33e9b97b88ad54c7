#pragma once
#include <cmath>
// The per-pair terms of a potential map, written once for the CPU reference and the
// CUDA kernels. Potential in kJ/(mol e) once multiplied by units::kCoulomb; these
// return q / r (e/nm) without the constant.
#include "core/HostDevice.h"

namespace faraday::dcs {

/// Lattice points closer than this to an atom (nm) skip that atom's term: the Coulomb
/// potential is singular at the atom, and a map point sitting on a nucleus carries no
/// meaning. VMD does the same (the term is dropped, not clamped). 1e-4 nm is far below
/// any map spacing (>= 0.01 nm) and far above float rounding of coordinates (~1e-6 nm).
inline constexpr double kMinDistance = 1e-4;
inline constexpr double kMinDistance2 = kMinDistance * kMinDistance;

/// Whether coordinate c (nm, relative to the lattice origin) lies within 2 kMinDistance of
/// a lattice plane of spacing h along one axis, for the coordinate itself and, when
/// periodic, its images one period away. An atom near planes on the axes a kernel does not
/// test could come within kMinDistance of a lattice point (float rounding included), so it
/// goes to the path that applies the near-atom test.
FARADAY_HD bool nearLatticePlane(double c, double h, double period, bool periodic) {
  const double margin = 2 * kMinDistance;
  const int images = periodic ? 1 : 0;
  for (int n = -images; n <= images; ++n) {
    const double v = c + n * period;
    if (fabs(v - nearbyint(v / h) * h) < margin) return true;
  }
  return false;
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
