#pragma once
// The bonded forces and the Ewald exclusion correction on the GPU, on device data: the
// positions of the slots where a backend keeps them (double4 per slot, unwrapped nm, found
// through slotOfAtom) in, 64-bit fixed-point forces and energy sums out. One thread per term,
// in double (the evaluators of BondedTerms.h, shared with CpuBonded); forces leave as
// integers through atomics, so the totals are bitwise repeatable. The host-vector adapter is
// makeCudaBondedOnHost (Bonded.h).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>

#include "core/Box.h"
#include "kernels/bonded/Bonded.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/WorkShare.h"

namespace faraday {

/// Fixed-point sums of CudaBonded::enqueue (fixed::kEnergyScale): the energy of each
/// BondedSlot, then the virial xx, yy, zz, xy, xz, yz.
enum BondedSum : int { kBondedSumWxx = kBondedSlots, kBondedSumWyy, kBondedSumWzz, kBondedSumWxy, kBondedSumWxz,
                       kBondedSumWyz, kBondedSums };

class CudaBonded {
 public:
  /// Device copies of the topology's term arrays, the CMAP patches and the excluded pairs
  /// (with k_C q_i q_j from `charges`), made once. Throws Error on a malformed topology.
  /// `groupOfAtom` (per particle, or null): the excluded pairs of two atoms of one group are
  /// left out of the exclusion correction (the tile kernel corrects them: TileGroupExclusions).
  CudaBonded(const Topology& topology, const std::vector<double>& charges, const BondedParams& params,
             const std::vector<int>* groupOfAtom = nullptr);

  /// Adds the forces of every term to `force` (fixed::kScale, planes x, y, z of `stride`
  /// entries, indexed by slot) and, with `energies`, adds the energies and virial to `sums`
  /// (kBondedSums entries, fixed::kEnergyScale; the caller clears them). `pos`: x, y, z (nm)
  /// per slot; slotOfAtom: the slot of each particle; the box (minimum images) is setBox's.
  /// Kernel launches only, no synchronisation: capturable into a graph. `parts`: BondedParts.
  /// `share`: the warps of terms of this GPU when several share the step (WorkShare.h).
  void enqueue(cudaStream_t stream, bool energies, const double4_32a* pos, const int* slotOfAtom,
               unsigned long long* force, std::size_t stride, unsigned long long* sums,
               int parts = kAllBondedParts, const WorkShare& share = WorkShare{}) const;

  /// The rectangular box of the next launches (and of captured ones): an ordered write on
  /// `stream` to the device copy the kernels read, never inside a capture.
  void setBox(const Box& box, cudaStream_t stream);

  /// Whether there is nothing to compute.
  bool empty() const;
  /// Whether the exclusion correction has pairs.
  bool hasExclusionCorrection() const { return exclusions_.size() > 0; }

 private:
  DeviceBuffer<HarmonicBond> bonds_;
  DeviceBuffer<G96Bond> g96Bonds_;
  DeviceBuffer<MorseBond> morseBonds_;
  DeviceBuffer<CubicBond> cubicBonds_;
  DeviceBuffer<HarmonicAngle> angles_;
  DeviceBuffer<G96Angle> g96Angles_;
  DeviceBuffer<UreyBradleyAngle> ureyBradleys_;
  DeviceBuffer<PeriodicTorsion> properDihedrals_, periodicImpropers_;
  DeviceBuffer<RbTorsion> rbDihedrals_;
  DeviceBuffer<HarmonicImproper> impropers_;
  DeviceBuffer<CmapTorsion> cmaps_;
  DeviceBuffer<Pair14> pairs14_;
  DeviceBuffer<PositionRestraint> positionRestraints_;
  DeviceBuffer<ExclusionPair> exclusions_;
  DeviceBuffer<double> cmapCoefficients_;
  DeviceBuffer<int> cmapFirstCell_, cmapSize_;
  DeviceValue<MinimumImage> boxTerms_{"bonded box"};
  bool boxSet_ = false;
  double ewaldBeta_ = 0;
};

}  // namespace faraday
#endif
