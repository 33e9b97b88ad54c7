// The virial of the all-pairs forces from the particles and their forces (CudaAllPairs.h).
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"
#include "kernels/nbody/CudaAllPairs.h"

namespace faraday {
namespace {

constexpr int kThreads = kAllPairsVirialThreads;

__global__ void virialKernel(AllPairsAtoms a, double* parts) {
  __shared__ double partial[9][kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (i < a.n) {
    const double4_32a x = a.pos[i];
    const double xs[3] = {x.x - a.origin.x, x.y - a.origin.y, x.z - a.origin.z};
    const double f[3] = {forceComponent(a, 0, i), forceComponent(a, 1, i), forceComponent(a, 2, i)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) w[3 * r + c] = xs[r] * f[c];
  }
  for (int k = 0; k < 9; ++k) partial[k][threadIdx.x] = w[k];
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      for (int k = 0; k < 9; ++k) partial[k][threadIdx.x] += partial[k][threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 9; ++k) parts[9 * blockIdx.x + k] = partial[k][0];
}

}  // namespace

void launchAllPairsVirial(cudaStream_t stream, const AllPairsAtoms& atoms, double* parts) {
  virialKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, parts);
  FARADAY_CUDA_CHECK_LAUNCH("virialKernel");
}

}  // namespace faraday
