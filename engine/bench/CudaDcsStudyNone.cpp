// The benchmark's map kernels in a build without CUDA: every entry point says so.
#if !defined(FARADAY_HAVE_CUDA)
#include "core/Error.h"
#include "engine/bench/CudaDcsStudy.h"

namespace faraday {
namespace {
[[noreturn]] void noCuda() { throw Error("potential map: this build has no CUDA support"); }
}  // namespace
const char* dcsKernelName(DcsKernel) { return "?"; }
const char* dcsAccumulationName(DcsAccumulation) { return "?"; }
DcsKernel productionKernel(MapMethod method) {
  return method == MapMethod::Cutoff ? DcsKernel::CutoffBinned : DcsKernel::Coalesced;
}
std::vector<double> cudaPotentialMap(DcsKernel, DcsAccumulation, const Lattice&, const std::vector<Vec3>&,
                                     const std::vector<double>&, const MapOptions&, DcsKernelStats*, int,
                                     const DcsGatherTuning*) {
  noCuda();
}
double cudaRsqrtCeiling() { noCuda(); }
}  // namespace faraday
#endif
