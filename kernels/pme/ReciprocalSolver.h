#pragma once
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Timers.h"
#include "core/Vec3.h"

namespace faraday {

/// Parameters of smooth PME (Essmann et al. 1995).
struct PmeParams {
  double beta = 0;                 ///< Ewald splitting parameter, 1/nm
  int order = 4;                   ///< B-spline order (4..8)
  std::array<int, 3> grid{0, 0, 0};  ///< FFT grid points per dimension
};

/// Result of a reciprocal-space evaluation.
struct ReciprocalResult {
  double energy = 0;  ///< kJ/mol
  Tensor3 virial;     ///< kJ/mol, same convention as Energies::virial
};

/// Reciprocal-space part of Ewald electrostatics: smooth PME on the CPU (FFTW) or the GPU
/// (cuFFT), or the plain Ewald k-space sum (the double-precision reference). PME
/// implementations run the same phases, each timed under its own name in `timers`:
///   pme.spline       per atom: fractional coordinates, grid index, B-splines and derivatives
///   pme.spread       charge spreading onto the grid
///   pme.fft_forward  real-to-complex 3D FFT
///   pme.convolve     influence function, energy and virial
///   pme.fft_inverse  complex-to-real 3D FFT
///   pme.gather       force interpolation
/// (The GPU PME may do the x transforms inside pme.convolve: then pme.fft_forward and
/// pme.fft_inverse are the (y, z) transforms.)
class ReciprocalSolver {
 public:
  virtual ~ReciprocalSolver() = default;
  virtual std::string name() const = 0;
  /// Positions in nm, charges in e. Adds reciprocal forces (kJ/mol/nm) into `forces`
  /// (sized like positions) and returns the reciprocal energy and virial.
  virtual ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                   const Box& box, std::vector<Vec3>& forces, Timers* timers) = 0;
  /// Seconds the last compute() spent in the evaluation proper (binning to forces, with the
  /// data on the device, transfers excluded), where the solver measures it; else < 0.
  virtual double lastEvaluationSeconds() const { return -1.0; }
};

}  // namespace faraday
