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

// ---- Engine I/O: coordinate files, trajectories (branch engine-io) ----

/// DCD stores Angstrom as float32: converting a double rounds to the nearest float,
/// a relative error of at most 2^-24; one float ulp (2^-23 ~ 1.2e-7) relative leaves a
/// factor 2 for the nm <-> Angstrom scaling in double.
inline constexpr double kFloat32Relative = 1.2e-7;
/// A .gro written with d decimals is read back within half a unit of the last decimal,
/// 0.5 * 10^-d nm; the factor (1 + 1e-9) absorbs the double rounding of the parsed value.
inline constexpr double kGroHalfLastDecimal = 0.5 * (1 + 1e-9);
/// PDB coordinates go nm -> Angstrom (x10) -> text -> x0.1: two roundings of values
/// below 100 nm, each < 1 ulp (~1.4e-14 nm); 1e-12 nm leaves a wide margin.
inline constexpr double kPdbRoundTrip = 1e-12;

}  // namespace faraday::tol
