#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/Config.h"
#include "engine/System.h"
#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Effective Ewald parameters of a run, derived from the [electrostatics] keys.
struct EwaldSetup {
  std::string method = "none";  ///< pme | ewald | none
  double cutoff = 0;            ///< real-space cutoff, nm
  double beta = 0;              ///< 1/nm, from erfc(beta * cutoff) = ewald_rtol
  PmeParams pme;                ///< order and grid (method = pme)
  double kspaceRtol = 0;        ///< plain Ewald: terms below this relative size are dropped
};

/// beta such that erfc(beta * cutoff) = rtol (bisection, to full double precision).
double ewaldBetaFromRtol(double cutoff, double rtol);
/// Smallest n' >= n whose only prime factors are 2, 3, 5 and 7.
int nextFftSize(int n);
/// The setup for `config` and `box`; throws Error naming the key for invalid values.
EwaldSetup chooseEwaldSetup(const Config& config, const Box& box);
/// One-line description, printed at start: method, beta, grid, order.
std::string describe(const EwaldSetup& setup);

/// Self energy -k_C beta/sqrt(pi) sum q_i^2, kJ/mol.
double ewaldSelfEnergy(double beta, const std::vector<double>& charges);
/// Neutralising-background energy -k_C pi Q^2 / (2 V beta^2) for net charge Q, kJ/mol.
double ewaldNetChargeEnergy(double beta, double netCharge, double volume);

/// The reciprocal-space solver for `setup`: CPU PME (FFTW, `threads` OpenMP threads),
/// CUDA PME when `useCuda`, or the plain Ewald sum for method = ewald. Null for none.
std::unique_ptr<ReciprocalSolver> makeReciprocalSolver(const EwaldSetup& setup, const System& system,
                                                       bool useCuda, int threads);

}  // namespace faraday
