// makeCudaBondedOnHost for builds in which the CUDA bonded kernels are absent (CUDA builds
// define it in CudaBonded.cu).
#include "core/Error.h"
#include "kernels/bonded/Bonded.h"

namespace faraday {

#if !defined(FARADAY_HAVE_CUDA)

std::unique_ptr<BondedForces> makeCudaBondedOnHost(const Topology&, const std::vector<double>&, const BondedParams&) {
  throw Error("this build has no CUDA support");
}

#endif

}  // namespace faraday
