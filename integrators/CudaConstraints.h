#pragma once
// The constraints on the device: rigid waters by SETTLE and clusters of distance constraints by
// SHAKE / RATTLE sweeps, one thread per water or cluster, in double, with the arithmetic of the
// CPU reference (ConstraintMath.h). Each thread updates its own atoms' whole half step (the
// integrator's B A [O A], or B) and then constrains them, reading and writing the backend's
// per-slot arrays through slotOfAtom; the per-slot kernels of CudaIntegrator.h skip those slots
// (pos.w = 1). No atomics but integer ones: the result is the same bits in every run.
// Design and measurements: integrators/NOTES.md.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>

#include "integrators/Constraints.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"

namespace faraday {

/// A star cluster as the device reads it: the centre atom and up to kMaxStarArms arms, the
/// constraint (centre, arm k) with d2[k].
struct DeviceStar {
  int centre = 0;
  int arms[kMaxStarArms] = {};
  int count = 0;
  int code = 0;  ///< failure code of its first constraint (its others follow)
  double d2[kMaxStarArms] = {};
};

/// Any other cluster: constraints [firstConstraint, + constraintCount) of the general
/// constraint arrays (atoms as indices into the cluster's atoms), atoms [firstAtom,
/// + atomCount) of the general atom arrays.
struct DeviceCluster {
  int firstConstraint = 0, constraintCount = 0;
  int firstAtom = 0, atomCount = 0;
  int code = 0;  ///< failure code of its first constraint
};

/// The device layout of a set's clusters: the stars apart from the general clusters, whose
/// constraints and atoms are gathered into the general arrays (atoms as indices into their
/// cluster's sorted atoms).
struct DeviceClusterLayout {
  std::vector<DeviceStar> stars;
  std::vector<DeviceCluster> clusters;
  std::vector<ClusterConstraint> constraints;
  std::vector<int> atoms;
};
DeviceClusterLayout deviceClusterLayout(const ConstraintSet& set);

class CudaConstraints {
 public:
  /// The constraints of `system` (makeConstraintSet) on the device, made once; `tolerance`:
  /// integrator.constraint_tolerance, in (0, 1).
  CudaConstraints(const System& system, double tolerance);

  const ConstraintSet& set() const { return set_; }
  /// Throws StepFailure naming the step and the atoms when `flag` (StepStatus::
  /// constraintFailure) holds a failure.
  void throwIfFailed(unsigned long long flag) const;

  /// The first half of a step for every constrained particle: its integrator update from the
  /// forces (which it clears), the positions constrained (v += dx / dt), the wrapped
  /// copy, the PME fractions and the displacement flag. A failure sets
  /// status->constraintFailure. With params.stepKinetic, adds their new velocities' kinetic energy.
  /// Enqueue before launchFirstHalf, whose last block turns the displacement flag into the
  /// graph condition.
  void enqueueFirstHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                        StepStatus* status, const int* slotOfAtom) const;
  /// The second half: the kick (with `kick`), the velocity constraints, the non-finite and
  /// runaway checks (status->firstBad); with `virial` (6 fixed-point sums xx yy zz xy xz yz,
  /// fixed::kEnergyScale, added to), the virial of the constraint forces of the final state.
  /// Enqueue before launchSecondHalf (whose kinetic energy reads the constrained velocities).
  void enqueueSecondHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                         StepStatus* status, const int* slotOfAtom, unsigned long long* virial, bool kick) const;

  /// The order the kernels take the waters and the stars in: by the slot of their oxygen or
  /// centre, so that neighbouring threads touch neighbouring slots (`atomOfSlot`: the slot
  /// order of the moment). Enqueue after every change of the slots (a sort, a roll-back); until
  /// the first, topology order.
  void enqueueOrder(cudaStream_t stream, const int* atomOfSlot) const;

  std::size_t deviceBytes() const;

 private:
  struct Launch;
  Launch launch(const DeviceAtoms& atoms, const CudaIntegratorParams& params, StepStatus* status,
                const int* slotOfAtom) const;
  /// Runs `waters(s)` on `stream` and `clusters(s)` beside it on a stream of its own when both
  /// kinds are present (they touch different atoms), joined back into `stream`.
  template <typename W, typename C>
  void besideEachOther(cudaStream_t stream, bool haveWaters, bool haveClusters, W&& waters, C&& clusters) const;

  const System& system_;
  CudaStream clusterStream_;
  CudaEvent fork_{cudaEventDisableTiming}, join_{cudaEventDisableTiming};
  ConstraintSet set_;
  double tolerance_;
  int waterCount_ = 0, starCount_ = 0, clusterCount_ = 0;
  DeviceBuffer<SettleGeometry> geometries_;
  DeviceBuffer<SettleWater> waters_;
  DeviceBuffer<DeviceStar> stars_;
  DeviceBuffer<DeviceCluster> clusters_;
  DeviceBuffer<ClusterConstraint> clusterConstraints_;  ///< a, b: indices into the cluster's atoms
  DeviceBuffer<int> clusterAtoms_;                      ///< particle indices
  // The waters' and stars' order (enqueueOrder): per particle the water whose oxygen, or the
  // star whose centre, it is (-1: none), per slot the same, and the orders selected from it.
  DeviceBuffer<int> waterOfAtom_, starOfAtom_;
  mutable DeviceBuffer<int> orderIds_, waterOrder_, starOrder_, selectedCount_;
  mutable DeviceBuffer<unsigned char> selectTemp_;
  std::size_t selectTempBytes_ = 0;
  // Working storage of the general clusters: per atom (positions, their unconstrained values,
  // velocities or accelerations, inverse masses) and per constraint (r0, targets, multipliers).
  mutable DeviceBuffer<Vec3> clusterX_, clusterXu_, clusterU_, clusterR0_;
  mutable DeviceBuffer<double> clusterW_, clusterTarget_, clusterTau_;
};

}  // namespace faraday
#endif
