// The GPU adapters of VirtualSites.h for builds without CUDA (CUDA builds define them in
// CudaVirtualSites.cu).
#include "core/Error.h"
#include "kernels/vsites/VirtualSites.h"

namespace faraday {

#if !defined(FARADAY_HAVE_CUDA)

void cudaConstructVirtualSites(const VirtualSites&, std::vector<Vec3>&, const Box&) {
  throw Error("this build has no CUDA support");
}

Tensor3 cudaSpreadVirtualSiteForces(const VirtualSites&, const std::vector<Vec3>&, std::vector<Vec3>&, const Box&) {
  throw Error("this build has no CUDA support");
}

#endif

}  // namespace faraday
