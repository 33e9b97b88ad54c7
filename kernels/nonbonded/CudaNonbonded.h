#pragma once
// Short-range forces on the GPU over the tile list (CudaTileList): LJ with its shift (or the
// typed pair force with its shift) and real-space Ewald Coulomb, each pair once, forces
// summed in 64-bit fixed point.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include "core/Box.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/WorkShare.h"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/nonbonded/CpuNonbonded.h"

namespace faraday {

/// Fixed-point energy and virial slots of the short-range kernel (fixed::kEnergyScale);
/// kSumLj holds the typed pair energy when the kernel runs the typed force;
/// kSumExclusionCorrection the Ewald exclusion correction of the excluded pairs inside slot
/// groups (TileGroupExclusions), which the kernel computes in their tiles.
enum NonbondedSum {
  kSumLj = 0, kSumCoulomb, kSumWxx, kSumWyy, kSumWzz, kSumWxy, kSumWxz, kSumWyz, kSumExclusionCorrection, kNonbondedSums
};

/// The excluded pairs whose Ewald exclusion correction, -k_C q_i q_j erf(beta r) / r, the tile
/// kernel adds: both atoms of one slot group (kernels/neighbor/SlotGroups.h: a hydrogen and
/// its heavy atom, two hydrogens of one atom). Such pairs sit a few slots apart and always
/// within cutoff + buffer (CudaTileList checks the groups' extent at every build), so each is
/// in exactly one tile; the bonded exclusion-correction kernel leaves them out. Null: none.
struct TileGroupExclusions {
  const int* atomOfSlot = nullptr;
  const int* groupOfAtom = nullptr;  ///< per particle: its group's anchor
};

/// What the tile kernel computes.
struct CudaNonbondedParams {
  double cutoff = 1.0;       ///< nm
  double ewaldBeta = 0;      ///< 1/nm; 0: no Coulomb
  double coulombShift = 0;   ///< 1/nm: erfc(beta rc)/rc subtracted per k_C q_i q_j (0: unshifted)
};

/// The box as the tile kernel reads it, from device memory (CudaNonbonded::setBox), so that a
/// captured step stays valid when the box changes.
struct TileBox {
  float3 length, invLength;  ///< the diagonal a_x, b_y, c_z (nm) and its inverse (1/nm)
  float3 tilt;               ///< b_x, c_x, c_y (nm): zero in a rectangular box
  /// Per dimension, L/2 - cutoff - buffer/2 (nm), rounded down by a few float ulps of L: a
  /// block whose half extent is below it keeps every interacting pair in one image around
  /// its centre.
  float3 reach;
};

class CudaNonbonded {
 public:
  /// At most kMaxTypes atom types (their LJ table sits in shared memory).
  static constexpr int kMaxTypes = 32;
  CudaNonbonded(const LjTable& table, const CudaNonbondedParams& params);
  /// The typed pair force (typedPair, shifted so that U(cutoff) = 0: typedPairShifts)
  /// instead of LJ; its table (c1, c2, c3, shift per type pair) sits in shared memory.
  CudaNonbonded(const TypedPairTable& table, const CudaNonbondedParams& params);

  /// The box of the next launches (and of captured ones), for a list of `buffer` nm: an ordered
  /// write on `stream`, never inside a capture.
  void setBox(const Box& box, double buffer, cudaStream_t stream);

  /// Adds the forces of every tile to `force` (x, y, z planes of `stride` entries, fixed
  /// point, fixed::kScale); with `energies`, adds the energies and virial to `sums`
  /// (kNonbondedSums entries, fixed::kEnergyScale). Also records the list's counts in its
  /// "needed" maxima. posq: wrapped positions (nm) and k_C^(1/2) q (so that k_C q_i q_j is
  /// the product of two w components); type: atom type per slot. `share`: the tiles of this
  /// GPU when several share the step (WorkShare.h); `groups`: the excluded pairs whose
  /// exclusion correction the kernel adds (TileGroupExclusions; with Coulomb only).
  void enqueue(cudaStream_t stream, bool energies, CudaTileList& list, const float4* posq, const int* type,
               unsigned long long* force, std::size_t stride, unsigned long long* sums,
               const WorkShare& share = WorkShare{}, const TileGroupExclusions& groups = {}) const;

 private:
  /// Uploads the per-type-pair table of `types` x `types` entries.
  void setUp(int types, const std::vector<float4>& table);

  CudaNonbondedParams params_;
  bool typed_ = false;
  float typedRmin2_ = 0;  ///< nm^2
  int types_ = 0;
  DeviceBuffer<float4> table_;  ///< per type pair: c6, c12, shift (LJ) or c1, c2, c3, shift (typed)
  DeviceBuffer<float2> forceTable_;  ///< per type pair: 6 c6, 12 c12 (LJ; steps without energies)
  DeviceValue<TileBox> boxTerms_{"tile kernel box"};
  double boxBuffer_ = 0;
  bool boxSet_ = false;
};

}  // namespace faraday
#endif
