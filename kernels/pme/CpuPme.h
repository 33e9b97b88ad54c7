#pragma once
#include <array>
#include <complex>
#include <vector>

#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Smooth PME on the CPU (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) in double
/// precision: the oracle the GPU PME is tested against. The 3D FFTs are FFTW plans of one
/// (y, z) plane and of the x lines, made once, run over the planes and rows in parallel;
/// every phase is a separate function, timed under its name. Results do not depend on the
/// thread count: each transform is computed alike on any thread, spreading is parallel over
/// x planes of the grid (each plane summed by one thread in a fixed atom order), reductions
/// are per plane and then summed in plane order.
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
  /// Threads the FFTs are shared out over (the solver's, at most max(K_x, K_y)).
  int fftThreads() const { return fftThreads_; }
  /// The real grid after the last compute (the convolved potential grid, kJ/mol/e).
  const std::vector<double>& realGrid() const { return realGrid_; }

 private:
  void computeSplines(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box);
  void spreadCharges();
  void forwardFft();
  ReciprocalResult convolve(const Box& box);
  void inverseFft();
  void transform(bool forward);
  void gatherForces(const Box& box, std::vector<Vec3>& forces);

  std::size_t realIndex(int ix, int iy, int iz) const {
    return (std::size_t(ix) * K_[1] + iy) * K_[2] + iz;
  }

  PmeParams params_;
  int threads_;
  int fftThreads_ = 1;                     ///< threads running the FFTW plans
  std::array<int, 3> K_;
  int complexZ_;                           ///< K_z / 2 + 1
  std::array<std::vector<double>, 3> moduli_;  ///< |b(m)|^2 per dimension
  std::vector<double> realGrid_;           ///< K_x K_y K_z, charges then potential
  std::vector<std::complex<double>> complexGrid_;  ///< K_x K_y (K_z/2+1)
  void* planeForward_ = nullptr;           ///< fftw_plan: 2D r2c of one (y, z) plane
  void* planeInverse_ = nullptr;           ///< fftw_plan: 2D c2r of one plane
  void* lineForward_ = nullptr;            ///< fftw_plan: 1D c2c along x of one y row's columns
  void* lineInverse_ = nullptr;            ///< fftw_plan: its inverse

  // Per charged atom (compact list), per dimension, `order` weights.
  std::vector<int> charged_;               ///< indices of atoms with q != 0
  std::vector<double> q_;                  ///< their charges, e
  std::vector<double> theta_, dtheta_;     ///< [atom][dim][order]
  std::vector<int> first_;                 ///< [atom][dim] first grid index
  std::vector<int> bucketStart_, bucketAtoms_;  ///< atoms sorted by first x index
};

}  // namespace faraday
