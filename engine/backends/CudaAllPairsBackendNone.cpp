// makeCudaAllPairsBackend for builds without CUDA (CUDA builds define it in
// CudaAllPairsBackend.cu).
#if !defined(FARADAY_HAVE_CUDA)
#include "engine/backends/CudaAllPairsBackend.h"
#include "core/Error.h"

namespace faraday {

std::unique_ptr<Backend> makeCudaAllPairsBackend(const AllPairsRunParams&, const System&, Timers*) {
  throw Error("nonbonded.mode = all-pairs with run.platform = cuda: this build has no CUDA backend");
}

}  // namespace faraday
#endif
