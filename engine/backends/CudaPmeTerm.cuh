#pragma once
// PME's reciprocal space as a force term (CudaForceTerm.cuh): beside the tiles on a stream of
// the device's highest priority, so that its kernels take SMs before the waiting tile blocks;
// its detail rows from the solver's marks. The Ewald self and net-charge energies, which
// depend only on the charges and the volume, are the backend's.
#if defined(FARADAY_HAVE_CUDA)
#include <memory>

#include "core/Virial.h"
#include "engine/backends/CudaForceTerm.cuh"
#include "kernels/pme/CudaPme.h"

namespace faraday {

class CudaPmeTerm final : public CudaForceTerm {
 public:
  explicit CudaPmeTerm(std::unique_ptr<CudaPmeOnDevice> solver) : solver_(std::move(solver)) {}

  CudaPmeOnDevice& solver() { return *solver_; }

  std::vector<const char*> phaseRows() const override { return {"pme"}; }
  /// The solver's marks: 0 start, then after the binning, the spreading, the forward plane
  /// transforms, the exchange to rows, the x lines and convolution, the exchange back, the
  /// inverse plane transforms and the gather (the exchanges take no time on one GPU).
  std::vector<CudaTimedPhase> detailRows() const override {
    return {{"pme.spline", {0}}, {"pme.spread", {1}},   {"pme.fft", {2, 6}},
            {"pme.exchange", {3, 5}}, {"pme.convolve", {4}}, {"pme.gather", {7}}};
  }
  int detailEvents() const override { return 9; }
  /// Its energy and virial as fixed point when split over GPUs (PmeSlabSplit::fixedSums).
  int sumCount() const override { return 7; }
  bool besideOthers() const override { return true; }
  bool highPriority() const override { return true; }
  /// Synchronous (the solver's own stream).
  void setBox(const Box& box, cudaStream_t) override { solver_->setBox(box); }

  void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool, CudaTermMarks* marks) override {
    std::function<void(int)> mark;
    if (marks) mark = [marks, stream](int k) { marks->detail(k, stream); };
    solver_->enqueue(stream, a.n, a.fractions, a.charge, a.force, a.stride, mark);
    if (marks) marks->endRow(stream);
  }

  void addEnergies(const CudaStepSums& s, Energies& e) const override {
    e.coulombRecip = s.recip[0];
    e.virial += symmetricTensor(s.recip + 1);
  }

 private:
  std::unique_ptr<CudaPmeOnDevice> solver_;
};

}  // namespace faraday
#endif
