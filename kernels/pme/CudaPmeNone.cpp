// makeCudaPme for builds in which the CUDA PME solver is absent.
#include "engine/Error.h"
#include "kernels/pme/CudaPme.h"

namespace faraday {

#if !defined(FARADAY_HAVE_CUDA)

std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams&, std::size_t) {
  throw Error("this build has no CUDA support");
}

#else

// Placeholder until kernels/pme/CudaPme.cu provides the GPU solver; that file then
// replaces this definition.
std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams&, std::size_t) {
  throw Error("CUDA PME not available in this build");
}

#endif

}  // namespace faraday
