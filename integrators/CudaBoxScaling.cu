#include "integrators/CudaBoxScaling.h"

#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = 128;

__device__ double& component(double4_32a& v, int c) { return c == 0 ? v.x : (c == 1 ? v.y : v.z); }

__global__ void scaleMoleculesKernel(double4_32a* pos, const int* slotOfAtom, const int* starts, const double* mass,
                                     int molecules, BoxScalingParams params) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= molecules) return;
  const int first = starts[m], count = starts[m + 1] - first;
  scaleMolecule(
      count, params, [&](int k, int c) { return component(pos[slotOfAtom[first + k]], c); },
      [&](int k, int c, double v) { component(pos[slotOfAtom[first + k]], c) = v; },
      [&](int k) { return mass[first + k]; });
}

}  // namespace

void launchScaleMolecules(cudaStream_t stream, double4_32a* pos, const int* slotOfAtom, const int* starts,
                          const double* mass, int molecules, const BoxScalingParams& params) {
  if (molecules < 1) return;
  scaleMoleculesKernel<<<blocksFor(molecules, kThreads), kThreads, 0, stream>>>(pos, slotOfAtom, starts, mass,
                                                                                 molecules, params);
  FARADAY_CUDA_CHECK_LAUNCH("scaleMoleculesKernel");
}

}  // namespace faraday
