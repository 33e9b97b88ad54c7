#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

}  // namespace faraday::tol

// ---- Potential maps (DCS) -------------------------------------------------------------
namespace faraday::tol {

/// GPU map (float pair math, rsqrtf) vs the CPU double reference, relative RMS over the
/// lattice: the accuracy target of the map kernels. Float coordinates (rounding ~3e-7 nm
/// at 5 nm) and rsqrtf (2 ulp) give ~1e-6 per term; the per-point sums are folded into
/// double every 32 atoms, so accumulation adds little.
inline constexpr double kDcsGpuRelRms = 1e-5;
/// Any two GPU kernel variants (same float pair terms, different accumulation order and
/// precision): a float accumulator over n <= 4000 terms of one constant-memory chunk
/// drifts by ~u sqrt(n) = 6e-8 x 63 = 4e-6 relative; 1e-5 leaves a factor 2.5.
inline constexpr double kDcsVariantRelRms = 1e-5;
/// One GPU point vs k q / r for a lone charge at r >= 0.04 nm, coordinates <= 2.1 nm from
/// the lattice origin: float rounding <= 1.2e-7 nm per coordinate (relative 3e-6 at
/// 0.04 nm, three of them) plus rsqrtf's 2 ulp: <= 1e-5; 2e-5.
inline constexpr double kDcsFloatPointRel = 2e-5;
/// OpenDX values are written with 9 significant digits ("%.8e"): relative 5e-9 per value.
inline constexpr double kDxRoundTripRel = 1e-8;
/// MRC mode 2 stores float32: relative rounding 6e-8 per value.
inline constexpr double kMrcRoundTripRel = 1e-7;

}  // namespace faraday::tol
