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
#include <functional>
#include <vector>

#include "core/Box.h"
#include "kernels/common/PeerFloats.h"
#include "kernels/pme/SlabPme.h"

namespace faraday {

/// One GPU's part of PME split over several GPUs in slabs of x planes (SlabPme.h has the
/// reference, kernels/multigpu/NOTES.md the design): rank `rank` of `ranks` spreads into,
/// transforms and gathers from its own planes, and takes the x lines of its own y rows.
struct PmeSlabSplit {
  using Block = PeerFloats;
  int rank = 0, ranks = 1;
  /// Enqueues on `stream` one exchange among the GPUs: every send to its peer, every receive
  /// from its peer (all ranks call it at the same point of their streams; capturable).
  std::function<void(cudaStream_t stream, const std::vector<Block>& sends, const std::vector<Block>& recvs)>
      exchange;
  /// Where each evaluation stores its energy and virial (E, W_xx, W_yy, W_zz, W_xy, W_xz,
  /// W_yz) as 64-bit fixed point (fixed::kEnergyScale), for the sum across the GPUs.
  unsigned long long* fixedSums = nullptr;
};

/// The GPU PME on device data, for a backend that keeps the state on the device: no host
/// copy and no synchronisation in enqueue(), so it can be captured into a graph.
class CudaPmeOnDevice {
 public:
  virtual ~CudaPmeOnDevice() = default;
  /// One evaluation on `stream` for n atoms: `fractions` holds 3 fixed-point fractional
  /// coordinates per atom (pme::fractionalFixedPoint with the box's fixedPointScale),
  /// `charges` e. Adds the forces into `force` (fixed::kScale, planes x, y, z of `stride`).
  /// `mark` (if set) is called with k = 0 before the first phase and k = 1 .. 8 after the
  /// binning, the spreading, the forward plane transforms, the exchange to rows, the x lines
  /// and convolution, the exchange back, the inverse transforms and the gather (the
  /// exchanges only when split; else nothing happens between their marks).
  virtual void enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
                       unsigned long long* force, std::size_t stride, const std::function<void(int)>& mark = {}) = 0;
  /// Device pointer: E, W_xx, W_yy, W_zz, W_xy, W_xz, W_yz of the last evaluation (kJ/mol).
  virtual const double* energyAndVirial() const = 0;
  /// Device pointer: the bin occupancy the last evaluation needed; above binCapacity() it
  /// left atoms out and must be grown (growBins) and run again.
  virtual const int* binsNeeded() const = 0;
  virtual int binCapacity() const = 0;
  virtual void growBins(int needed) = 0;
  /// The box (influence function and scales); synchronous, outside graphs.
  virtual void setBox(const Box& box) = 0;
  /// From now on only this GPU's part of a split (see PmeSlabSplit; slabSplitPossible() must
  /// hold); energyAndVirial() then holds this GPU's part only. Throws Error otherwise.
  virtual void splitSlabs(const PmeSlabSplit& split) = 0;
  /// After splitSlabs: this GPU's buffers for its peers.
  virtual PmeSlabPeer slabPeer() = 0;
  /// Every rank's buffers (by rank), reachable from this GPU by peer access: the transposes
  /// become direct stores into the peers' memory instead of the split's exchange.
  virtual void connectSlabPeers(const std::vector<PmeSlabPeer>& peers) = 0;
};

std::unique_ptr<CudaPmeOnDevice> makeCudaPmeOnDevice(const PmeParams& params, std::size_t numAtoms);

}  // namespace faraday
#endif
