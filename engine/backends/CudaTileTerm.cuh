#pragma once
// The short-range tiles as a force term (CudaForceTerm.cuh): LJ (or the typed pair force) and
// real-space Coulomb over the backend's tile list, with the exclusion correction of the
// excluded pairs inside slot groups.
#if defined(FARADAY_HAVE_CUDA)
#include <memory>

#include "core/Virial.h"
#include "engine/backends/CudaForceTerm.cuh"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/nonbonded/CudaNonbonded.h"

namespace faraday {

class CudaTileTerm final : public CudaForceTerm {
 public:
  /// `list`: the backend's tile list (rebuilt and replaced there); `groupOfAtom` (empty: none):
  /// per particle its group's anchor where the tiles correct the groups' excluded pairs;
  /// `typed`: the kernel's LJ sum holds the typed pair energy.
  CudaTileTerm(std::unique_ptr<CudaNonbonded> kernel, const std::unique_ptr<CudaTileList>& list,
               DeviceBuffer<int> groupOfAtom, double buffer, bool typed)
      : kernel_(std::move(kernel)), list_(list), groupOfAtom_(std::move(groupOfAtom)), buffer_(buffer), typed_(typed) {}

  std::vector<const char*> phaseRows() const override { return {"nonbonded"}; }
  int sumCount() const override { return kNonbondedSums; }
  void setBox(const Box& box, cudaStream_t stream) override { kernel_->setBox(box, buffer_, stream); }

  void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool energies, CudaTermMarks* marks) override {
    const TileGroupExclusions groups =
        groupOfAtom_.size() > 0 ? TileGroupExclusions{a.atom, groupOfAtom_.data()} : TileGroupExclusions{};
    kernel_->enqueue(stream, energies, *list_, a.posq, a.type, a.force, a.stride, a.sums + sumsAt(), a.work, groups);
    if (marks) marks->endRow(stream);
  }

  void addEnergies(const CudaStepSums& s, Energies& e) const override {
    const double* own = s.sums + sumsAt();
    (typed_ ? e.pair : e.lj) = own[kSumLj];
    e.coulombReal = own[kSumCoulomb];
    e.coulombExclusion += own[kSumExclusionCorrection];  // the groups' excluded pairs
    e.virial += symmetricTensor(own + kSumWxx);
  }

 private:
  std::unique_ptr<CudaNonbonded> kernel_;
  const std::unique_ptr<CudaTileList>& list_;
  DeviceBuffer<int> groupOfAtom_;
  double buffer_;
  bool typed_;
};

}  // namespace faraday
#endif
