#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/System.h"
#include "kernels/pme/ElectrostaticsMethod.h"
#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Effective Ewald parameters of a run (built from the configuration by chooseEwaldSetup,
/// engine/config/KernelParams.h).
struct EwaldSetup {
  ElectrostaticsMethod method = ElectrostaticsMethod::None;
  double cutoff = 0;            ///< real-space cutoff, nm
  double beta = 0;              ///< 1/nm, from erfc(beta * cutoff) = ewald_rtol
  PmeParams pme;                ///< order and grid (method = pme)
  double kspaceRtol = 0;        ///< plain Ewald: terms below this relative size are dropped
};

/// beta such that erfc(beta * cutoff) = rtol (bisection, to full double precision).
double ewaldBetaFromRtol(double cutoff, double rtol);
/// PME grid spacing (nm) for which the reciprocal-space force error stays below `rtol`.
/// Error measure: RMS |F_PME - F_Ewald| of the reciprocal forces over RMS of the total
/// electrostatic force. Model: error ~ A_p (beta h)^p for order p, with A_p fitted as an upper
/// envelope to PME-vs-Ewald comparisons on random +-1 ion systems at molten-NaCl density for
/// beta 2.5..5.5 /nm (A = 0.2, 0.04, 0.035, 0.03, 0.025 for p = 4..8); beta h is capped at
/// 0.5. Order 4 at the GROMACS default 0.12 nm with beta = 3.12 /nm (rc 1 nm, rtol 1e-5)
/// gives ~6e-4, well above rtol: tight tolerances need higher orders or finer grids.
double pmeSpacingForRtol(double beta, int order, double rtol);
/// Plain Ewald's default k-space cut, as the factor exp(-pi^2 m_cut^2 / beta^2) that EwaldSum
/// takes, for ewald_kspace_rtol = 0. With |S(m)|^2 ~ sum q^2 beyond the cut (uncorrelated
/// charges), the dropped tail of the reciprocal energy is about
///   k_C sum q^2 (beta / sqrt(pi)) erfc(pi m_cut / beta) = |E_self| erfc(pi m_cut / beta),
/// and the reciprocal energy is a fraction of |E_self| (about half for random ions at the NaCl
/// melt density, less in a screened liquid). The cut takes erfc(pi m_cut / beta) =
/// min(1e-10, 1e-5 ewald_rtol) (1e-10 at the default rtol): a reciprocal energy converged to
/// ~1e-10 of itself (2e-10 measured; 3e-6 with the cut at exp(...) = ewald_rtol), tighter
/// still when ewald_rtol asks for more.
double ewaldKspaceRtolFor(double ewaldRtol);
/// The force-error model of pmeSpacingForRtol for a given spacing h (nm): A_p (beta h)^p,
/// RMS reciprocal force error over the RMS electrostatic force (an upper envelope).
double pmeForceErrorEstimate(double beta, int order, double spacing);
/// Smallest n' >= n whose only prime factors are 2, 3, 5 and 7.
int nextFftSize(int n);
/// The B-spline orders PME takes.
inline constexpr int kMinPmeOrder = 4;
inline constexpr int kMaxPmeOrder = 8;
/// The largest PME grid: kMaxPmeGridEdge points along an edge and kMaxPmeGridPoints points
/// in all (the GPU PME's 32-bit bin and grid indices).
inline constexpr int kMaxPmeGridEdge = 4096;
inline constexpr double kMaxPmeGridPoints = 2.0e9;
/// Bytes of the CPU PME's grids for nx x ny x nz points: the real grid (8 B a point) and the
/// half complex grid of the real-to-complex FFT (16 B for each of nx ny (nz/2 + 1) points).
double pmeGridBytes(double nx, double ny, double nz);
/// One-line description, printed at start: method, beta, grid, order.
std::string describe(const EwaldSetup& setup);

/// Self energy -k_C beta/sqrt(pi) sum q_i^2, kJ/mol.
double ewaldSelfEnergy(double beta, const std::vector<double>& charges);
/// Neutralising-background energy -k_C pi Q^2 / (2 V beta^2) for net charge Q, kJ/mol.
double ewaldNetChargeEnergy(double beta, double netCharge, double volume);

/// Net charge above which a warning is printed at setup, e.
inline constexpr double kNetChargeWarningThreshold = 1e-5;
/// Prints one warning line to stderr when |sum q| > kNetChargeWarningThreshold: the
/// neutralising-background correction is then applied, which changes the physics (a
/// uniform background charge) and makes the energy depend on the box.
void warnIfCharged(const System& system);

/// The reciprocal-space solver for `setup`: CPU PME (FFTW, `threads` OpenMP threads),
/// CUDA PME when `useCuda`, or the plain Ewald sum for method = ewald. Null for none.
std::unique_ptr<ReciprocalSolver> makeReciprocalSolver(const EwaldSetup& setup, const System& system,
                                                       bool useCuda, int threads);

}  // namespace faraday
