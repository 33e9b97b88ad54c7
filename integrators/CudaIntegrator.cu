// Device halves of velocity Verlet and Langevin BAOAB (see CudaIntegrator.h), one thread
// per slot. The formulas and their order of operations are the CPU integrators'.
#include <cub/cub.cuh>

#include <climits>

#include "integrators/CudaIntegrator.h"
#include "integrators/Langevin.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/common/Launch.h"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday {
namespace {

constexpr int kThreads = 256;
/// A force beyond this (kJ/mol/nm) is a runaway: a non-finite pair force becomes the most
/// negative fixed-point value (-2^31), and no physical force comes near 1e9.
constexpr double kRunawayForce = 1e9;


__device__ double3 forceOf(const DeviceAtoms& a, int s) {
  return make_double3(fixed::fromFixed(static_cast<long long>(a.force[s])),
                      fixed::fromFixed(static_cast<long long>(a.force[a.stride + s])),
                      fixed::fromFixed(static_cast<long long>(a.force[2 * a.stride + s])));
}

__device__ bool finite3(double x, double y, double z) { return isfinite(x) && isfinite(y) && isfinite(z); }

/// posq (wrapped, float) and PME fractions of slot s at position p.
__device__ void writeWrapped(const DeviceAtoms& a, const CudaIntegratorParams& q, int s, double4_32a p) {
  const double x = p.x - q.length[0] * floor(p.x / q.length[0]);
  const double y = p.y - q.length[1] * floor(p.y / q.length[1]);
  const double z = p.z - q.length[2] * floor(p.z / q.length[2]);
  a.posq[s] = make_float4(float(x), float(y), float(z), a.posq[s].w);
  if (a.fractions) {
    a.fractions[3 * std::size_t(s)] = pme::fractionalFixedPoint(p.x, q.fractionScale[0]);
    a.fractions[3 * std::size_t(s) + 1] = pme::fractionalFixedPoint(p.y, q.fractionScale[1]);
    a.fractions[3 * std::size_t(s) + 2] = pme::fractionalFixedPoint(p.z, q.fractionScale[2]);
  }
}

__global__ void __launch_bounds__(kThreads) firstHalfKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status,
                                                           cudaGraphConditionalHandle handle) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.n) {
    const double3 f = forceOf(a, s);
    a.force[s] = a.force[a.stride + s] = a.force[2 * a.stride + s] = 0ull;
    double4_32a v = a.vel[s], x = a.pos[s];
    const double h = 0.5 * q.dt, hm = h * v.w;
    v.x += f.x * hm, v.y += f.y * hm, v.z += f.z * hm;  // B
    if (q.langevin) {
      x.x += v.x * h, x.y += v.y * h, x.z += v.z * h;  // A
      const Vec3 o = langevinOrnsteinUhlenbeck(Vec3{v.x, v.y, v.z}, q.a, sqrt(q.noiseVariance * v.w), q.seed,
                                               std::uint64_t(status->step), std::uint32_t(a.atom[s]));
      v.x = o.x, v.y = o.y, v.z = o.z;                  // O
      x.x += v.x * h, x.y += v.y * h, x.z += v.z * h;  // A
    } else {
      x.x += v.x * q.dt, x.y += v.y * q.dt, x.z += v.z * q.dt;  // A
    }
    a.vel[s] = v;
    a.pos[s] = x;
    writeWrapped(a, q, s, x);
    const double4_32a r = a.ref[s];
    double dx = x.x - r.x, dy = x.y - r.y, dz = x.z - r.z;
    dx -= q.length[0] * rint(dx / q.length[0]);
    dy -= q.length[1] * rint(dy / q.length[1]);
    dz -= q.length[2] * rint(dz / q.length[2]);
    if (!(dx * dx + dy * dy + dz * dz <= q.halfBuffer2)) status->rebuild = 1;  // also when not finite
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
    cudaGraphSetConditional(handle, rebuild ? 1u : 0u);
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
    if (kick) {
      const double3 f = forceOf(a, s);
      const double hm = 0.5 * q.dt * v.w;
      v.x += f.x * hm, v.y += f.y * hm, v.z += f.z * hm;
      a.vel[s] = v;
      const double4_32a x = a.pos[s];
      const bool runaway = !(fabs(f.x) < kRunawayForce && fabs(f.y) < kRunawayForce && fabs(f.z) < kRunawayForce);
      if (runaway || !finite3(v.x, v.y, v.z) || !finite3(x.x, x.y, x.z)) atomicMin(&status->firstBad, a.atom[s]);
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
                     StepStatus* status, unsigned long long conditionHandle) {
  firstHalfKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, params, status, conditionHandle);
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
