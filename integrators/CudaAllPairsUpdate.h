#pragma once
// Velocity Verlet of nonbonded.mode = all-pairs on the device (CudaAllPairsBackend): the halves
// of integrators/CudaIntegrator.h's velocity Verlet (cuda_update::kick, driftHalf) on the
// all-pairs particles (AllPairsAtoms: input order, no box, forces at the mode's own
// fixed-point scale), and the float bodies the all-pairs kernel reads.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include "kernels/common/DeviceAtoms.h"

namespace faraday {

/// Threads per block of these launches, and so the blocks of kinetic partials.
inline constexpr int kAllPairsUpdateThreads = 256;

/// B then A: v += dt/2 F/m, x += dt v; the float bodies follow; the forces are cleared.
void launchAllPairsKickDrift(cudaStream_t stream, const AllPairsAtoms& atoms, double dt);
/// B: v += dt/2 F/m; with keParts (blocksFor(n, kAllPairsUpdateThreads) of them), each
/// block's kinetic energy (fixed order). dt = 0 leaves the velocities: the kinetic energy alone.
void launchAllPairsKick(cudaStream_t stream, const AllPairsAtoms& atoms, double dt, double* keParts);
/// The float bodies from the double positions (after setState).
void launchAllPairsBodies(cudaStream_t stream, const AllPairsAtoms& atoms);

}  // namespace faraday
#endif
