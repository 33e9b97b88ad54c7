#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

}  // namespace faraday::tol

// ---- PME, Ewald and B-splines (branch cpu-pme) ----
namespace faraday::tol {

/// B-spline weights in float vs double: O(1) values after ~30 float operations,
/// float epsilon 6e-8; 1e-6 absolute leaves a factor ~15 of margin.
inline constexpr double kBSplineFloat = 1e-6;

}  // namespace faraday::tol
