#pragma once
// The device layouts of the state that the kernels of several concepts read and write: the
// MD backend's per-slot arrays (DeviceAtoms) and the flags its steps leave for the host
// (StepStatus), and the all-pairs mode's particles (AllPairsAtoms).
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/HostDevice.h"

namespace faraday {

/// The per-atom device arrays of the state, in slot order (see TileList.h).
struct DeviceAtoms {
  int n = 0;
  /// x, y, z (nm, unwrapped); w = 1 for a particle held by constraints (the constraint
  /// kernels update it, the per-slot halves skip it), else 0
  double4_32a* pos = nullptr;
  double4_32a* vel = nullptr;          ///< vx, vy, vz (nm/ps); w = 1/m (1/amu)
  double4_32a* ref = nullptr;          ///< positions at the last list build
  float4* posq = nullptr;          ///< wrapped x, y, z (nm), k_C^(1/2) q
  int* atom = nullptr;             ///< input particle index of the slot
  unsigned long long* force = nullptr;  ///< fixed point (fixed::kScale), planes x, y, z of `stride`
  std::size_t stride = 0;
  std::uint32_t* fractions = nullptr;   ///< PME fractional coordinates (3 per slot), or null
  /// One GPU of several that each update their own slots (the update split): the slots
  /// [own[0], own[1]) in device memory; null: every slot.
  const int* own = nullptr;
  /// With own: the other GPUs' slots' x, y, z (3 per slot), as their all-gather left them
  /// (launchWrapOthers unpacks them into pos); null: pos holds them.
  const double* packedOthers = nullptr;
};

/// What the host sees of a run of steps, reset at each check.
struct StepStatus {
  int rebuild;              ///< set when an atom moved more than half the buffer
  unsigned blocksDone;      ///< last-block counter of the first half
  int firstBad;             ///< smallest input index with a non-finite position or velocity or a runaway force (INT_MAX: none)
  int pmeBinsNeeded;        ///< largest PME bin occupancy seen
  long long step;           ///< the step being taken (Langevin noise key)
  long long builds;         ///< list builds
  /// The first constraint failure: (state step << 32) | failure code (ConstraintSet), the
  /// smallest by an integer atomicMin; kNoConstraintFailure when none.
  unsigned long long constraintFailure;
};

inline constexpr unsigned long long kNoConstraintFailure = ~0ull;

/// The all-pairs mode's particles on the device, in input order (no sort, no box).
struct AllPairsAtoms {
  int n;
  double4_32a* pos;  ///< x, y, z (nm)
  double4_32a* vel;  ///< vx, vy, vz (nm/ps); w = 1/m (1/amu)
  float4* body;      ///< float x, y, z relative to `origin`; w = mass or type (kept)
  double3 origin;    ///< the bodies' reference point (their centroid at setState), nm
  unsigned long long* force;  ///< fixed point (1 / invScale), planes x, y, z of `stride`
  std::size_t stride;
  double invScale;   ///< 1 / fixed-point scale
  double forceLimit; ///< |F| component (kJ/mol/nm) beyond which the fixed point nears overflow
  int* firstBad;     ///< smallest index with a non-finite position or velocity, or a force beyond forceLimit
};

/// Component c (0: x, 1: y, 2: z) of particle i's force, kJ/mol/nm.
FARADAY_HD double forceComponent(const AllPairsAtoms& a, int c, int i) {
  return double(static_cast<long long>(a.force[c * a.stride + i])) * a.invScale;
}

}  // namespace faraday
#endif
