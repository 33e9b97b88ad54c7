#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

// ---- Short-range forces, neighbor list, integrators (branch cpu-forces) ----

/// Central-difference step for F = -dE/dx checks, nm. The truncation error h^2/6 |U'''|
/// (|U'''| < 1e6 kJ/mol/nm^3 for LJ pairs at r >= 0.27 nm) is ~2e-5 kJ/mol/nm, and the
/// rounding error 1e-16 |E| / h (|E| ~ 1e3 kJ/mol) is ~2e-8: both below kLjFiniteDifferenceForce.
inline constexpr double kLjFiniteDifferenceStep = 1e-5;
/// Allowed |F_analytic + dE/dx| / max(1, |F|) (kJ/mol/nm): the truncation error above
/// with a factor 5 of margin.
inline constexpr double kLjFiniteDifferenceForce = 1e-4;

/// Statistical tests (Langevin temperature, velocity distributions): allowed deviation in
/// standard errors. 4.5 sigma: a false alarm once in ~150000 runs of one test.
inline constexpr double kStatisticalSigmas = 4.5;
/// NVE total-energy drift of the argon liquid test, kJ/mol/ps per atom. GROMACS' default
/// verlet-buffer-tolerance accepts 0.005 kJ/mol/ps per atom of drift from missed pairs
/// alone; the CPU list misses no pairs, so what remains is the velocity-Verlet error at
/// dt = 4 fs and the force jump F(rc) ~ 0.04 kJ/mol/nm of the potential-shifted LJ at the
/// cutoff (measured: ~2e-6). The bound is 1% of GROMACS' tolerance: a list rebuilt only
/// after moves of 2 x buffer gives ~9e-4, a wrong kick or an inconsistent force far more.
inline constexpr double kArgonNveDriftPerAtom = 5e-5;
/// Velocity Verlet's energy error is O(dt^2): halving dt must divide the rms fluctuation of
/// the total energy by 4. Allowed range of that ratio: [3, 5] (the cutoff's force jump adds
/// a small part that does not scale as dt^2; a first-order scheme gives ~2).
inline constexpr double kVerletScalingMin = 3.0;
inline constexpr double kVerletScalingMax = 5.0;
/// Velocity-Verlet reversibility over 2 x 100 steps of liquid argon, nm: rounding (1e-16
/// relative on positions of a few nm) grows by e^(lambda t) with a Lyapunov exponent of a
/// few per ps over 0.8 ps: 1e-9 nm still leaves orders of magnitude of margin, and a
/// non-symmetric update misses by ~1e-3 nm.
inline constexpr double kReversibilityPosition = 1e-9;

/// F/r against -(dU/dr)/r by central differences with h = 1e-6 r, relative to |F/r| + |U|/r^2:
/// truncation h^2 |U'''| / 6 ~ 1e-12 relative and rounding 1e-16 |U| / h ~ 1e-10 relative;
/// 1e-7 leaves three orders of margin.
inline constexpr double kPairDerivative = 1e-7;
/// Float pair math against double, relative: float epsilon 6e-8 times the ~10 roundings
/// and the cancellation of the two LJ terms (bounded by using |U| + 4|c6/r^6| as scale).
inline constexpr double kFloatPair = 2e-6;

}  // namespace faraday::tol
