// makeCudaPme for builds in which the CUDA PME solver is absent (CUDA builds define it
// in CudaPme.cu).
#include "core/Error.h"
#include "kernels/pme/CudaPme.h"

namespace faraday {

#if !defined(FARADAY_HAVE_CUDA)

std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams&, std::size_t) {
  throw Error("this build has no CUDA support");
}

#endif

}  // namespace faraday
