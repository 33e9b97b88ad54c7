#pragma once
#include <array>
#include <complex>
#include <vector>

#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Smooth PME on the CPU (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) in double
/// precision: the oracle the GPU PME is tested against. FFTW r2c/c2r 3D plans are made
/// once (threaded with fftw3_omp); every phase is a separate function, timed under its
/// name. Results do not depend on the thread count: spreading is parallel over x planes
/// of the grid (each plane summed by one thread in a fixed atom order), reductions are
/// per plane and then summed in plane order.
/// Rectangular boxes only. Atoms with zero charge are skipped.
class CpuPme final : public ReciprocalSolver {
 public:
  /// `threads` <= 0: omp_get_max_threads().
  CpuPme(const PmeParams& params, int threads);
  ~CpuPme() override;
  CpuPme(const CpuPme&) = delete;
  CpuPme& operator=(const CpuPme&) = delete;

  std::string name() const override { return "cpu-pme"; }
  ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                           std::vector<Vec3>& forces, Timers* timers) override;

  const PmeParams& params() const { return params_; }
  /// Threads used by the FFTW plans (fewer than the solver's for small grids).
  int fftThreads() const { return fftThreads_; }
  /// The real grid after the last compute (the convolved potential grid, kJ/mol/e).
  const std::vector<double>& realGrid() const { return realGrid_; }

 private:
  void computeSplines(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box);
  void spreadCharges();
  void forwardFft();
  ReciprocalResult convolve(const Box& box);
  void inverseFft();
  void gatherForces(const Box& box, std::vector<Vec3>& forces);

  std::size_t realIndex(int ix, int iy, int iz) const {
    return (std::size_t(ix) * K_[1] + iy) * K_[2] + iz;
  }

  PmeParams params_;
  int threads_;
  int fftThreads_ = 1;                     ///< threads of the FFTW plans
  std::array<int, 3> K_;
  int complexZ_;                           ///< K_z / 2 + 1
  std::array<std::vector<double>, 3> moduli_;  ///< |b(m)|^2 per dimension
  std::vector<double> realGrid_;           ///< K_x K_y K_z, charges then potential
  std::vector<std::complex<double>> complexGrid_;  ///< K_x K_y (K_z/2+1)
  void* forwardPlan_ = nullptr;            ///< fftw_plan
  void* inversePlan_ = nullptr;            ///< fftw_plan

  // Per charged atom (compact list), per dimension, `order` weights.
  std::vector<int> charged_;               ///< indices of atoms with q != 0
  std::vector<double> q_;                  ///< their charges, e
  std::vector<double> theta_, dtheta_;     ///< [atom][dim][order]
  std::vector<int> first_;                 ///< [atom][dim] first grid index
  std::vector<int> bucketStart_, bucketAtoms_;  ///< atoms sorted by first x index
};

}  // namespace faraday
