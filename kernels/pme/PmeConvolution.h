#pragma once
// One point of smooth PME's convolution in double precision (Essmann et al. 1995, eq. 4.7 for
// the influence function, eq. 2.11 for the virial), shared by the CPU solvers: CpuPme over
// the whole half-complex grid, slabPme over each rank's rows.
#include <array>
#include <cmath>
#include <complex>

namespace faraday::pme {

/// Energy, then the virial W_xx, W_yy, W_zz, W_xy, W_xz, W_yz (kJ/mol).
using ConvolutionSums = std::array<double, 7>;

/// Multiplies the structure factor S(m) at m = (mx, my, mz) (1/nm) by the influence function
///   eterm(m) = prefactor exp(-piOverBeta2 m^2) / m^2 bxy bz,  prefactor = k_C / (pi V),
/// (bxy bz = |b_x|^2 |b_y|^2 |b_z|^2) and adds weight/2 eterm |S|^2 to the energy and
///   W_ab = weight/2 eterm |S|^2 [delta_ab - 2 (1 + pi^2 m^2 / beta^2) m_a m_b / m^2]
/// to the virial. weight: 2 for the half-complex planes 0 < m_z < K_z/2 (each stands for its
/// conjugate too), else 1. m = 0 is excluded (its S is set to 0; the neutralising background
/// is handled apart).
inline void convolvePoint(std::complex<double>& S, double mx, double my, double mz, double bxy, double bz,
                          double weight, double piOverBeta2, double prefactor, ConvolutionSums& sums) {
  const double m2 = mx * mx + my * my + mz * mz;
  if (m2 == 0.0) {
    S = 0.0;
    return;
  }
  const double eterm = prefactor * std::exp(-piOverBeta2 * m2) / m2 * bxy * bz;
  const double e = 0.5 * weight * eterm * std::norm(S);
  const double vfac = 2.0 * (1.0 + piOverBeta2 * m2) / m2;
  sums[0] += e;
  sums[1] += e * (1.0 - vfac * mx * mx);
  sums[2] += e * (1.0 - vfac * my * my);
  sums[3] += e * (1.0 - vfac * mz * mz);
  sums[4] -= e * vfac * mx * my;
  sums[5] -= e * vfac * mx * mz;
  sums[6] -= e * vfac * my * mz;
  S *= eterm;
}

}  // namespace faraday::pme
