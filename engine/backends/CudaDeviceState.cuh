#pragma once
// The CUDA backend's state on the device: the per-slot arrays (positions, velocities and
// list reference in double, wrapped float positions with k_C^(1/2) q, particle, type and
// charge of each slot), the fixed-point forces, the step's flags and energy sums; the
// permutation of every per-slot array after a sort of the slots; and the copy kept at the
// last check, to which the state rolls back after an overflow.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/System.h"
#include "core/Vec3.h"
#include "integrators/CudaIntegrator.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/common/CudaEnergySums.h"

namespace faraday {

/// The fixed-point energy sums of a step: the force terms' (CudaForceTerm::sumCount, end to
/// end in registration order), then the constraint virial (xx yy zz xy xz yz), then a Langevin
/// step's midpoint kinetic energy (CudaIntegratorParams::stepKinetic), then, with virtual sites,
/// the virial their spread forces carry (9, row-major): `terms` + 7 [+ 9] in all.
/// The GPUs of a step sum the terms' (the update split sums the last 7 as its extra sums).
struct DeviceSumLayout {
  int terms = 0;
  bool sites = false;
  int constraintsAt() const { return terms; }
  int stepKineticAt() const { return terms + 6; }
  int sitesAt() const { return terms + 7; }
  int count() const { return terms + (sites ? 16 : 7); }
};

/// Energies summed on the device: kinetic, then the fixed-point sums converted (the first
/// DeviceSumLayout::count()), then PME's (from PME's own sums, or from its fixed-point ones
/// when PME is split over GPUs).
struct DeviceEnergies {
  double kinetic;
  double sums[kEnergySumsThreads];
  double recip[7];
};

/// A copy of one device struct, after the stream's work.
template <typename T>
T fromDevice(const T* p, cudaStream_t stream) {
  T v{};
  FARADAY_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof v, cudaMemcpyDeviceToHost, stream));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  return v;
}

class CudaDeviceState {
 public:
  /// The per-atom arrays, their roll-back copies and a first guess of the list and PME,
  /// against the free device memory: a system too large fails here, before anything runs.
  static void checkMemory(int n);

  /// Allocates the arrays of `n` slots and the energy sums of `sums`; the forces and the sums
  /// are cleared on `stream`.
  CudaDeviceState(int n, DeviceSumLayout sums, cudaStream_t stream);

  /// The arrays as the integrator kernels take them; `withFractions`: PME's fractional
  /// coordinates are written too.
  DeviceAtoms atoms(bool withFractions);

  /// Loads `state` (and the list reference, or the positions when it is empty) into slots in
  /// input order, with `pairType` the short-range kernel's type of each particle; `coulomb`:
  /// posq carries k_C^(1/2) q, else 0; `constrained` (empty: none): per particle, 1 when held
  /// by constraints (pos.w = 1, DeviceAtoms). Waits for the copies.
  void upload(const State& state, const std::vector<Vec3>& listReference, const System& system,
              const std::vector<int>& pairType, bool coulomb, const std::vector<char>& constrained,
              cudaStream_t stream);
  /// Back in input order (each pointer optional).
  void download(std::vector<Vec3>* positions, std::vector<Vec3>* velocities, std::vector<Vec3>* reference,
                cudaStream_t stream);
  /// The fixed-point forces in input order (kJ/mol/nm).
  std::vector<Vec3> forces(cudaStream_t stream);

  /// new[s] = old[newToOld[s]] for every per-slot array; slotOfAtom follows.
  void enqueuePermute(cudaStream_t stream, const int* newToOld);
  /// The energies into `deviceEnergies` from the kinetic partials, the fixed-point sums
  /// (cleared for the next evaluation) and PME's sums (`pmeSums`, or null: its fixed-point
  /// ones at `pmeAt`).
  void enqueueFinalize(cudaStream_t stream, int pmeAt, const double* pmeSums);

  StepStatus readStatus(cudaStream_t stream) const { return fromDevice(status.data(), stream); }

  /// Keeps the current state (and the flags) as the roll-back point.
  void save(cudaStream_t stream);
  /// Back to the saved arrays and flags (the non-finite and PME bin flags cleared): device
  /// copies only, which a graph may capture.
  void restore(cudaStream_t stream);

  int n;
  std::size_t stride;  ///< per plane of the force buffer: n rounded up to 32
  DeviceBuffer<double4_32a> pos, vel, ref;
  DeviceBuffer<float4> posq;
  DeviceBuffer<int> atom, type, slotOfAtom;
  DeviceBuffer<double> charge;
  DeviceBuffer<std::uint32_t> fractions;
  DeviceBuffer<unsigned long long> force;
  DeviceSumLayout sumLayout;
  DeviceBuffer<unsigned long long> nbSums;  ///< sumLayout.count() fixed-point sums (DeviceEnergies::sums)
  DeviceBuffer<double> keParts;
  DeviceBuffer<StepStatus> status;
  DeviceBuffer<DeviceEnergies> deviceEnergies;
  /// Several GPUs: GPU g sums (and, with the update split, updates) slots [bounds[g],
  /// bounds[g + 1]) (WorkShare::kMaxCuts entries; set at each sort with the update split, saved
  /// with the state).
  DeviceBuffer<int> bounds;

 private:
  /// f(array, its roll-back copy) for every array the roll-back copy keeps, in a fixed order.
  template <typename F>
  void forEachSaved(F&& f);

  // The targets of the permutation.
  DeviceBuffer<double4_32a> pos2, vel2, ref2;
  DeviceBuffer<float4> posq2;
  DeviceBuffer<int> atom2, type2;
  DeviceBuffer<double> charge2;
  // The last checked state, for a roll-back after an overflow.
  DeviceBuffer<double4_32a> savedPos, savedVel, savedRef;
  DeviceBuffer<float4> savedPosq;
  DeviceBuffer<int> savedAtom, savedType, savedSlotOfAtom;
  DeviceBuffer<double> savedCharge;
  DeviceBuffer<unsigned long long> savedForce;
  DeviceBuffer<int> savedBounds;
  /// The flags restore() puts back.
  DeviceValue<StepStatus> restoredStatus{"restored step status"};
};

}  // namespace faraday
#endif
