#pragma once
// The topology's bonded terms and the Ewald exclusion correction of its excluded pairs as one
// force term (CudaForceTerm.cuh): one kernel launch for both beside the tiles, or one per part
// in a timed step so that each has its row.
#if defined(FARADAY_HAVE_CUDA)
#include <memory>

#include "core/Virial.h"
#include "engine/backends/CudaForceTerm.cuh"
#include "kernels/bonded/CudaBonded.h"

namespace faraday {

class CudaBondedTerm final : public CudaForceTerm {
 public:
  explicit CudaBondedTerm(std::unique_ptr<CudaBonded> kernel) : kernel_(std::move(kernel)) {}

  std::vector<const char*> phaseRows() const override { return {"bonded", "exclusion correction"}; }
  int sumCount() const override { return kBondedSums; }
  bool besideOthers() const override { return true; }
  void setBox(const Box& box, cudaStream_t stream) override { kernel_->setBox(box, stream); }

  void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool energies, CudaTermMarks* marks) override {
    const auto part = [&](int parts) {
      kernel_->enqueue(stream, energies, a.pos, a.slotOfAtom, a.force, a.stride, a.sums + sumsAt(), parts, a.work);
    };
    if (!marks) return part(kAllBondedParts);
    for (const int p : {kBondedTermsPart, kExclusionCorrectionPart}) {
      part(p);
      marks->endRow(stream);
    }
  }

  void addEnergies(const CudaStepSums& s, Energies& e) const override {
    const double* own = s.sums + sumsAt();
    BondedEnergies b;
    for (int k = 0; k < kBondedSlots; ++k) b.energy[std::size_t(k)] = own[k];
    b.virial = symmetricTensor(own + kBondedSumWxx);
    e.addBonded(b);
  }

 private:
  std::unique_ptr<CudaBonded> kernel_;
};

}  // namespace faraday
#endif
