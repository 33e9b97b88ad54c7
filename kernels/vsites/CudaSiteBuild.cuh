#pragma once
// One virtual site built on the device from the slots of its constructing particles: the
// per-site step shared by CudaVirtualSites' build kernel and the step's update
// (integrators/CudaIntegrator.cu), which also wraps the new position and tests its move.
#include <cuda_runtime.h>

#include "kernels/neighbor/MinimumImage.h"
#include "kernels/vsites/CudaVirtualSites.h"
#include "kernels/vsites/VirtualSiteMath.h"

namespace faraday::cuda_sites {

/// The position of site `s` of `v` (nm) from the slots' positions `pos` (through slotOfAtom).
__device__ __forceinline__ Vec3 buildSite(const DeviceVirtualSites& v, const VirtualSite& s, const double4_32a* pos,
                                          const int* slotOfAtom, const MinimumImage& box) {
  const auto position = [&](int atom) {
    const double4_32a p = pos[slotOfAtom[atom]];
    return Vec3{p.x, p.y, p.z};
  };
  const auto image = [&](Vec3 d) { return box.apply(d); };
  return vsite::buildSite(s, v.atoms, v.weights, position, image);
}

}  // namespace faraday::cuda_sites
