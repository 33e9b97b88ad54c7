#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

// ---- Short-range forces, neighbor list, integrators (branch cpu-forces) ----

/// Central-difference step for F = -dE/dx checks, nm. The truncation error h^2/6 |U'''|
/// (|U'''| < 1e6 kJ/mol/nm^3 for LJ pairs at r >= 0.27 nm) is ~2e-5 kJ/mol/nm, and the
/// rounding error 1e-16 |E| / h (|E| ~ 1e3 kJ/mol) is ~2e-8: both below kFiniteDifferenceForce.
inline constexpr double kFiniteDifferenceStep = 1e-5;
/// Allowed |F_analytic + dE/dx| / max(1, |F|) (kJ/mol/nm): the truncation error above
/// with a factor 5 of margin.
inline constexpr double kFiniteDifferenceForce = 1e-4;

}  // namespace faraday::tol
