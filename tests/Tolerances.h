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

// ---- PME, Ewald and B-splines (branch cpu-pme) ----
namespace faraday::tol {

/// B-spline weights in float vs double: O(1) values after ~30 float operations,
/// float epsilon 6e-8; 1e-6 absolute leaves a factor ~15 of margin.
inline constexpr double kBSplineFloat = 1e-6;

/// Madelung constants from the Ewald/PME energy of a perfect crystal: the brief's
/// accuracy target (1e-5 relative); with rtol 1e-12 the method error is far below it.
inline constexpr double kMadelung = 1e-5;
/// Total electrostatic energy at different beta (same real-space rtol 1e-8 and converged
/// k space): the remaining real-space truncation changes the energy by ~1e-8 relative
/// per term; 1e-5 relative is the brief's target with three orders of margin.
inline constexpr double kEnergyBetaIndependence = 1e-5;
/// Forces against central differences of the energy (h = 1e-5 nm): truncation error
/// h^2 E''' / 6 ~ 1e-10 F and rounding eps E / h ~ 1e-8 relative; 1e-6 relative to the
/// RMS force leaves margin. (PME forces are the exact gradient of the PME energy.)
inline constexpr double kFiniteDifferenceElectrostaticForce = 1e-6;
/// Virial tensor from a finite strain (+-1e-6) of the reciprocal energy: central
/// difference error ~1e-12 relative plus rounding ~1e-10 relative; 1e-7 relative to |W|.
inline constexpr double kFiniteDifferenceVirial = 1e-7;
/// Plain Ewald: sum of all forces is zero up to rounding in ~1e4 k vectors x 1e3 atoms.
inline constexpr double kEwaldNetForce = 1e-10;
/// PME's interpolation breaks translation invariance, so sum F is not zero; the drift force
/// is of the order of the force error. Bound: |sum F| / (sqrt(N) F_rms) below 2 rtol at the
/// settings of pmeSpacingForRtol (same budget as the force error).
inline constexpr double kPmeNetForceOverRtol = 2.0;
/// PME force error: RMS |F_PME,rec - F_Ewald,rec| / RMS |F_elec,total| must stay below
/// 2 x ewald_rtol at the spacing of pmeSpacingForRtol (the claim made for the parameters;
/// the same factor 2 as OpenMM's error-tolerance test).
inline constexpr double kPmeForceErrorOverRtol = 2.0;
/// PME vs plain Ewald with order 8 and beta h ~ 0.15: measured agreement ~1e-9 in energy and
/// forces; 1e-7 relative leaves two orders of margin and still catches any wrong factor.
inline constexpr double kPmeTightVsEwald = 1e-7;
/// Virial trace equals the total Coulomb energy (homogeneity of degree -1), up to the
/// method error of the tight settings (~1e-8); 1e-6 relative.
inline constexpr double kVirialTrace = 1e-6;

/// NVE energy drift per atom of the NaCl melt (1000 ions, PME order 4 / 0.12 nm, rtol 1e-5,
/// dt 2 fs), kJ/mol/ps: GROMACS' default verlet-buffer-tolerance, 0.005 kJ/mol/ps per atom,
/// is the drift it accepts from pair-list errors alone; the run must stay below it.
inline constexpr double kNveDriftPerAtom = 0.005;
/// RMS of the total energy about its linear trend relative to the kinetic energy: velocity
/// Verlet's shadow-energy oscillation at dt 2 fs is O(dt^2) ~ 1e-4 of the kinetic energy for
/// this melt; 1e-3 catches a wrong force (which gives O(1e-2) or worse).
inline constexpr double kNveFluctuationOverKinetic = 1e-3;

}  // namespace faraday::tol

// ---- GPU PME (branch cuda-pme) ----
namespace faraday::tol {

/// GPU PME vs CpuPme, same beta, grid and order. The GPU forms fractional coordinates in
/// double, then works in float: spline weights (rel. ~1e-7), grid sums of ~order^3 x 0.06
/// atoms per point, single-precision cuFFT (rel. RMS ~1e-7 log2 N) and the force
/// interpolation; the energy and virial are summed in double. Expected agreement ~1e-6;
/// 1e-5 is the accuracy the GPU PME promises (as in the source document: single precision
/// reaches 1e-5 energy and force errors).
inline constexpr double kCudaPmeEnergy = 1e-5;
/// Forces: relative RMS over all atoms, sqrt(sum |F_gpu - F_cpu|^2 / sum |F_cpu|^2).
inline constexpr double kCudaPmeForceRms = 1e-5;
/// Virial: largest component difference over the largest |W_ab| of the CPU tensor.
inline constexpr double kCudaPmeVirial = 1e-5;

}  // namespace faraday::tol
