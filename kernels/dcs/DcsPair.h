#pragma once
// The per-pair terms of a potential map, written once for the CPU reference and the
// CUDA kernels. Potential in kJ/(mol e) once multiplied by units::kCoulomb; these
// return q / r (e/nm) without the constant.
#include "engine/HostDevice.h"

namespace faraday::dcs {

/// Lattice points closer than this to an atom (nm) skip that atom's term: the Coulomb
/// potential is singular at the atom, and a map point sitting on a nucleus carries no
/// meaning. VMD does the same (the term is dropped, not clamped). 1e-4 nm is far below
/// any map spacing (>= 0.01 nm) and far above float rounding of coordinates (~1e-6 nm).
inline constexpr double kMinDistance = 1e-4;
inline constexpr double kMinDistance2 = kMinDistance * kMinDistance;

/// Direct term q / r for r^2 = r2 (nm^2), q in e; 0 when r < kMinDistance.
/// Flops: 1 rsqrt, 1 mul, 1 compare (the float kernels use rsqrtf).
template <typename T>
FARADAY_HD T directTerm(T q, T r2, T rinv) {
  return r2 >= T(kMinDistance2) ? q * rinv : T(0);
}

/// Cutoff term with the switching of Rodrigues et al. (2008), as in VMD's cutoff maps:
///   q / r * (1 - r^2/rc^2)^2   for r < rc, else 0.
/// Value and first derivative vanish at rc, so the map is continuous (and smooth) at the
/// cutoff; it needs only r^2 and 1/r (no extra square root). inv_rc2 = 1/rc^2 (nm^-2).
template <typename T>
FARADAY_HD T cutoffTerm(T q, T r2, T rinv, T inv_rc2) {
  const T s = T(1) - r2 * inv_rc2;
  return (r2 >= T(kMinDistance2) && s > T(0)) ? q * rinv * s * s : T(0);
}

}  // namespace faraday::dcs
