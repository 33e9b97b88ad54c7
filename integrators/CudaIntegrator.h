#pragma once
// Velocity Verlet and Langevin BAOAB on the device, split around the force evaluation like
// the CPU integrators (Integrator.h): firstHalf moves x_n -> x_{n+1}, secondHalf completes
// the velocities with F(x_{n+1}). Positions and velocities are double; forces are read
// from the 64-bit fixed-point buffer. The Langevin noise is philox::normals(seed, step,
// particle), the CPU's stream, keyed by the input particle index.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/DeviceAtoms.h"
#include "kernels/neighbor/MinimumImage.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/vsites/CudaVirtualSites.h"

namespace faraday {

/// The box as the integrator's and the constraints' kernels read it, from device memory, so
/// that a captured step stays valid when the box changes.
struct IntegratorBox {
  MinimumImage image;            ///< the diagonal (nm), its inverse and the tilts
  pme::FractionScales fractions;  ///< PME's fractional coordinates in fixed point
};

struct CudaIntegratorParams {
  bool langevin = false;
  double dt = 0;            ///< ps
  double a = 1;             ///< exp(-gamma dt)
  double noiseVariance = 0; ///< (1 - a^2) kT, kJ/mol: v noise variance times m
  std::uint64_t seed = 0;
  const IntegratorBox* box = nullptr;  ///< in device memory
  double halfBuffer2 = 0;   ///< (buffer / 2)^2, nm^2
  /// Langevin on a step with energies: the first halves add the kinetic energy of the
  /// velocities they leave (langevinMidpointKinetic; fixed::kEnergyScale) to it; null: they
  /// do not.
  unsigned long long* stepKinetic = nullptr;
};

/// First half of a step (B A, or B A O A), then the wrapped float positions, the PME
/// fractions and the displacement test; its last block turns the rebuild flag into the
/// graph condition `*conditionHandle` (inside a captured graph; null outside one: the kernels
/// timed alone). Clears the forces after reading them. Skips the slots held by constraints
/// (pos.w = 1), whose first half the constraint kernels did before.
/// With atoms.own (the update split) the slots of this GPU only, and the flag stays for
/// launchWrapOthers. With params.stepKinetic, adds the midpoint kinetic energy of its slots.
/// Without `decideRebuild` the flag stays for launchBuildSites (the virtual sites move after).
void launchFirstHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                     StepStatus* status, const unsigned long long* conditionHandle, bool decideRebuild = true);
/// The virtual sites built where the first half (and the constraints) put their atoms, level by
/// level, with their wrapped float positions, PME fractions and displacement test; the last
/// level's last block turns the rebuild flag into the graph condition, as launchFirstHalf's
/// does without sites. `slotOfAtom`: the slot of each particle.
void launchBuildSites(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      const CudaVirtualSites& sites, const int* slotOfAtom, StepStatus* status,
                      const unsigned long long* conditionHandle);
/// The update split, after the other GPUs' slots have arrived: for every slot outside
/// atoms.own, the wrapped float positions, the PME fractions, the displacement test and the
/// forces cleared (the other GPUs update those slots); its last block turns the rebuild flag
/// into the graph condition, as launchFirstHalf's does on one GPU.
void launchWrapOthers(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      StepStatus* status, const unsigned long long* conditionHandle);
/// The update split's slots of each GPU after a sort: bounds[g] for g = 0..ranks, the first
/// slot at or after g n / ranks (or, given `blockCuts`, ranks + 1 tile blocks, at the start of
/// block blockCuts[g]) where the sorted keys (`sortedKeys`, null without slot groups) shifted
/// right by `groupShift` change, so that no slot group spans two GPUs.
void launchUpdateBounds(cudaStream_t stream, int n, int ranks, const unsigned long long* sortedKeys, int groupShift,
                        int* bounds, const int* blockCuts = nullptr);
/// Second half (B); checks for non-finite values; advances status->step. With keParts (not
/// with atoms.own), also writes per-block kinetic-energy partials (kineticBlocks() of them) of every slot. The
/// slots held by constraints are kicked by the constraint kernels before.
void launchSecondHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      StepStatus* status, const int* pmeBinsNeeded, double* keParts);
/// Kinetic-energy partials of the current velocities (no update).
void launchKineticEnergy(cudaStream_t stream, const DeviceAtoms& atoms, double* keParts);
int kineticBlocks(int n);

/// Writes posq (wrapped positions, keeping w) and the PME fractions from pos.
void launchWrapPositions(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params);

}  // namespace faraday
#endif
