#pragma once
#include <cstddef>
#include <memory>

#include "kernels/pme/ReciprocalSolver.h"

namespace faraday {

/// Smooth PME on the GPU (cuFFT), for up to `numAtoms` atoms with the given parameters.
/// Defined in CudaPme.cu in CUDA builds; in builds without CUDA it throws Error.
std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams& params, std::size_t numAtoms);

}  // namespace faraday

#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>

#include "core/Box.h"

namespace faraday {

/// The GPU PME on device data, for a backend that keeps the state on the device: no host
/// copy and no synchronisation in enqueue(), so it can be captured into a graph.
class CudaPmeOnDevice {
 public:
  virtual ~CudaPmeOnDevice() = default;
  /// One evaluation on `stream` for n atoms: `fractions` holds 3 fixed-point fractional
  /// coordinates per atom (pme::fractionalFixedPoint with the box's fixedPointScale),
  /// `charges` e. Adds the forces into `force` (fixed::kScale, planes x, y, z of `stride`).
  virtual void enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
                       unsigned long long* force, std::size_t stride) = 0;
  /// Device pointer: E, W_xx, W_yy, W_zz, W_xy, W_xz, W_yz of the last evaluation (kJ/mol).
  virtual const double* energyAndVirial() const = 0;
  /// Device pointer: the bin occupancy the last evaluation needed; above binCapacity() it
  /// left atoms out and must be grown (growBins) and run again.
  virtual const int* binsNeeded() const = 0;
  virtual int binCapacity() const = 0;
  virtual void growBins(int needed) = 0;
  /// The box (influence function and scales); synchronous, outside graphs.
  virtual void setBox(const Box& box) = 0;
};

std::unique_ptr<CudaPmeOnDevice> makeCudaPmeOnDevice(const PmeParams& params, std::size_t numAtoms);

}  // namespace faraday
#endif
