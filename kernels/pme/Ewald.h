#pragma once
#include <array>
#include <complex>
#include <vector>

#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Plain Ewald reciprocal sum in double precision: the reference for PME and for small
/// systems. With m = (k_x/L_x, k_y/L_y, k_z/L_z), g(m) = exp(-pi^2 m^2/beta^2)/m^2 and the
/// structure factor S(m) = sum_j q_j exp(2 pi i m.r_j):
///   E = k_C/(2 pi V) sum_{m != 0} g(m) |S(m)|^2,
///   F_i = (2 k_C / V) q_i sum_{m != 0} g(m) m Im[exp(2 pi i m.r_i) S*(m)],
///   W_ab = sum_m E_m [delta_ab - 2 (1 + pi^2 m^2/beta^2) m_a m_b / m^2].
/// The sum runs over half of k space (weight 2) with |m| <= m_cut, where
/// exp(-pi^2 m_cut^2 / beta^2) = kspaceRtol: every dropped term is smaller than rtol times
/// exp(0) relative to the exponential factor of the smallest m. exp(2 pi i m.r) is built per
/// atom from per-dimension powers. Parallel (OpenMP) over k vectors, then over atoms;
/// the result does not depend on the thread count.
class EwaldSum final : public ReciprocalSolver {
 public:
  /// beta in 1/nm, kspaceRtol in (0, 1), `threads` <= 0: omp_get_max_threads().
  EwaldSum(double beta, double kspaceRtol, int threads);

  std::string name() const override { return "ewald"; }
  ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                           std::vector<Vec3>& forces, Timers* timers) override;

  /// Largest |k_d| summed in each dimension for `box` (k_d = m_d L_d).
  std::array<int, 3> kmax(const Box& box) const;
  /// Number of k vectors in the half space for `box`.
  std::size_t numVectors(const Box& box) const;

 private:
  double beta_, rtol_;
  int threads_;
};

}  // namespace faraday
