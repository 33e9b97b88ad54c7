// Device halves of velocity Verlet and Langevin BAOAB (see CudaIntegrator.h), one thread
// per slot. The formulas and their order of operations are the CPU integrators'.
#include <cub/cub.cuh>

#include <climits>

#include "integrators/CudaAtomUpdate.cuh"
#include "integrators/CudaIntegrator.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = 256;
/// The first half at 4 blocks per SM (<= 64 registers): the Langevin step is bound by memory
/// latency, and 3 blocks (68 registers) took twice as long (H200, 1M atoms: 0.23 -> 0.11 ms).
constexpr int kFirstHalfBlocksPerSm = 4;
using namespace cuda_update;

__global__ void __launch_bounds__(kThreads, kFirstHalfBlocksPerSm)
    firstHalfKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status, cudaGraphConditionalHandle handle,
                    bool inGraph) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  double4_32a x;
  if (s < a.n && (x = a.pos[s]).w == 0.0) {  // constrained slots (w = 1) moved already
    // Every load of the slot before its arithmetic and stores, so that they are in flight
    // together (the kernel is bound by memory latency otherwise: the stores may alias later
    // loads, which then wait for them).
    const double3 f = forceOf(a, s);
    double4_32a v = a.vel[s];
    const double4_32a ref = a.ref[s];
    const float charge = a.posq[s].w;
    const int particle = a.atom[s];
    const std::uint64_t step = std::uint64_t(status->step);
    const WrapBox box = wrapBox(q);
    clearForce(a, s);
    firstHalf(q, f, step, particle, x, v);
    a.vel[s] = v;
    a.pos[s] = x;
    afterDrift(a, box, q.halfBuffer2, status, s, x, ref, charge);
  }
  // The last block to finish turns the flag into the graph's condition.
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(&status->blocksDone, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    const int rebuild = atomicExch(&status->rebuild, 0);
    if (rebuild) status->builds += 1;
    status->blocksDone = 0;
    if (inGraph) cudaGraphSetConditional(handle, rebuild ? 1u : 0u);
  }
}

template <bool kKinetic>
__global__ void __launch_bounds__(kThreads) secondHalfKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status,
                                                            const int* pmeBinsNeeded, double* keParts, bool kick) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage scratch;
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  double ke = 0;
  if (s < a.n) {
    double4_32a v = a.vel[s];
    double4_32a x;
    if (kick && (x = a.pos[s]).w == 0.0) {  // constrained slots: kicked by the constraint kernels
      const double3 f = forceOf(a, s);
      cuda_update::kick(q, f, v);
      a.vel[s] = v;
      if (isBad(f, x, v)) atomicMin(&status->firstBad, a.atom[s]);
    }
    if constexpr (kKinetic) ke = 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z) / v.w;
  }
  if constexpr (kKinetic) {
    const double sum = Reduce(scratch).Sum(ke);
    if (threadIdx.x == 0) keParts[blockIdx.x] = sum;
  }
  if (kick && s == 0) {
    status->step += 1;
    if (pmeBinsNeeded) status->pmeBinsNeeded = max(status->pmeBinsNeeded, *pmeBinsNeeded);
  }
}

__global__ void wrapKernel(DeviceAtoms a, CudaIntegratorParams q) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.n) writeWrapped(a, q, s, a.pos[s]);
}

}  // namespace

int kineticBlocks(int n) { return blocksFor(n, kThreads); }

void launchFirstHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                     StepStatus* status, const unsigned long long* conditionHandle) {
  firstHalfKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(
      atoms, params, status, conditionHandle ? *conditionHandle : 0ull, conditionHandle != nullptr);
  FARADAY_CUDA_CHECK_LAUNCH("firstHalfKernel");
}

void launchSecondHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      StepStatus* status, const int* pmeBinsNeeded, double* keParts) {
  if (keParts)
    secondHalfKernel<true><<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, params, status, pmeBinsNeeded, keParts, true);
  else
    secondHalfKernel<false><<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, params, status, pmeBinsNeeded, keParts, true);
  FARADAY_CUDA_CHECK_LAUNCH("secondHalfKernel");
}

void launchKineticEnergy(cudaStream_t stream, const DeviceAtoms& atoms, double* keParts) {
  secondHalfKernel<true><<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, CudaIntegratorParams{}, nullptr, nullptr,
                                                                      keParts, false);
  FARADAY_CUDA_CHECK_LAUNCH("secondHalfKernel");
}

void launchWrapPositions(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params) {
  wrapKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, params);
  FARADAY_CUDA_CHECK_LAUNCH("wrapKernel");
}

}  // namespace faraday
