// The all-pairs mode's velocity Verlet on the device (see CudaAllPairsUpdate.h), one thread per
// particle, with the device velocity Verlet's own kick and drift (CudaAtomUpdate.cuh).
#include "integrators/CudaAllPairsUpdate.h"

#include "integrators/CudaAtomUpdate.cuh"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"

namespace faraday {
namespace {

constexpr int kThreads = kAllPairsUpdateThreads;

__device__ __forceinline__ double3 forceOf(const AllPairsAtoms& a, int i) {
  return make_double3(forceComponent(a, 0, i), forceComponent(a, 1, i), forceComponent(a, 2, i));
}

/// The float body of particle i at x, relative to the bodies' origin (w kept).
__device__ __forceinline__ void writeBody(const AllPairsAtoms& a, int i, double4_32a x) {
  float4 b = a.body[i];
  b.x = float(x.x - a.origin.x), b.y = float(x.y - a.origin.y), b.z = float(x.z - a.origin.z);
  a.body[i] = b;
}

/// Velocity Verlet alone: no Langevin, no box.
__device__ __forceinline__ CudaIntegratorParams verlet(double dt) {
  CudaIntegratorParams q;
  q.dt = dt;
  return q;
}

__global__ void kickDriftKernel(AllPairsAtoms a, double dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const CudaIntegratorParams q = verlet(dt);
  double4_32a v = a.vel[i], x = a.pos[i];
  cuda_update::kick(q, forceOf(a, i), v);  // B
  cuda_update::driftHalf(q, 0, i, x, v);   // A
  a.vel[i] = v;
  a.pos[i] = x;
  for (int c = 0; c < 3; ++c) a.force[c * a.stride + i] = 0ull;
  writeBody(a, i, x);
  if (!isfinite(x.x + x.y + x.z)) atomicMin(a.firstBad, i);
}

__global__ void kickKernel(AllPairsAtoms a, double dt, double* keParts) {
  __shared__ double partial[kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double ke = 0;
  if (i < a.n) {
    double4_32a v = a.vel[i];
    const double3 f = forceOf(a, i);
    cuda_update::kick(verlet(dt), f, v);  // B
    a.vel[i] = v;
    const double fMax = fmax(fabs(f.x), fmax(fabs(f.y), fabs(f.z)));
    if (!isfinite(v.x + v.y + v.z) || fMax > a.forceLimit) atomicMin(a.firstBad, i);
    ke = 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z) / v.w;
  }
  if (!keParts) return;
  partial[threadIdx.x] = ke;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) keParts[blockIdx.x] = partial[0];
}

__global__ void bodiesKernel(AllPairsAtoms a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) writeBody(a, i, a.pos[i]);
}

}  // namespace

void launchAllPairsKickDrift(cudaStream_t stream, const AllPairsAtoms& atoms, double dt) {
  kickDriftKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, dt);
  FARADAY_CUDA_CHECK_LAUNCH("kickDriftKernel");
}

void launchAllPairsKick(cudaStream_t stream, const AllPairsAtoms& atoms, double dt, double* keParts) {
  kickKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, dt, keParts);
  FARADAY_CUDA_CHECK_LAUNCH("kickKernel");
}

void launchAllPairsBodies(cudaStream_t stream, const AllPairsAtoms& atoms) {
  bodiesKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms);
  FARADAY_CUDA_CHECK_LAUNCH("bodiesKernel");
}

}  // namespace faraday
