#pragma once
// Every numerical tolerance used by the tests, each with the reason for its size.
namespace faraday::tol {

/// Double-precision arithmetic on sums of O(1e3..1e5) terms of magnitude O(1):
/// rounding grows like sqrt(n) * 1e-16; 1e-12 relative leaves three orders of margin.
inline constexpr double kDoubleSum = 1e-12;

}  // namespace faraday::tol
