#pragma once
// The bonded kernel's two parts as force terms (CudaForceTerm.cuh): the topology's bonded
// terms, and the Ewald exclusion correction of its excluded pairs. They share one kernel
// object and one block of sums (the kernel's BondedSum layout: both parts' energies and one
// virial, summed in fixed point), which the bonded terms' part owns and reads back. Outside
// timed steps the two are fused: the bonded terms' part launches the kernel once for both,
// beside the tiles (one launch costs less than two), and the exclusion correction's adds
// nothing; a timed step runs each part on its own for its row.
#if defined(FARADAY_HAVE_CUDA)
#include <memory>

#include "core/Virial.h"
#include "engine/backends/CudaForceTerm.cuh"
#include "kernels/bonded/CudaBonded.h"

namespace faraday {

class CudaBondedTerm final : public CudaForceTerm {
 public:
  /// The bonded terms' part: it owns the block of sums and the kernel's box.
  explicit CudaBondedTerm(std::shared_ptr<CudaBonded> kernel) : kernel_(std::move(kernel)), part_(kBondedTermsPart) {}
  /// The exclusion correction's part, adding into `owner`'s block of sums (fused into the
  /// owner's launch outside timed steps).
  CudaBondedTerm(std::shared_ptr<CudaBonded> kernel, CudaBondedTerm& owner)
      : kernel_(std::move(kernel)), part_(kExclusionCorrectionPart), owner_(&owner) {
    owner.fused_ = true;
  }

  std::vector<const char*> phaseRows() const override {
    return {part_ == kBondedTermsPart ? "bonded" : "exclusion correction"};
  }
  int sumCount() const override { return owner_ ? 0 : kBondedSums; }
  /// The owner beside the tiles; the exclusion correction's part has work only in timed steps.
  bool besideOthers() const override { return owner_ == nullptr; }
  void setBox(const Box& box, cudaStream_t stream) override {
    if (!owner_) kernel_->setBox(box, stream);
  }

  void enqueue(cudaStream_t stream, const CudaTermArrays& a, bool energies, CudaTermMarks* marks) override {
    if (!marks && owner_) return;  // fused into the owner's launch
    const int parts = !marks && fused_ ? kAllBondedParts : part_;
    kernel_->enqueue(stream, energies, a.pos, a.slotOfAtom, a.force, a.stride, a.sums + block(), parts, a.work);
    if (marks) marks->endRow(stream);
  }

  /// Both parts' energies and virial, from the owner's block.
  void addEnergies(const CudaStepSums& s, Energies& e) const override {
    if (owner_) return;
    const double* own = s.sums + block();
    BondedEnergies b;
    for (int k = 0; k < kBondedSlots; ++k) b.energy[std::size_t(k)] = own[k];
    b.virial = symmetricTensor(own + kBondedSumWxx);
    e.addBonded(b);
  }

 private:
  int block() const { return owner_ ? owner_->sumsAt() : sumsAt(); }

  std::shared_ptr<CudaBonded> kernel_;
  int part_;
  const CudaBondedTerm* owner_ = nullptr;
  bool fused_ = false;  ///< the exclusion correction's part is registered: launch both outside timed steps
};

}  // namespace faraday
#endif
