#pragma once
// The all-pairs forces (softened gravity or the typed pair force, every pair once by
// triangular warp tiles) as a force term (CudaForceTerm.cuh), at the backend's fixed-point
// force scale; its energy is one fixed-point sum.
#if defined(FARADAY_HAVE_CUDA)
#include "engine/backends/CudaForceTerm.cuh"
#include "kernels/nbody/CudaAllPairs.h"

namespace faraday {

class CudaAllPairsTerm final : public CudaForceTerm {
 public:
  /// The force buffer's fixed-point scale is the backend's (setForceScale: allPairsForceScale,
  /// refitted to the starting state).
  CudaAllPairsTerm(int n, const AllPairsParams& params, double uniformMass) : kernel_(n, params, uniformMass) {}

  static constexpr const char* kRow = "all-pairs";
  void setForceScale(double scale) { scale_ = scale; }
  std::vector<const char*> phaseRows() const override { return {kRow}; }
  int sumCount() const override { return 1; }
  void setBox(const Box&, cudaStream_t) override {}  // no periodic box

  void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool energies, CudaTermMarks* marks) override {
    AllPairsDeviceInput in;
    in.n = a.n;
    in.body = a.body;
    in.force = a.force;
    in.stride = a.stride;
    in.scale = scale_;
    if (energies) in.energy = a.sums + sumsAt();
    kernel_.enqueue(stream, in);
    if (marks) marks->endRow(stream);
  }

  void addEnergies(const CudaStepSums& s, Energies& e) const override { e.pair = s.sums[sumsAt()]; }

 private:
  CudaAllPairs kernel_;
  double scale_ = 0;
};

}  // namespace faraday
#endif
