#pragma once
// Virtual sites on the device, on the slots where a backend keeps its particles (double4 per
// slot, found through slotOfAtom): their construction (CudaSiteBuild.cuh, which the step's
// update runs after the integrator's first half) and the spreading of their fixed-point forces
// onto their atoms, in double, each contribution leaving as a 64-bit integer through an integer
// atomic, so the totals do not depend on the order of the threads. One thread per site, one
// launch per level (VirtualSites::levels). The host-vector adapters for tests are in
// VirtualSites.h.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/Box.h"
#include "core/Topology.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/neighbor/MinimumImage.h"

namespace faraday {

/// The device copy of VirtualSites that the kernels read.
struct DeviceVirtualSites {
  const VirtualSite* sites = nullptr;
  const int* atoms = nullptr;
  const double* weights = nullptr;
};

class CudaVirtualSites {
 public:
  explicit CudaVirtualSites(const VirtualSites& sites);

  DeviceVirtualSites view() const { return {sites_.data(), atoms_.data(), weights_.data()}; }
  /// Level k: sites [levelStart(k), levelStart(k + 1)).
  int levels() const { return int(levels_.size()) - 1; }
  int levelStart(int k) const { return levels_[std::size_t(k)]; }
  int size() const { return int(sites_.size()); }

  /// The box of the next launches (and of captured ones): an ordered write on `stream` to the
  /// device copy the kernels read, never inside a capture.
  void setBox(const Box& box, cudaStream_t stream) { box_.set(MinimumImage::fromBox(box), stream); }
  /// The sites' positions (x, y, z of their slots in `pos`, w kept), level by level, each next
  /// to its first constructing atom by the box's minimum images.
  void enqueueBuild(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom) const;
  /// Adds each site's force (fixed::kScale, planes x, y, z of `stride`, by slot) onto its
  /// constructing particles and zeroes it, the last level first; with `virial` (9 sums of
  /// fixed::kEnergyScale, W[a][b] at 3 a + b; the caller clears them) adds the virial the spread
  /// forces carry (spreadVirtualSiteForces, VirtualSites.h). Kernel launches only: capturable.
  void enqueueSpread(cudaStream_t stream, const double4_32a* pos, const int* slotOfAtom, unsigned long long* force,
                     std::size_t stride, unsigned long long* virial) const;

 private:
  DeviceBuffer<VirtualSite> sites_;
  DeviceBuffer<int> atoms_;
  DeviceBuffer<double> weights_;
  std::vector<int> levels_;
  DeviceValue<MinimumImage> box_{"virtual sites box"};
};

}  // namespace faraday
#endif
