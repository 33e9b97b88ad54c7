// Device halves of velocity Verlet and Langevin BAOAB (see CudaIntegrator.h), one thread
// per slot. The formulas and their order of operations are the CPU integrators'.
#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <string>

#include "integrators/CudaAtomUpdate.cuh"
#include "integrators/CudaIntegrator.h"
#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"
#include "kernels/common/WorkShare.h"
#include "kernels/neighbor/TileList.h"
#include "kernels/vsites/CudaSiteBuild.cuh"

namespace faraday {
namespace {

constexpr int kThreads = 256;
/// The first half at 4 blocks per SM (<= 64 registers): the Langevin step is bound by memory
/// latency, and 3 blocks (68 registers) took twice as long (H200, 1M atoms: 0.23 -> 0.11 ms).
constexpr int kFirstHalfBlocksPerSm = 4;
using namespace cuda_update;

/// The slots this launch updates: [lo, hi) (atoms.own, or every slot).
__device__ __forceinline__ int2 ownRange(const DeviceAtoms& a) {
  return a.own ? make_int2(a.own[0], a.own[1]) : make_int2(0, a.n);
}

/// Every thread of the grid calls it at the end: the last block to finish turns the
/// displacement flag into the graph's condition.
__device__ __forceinline__ void decideRebuild(StepStatus* status, cudaGraphConditionalHandle handle, bool inGraph) {
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

/// The first half of slot s at x (unconstrained: w = 0); with kStepKinetic, the kinetic energy
/// of its new velocity (else 0).
template <bool kStepKinetic>
__device__ __forceinline__ double firstHalfSlot(const DeviceAtoms& a, const CudaIntegratorParams& q, StepStatus* status,
                                              int s, double4_32a x) {
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
  if constexpr (kStepKinetic) return langevinMidpointKinetic(Vec3{v.x, v.y, v.z}, v.w);
  return 0;
}

/// kOwn: the update split's slots a.own, the flag left for wrapOthersKernel; else every slot,
/// the last block deciding the list build. kStepKinetic: the slots' midpoint kinetic energy
/// added to q.stepKinetic.
template <bool kOwn, bool kStepKinetic>
__global__ void __launch_bounds__(kThreads, kFirstHalfBlocksPerSm)
    firstHalfKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status, cudaGraphConditionalHandle handle,
                    bool inGraph, bool decide) {
  int s = blockIdx.x * blockDim.x + threadIdx.x, end = a.n;  // the grid covers every slot
  if constexpr (kOwn) s += a.own[0], end = a.own[1];
  double4_32a x;
  double kinetic = 0;
  if (s < end && (x = a.pos[s]).w == 0.0)  // constrained (w = 1): moved already
    kinetic = firstHalfSlot<kStepKinetic>(a, q, status, s, x);
  if constexpr (kStepKinetic) addWarpEnergy(q.stepKinetic, kinetic);
  if constexpr (!kOwn)
    if (decide) decideRebuild(status, handle, inGraph);  // the same on every thread of the grid
}

/// Sites [first, end) of `v` built into their slots (w kept), then wrapped and tested as moved
/// atoms are; kDecide (the last level): the rebuild decided by the grid's last block.
template <bool kDecide>
__global__ void __launch_bounds__(kThreads)
    buildSitesKernel(DeviceAtoms a, CudaIntegratorParams q, DeviceVirtualSites v, int first, int end,
                     const int* slotOfAtom, StepStatus* status, cudaGraphConditionalHandle handle, bool inGraph) {
  const int k = first + int(blockIdx.x * blockDim.x + threadIdx.x);
  if (k < end) {
    const VirtualSite s = v.sites[k];
    const WrapBox box = wrapBox(q);
    const Vec3 x = cuda_sites::buildSite(v, s, a.pos, slotOfAtom, box.image);
    const int slot = slotOfAtom[s.site];
    double4_32a p = a.pos[slot];
    const double4_32a ref = a.ref[slot];
    const float charge = a.posq[slot].w;
    p.x = x.x, p.y = x.y, p.z = x.z;
    a.pos[slot] = p;
    afterDrift(a, box, q.halfBuffer2, status, slot, p, ref, charge);
  }
  if constexpr (kDecide) decideRebuild(status, handle, inGraph);
}

__global__ void __launch_bounds__(kThreads)
    wrapOthersKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status, cudaGraphConditionalHandle handle,
                     bool inGraph) {
  const int2 range = ownRange(a);
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.n && (s < range.x || s >= range.y)) {
    double4_32a x = a.pos[s];
    if (a.packedOthers) {
      const double* p = a.packedOthers + 3 * std::size_t(s);
      x.x = p[0], x.y = p[1], x.z = p[2];
      a.pos[s] = x;
    }
    const double4_32a ref = a.ref[s];
    const float charge = a.posq[s].w;
    clearForce(a, s);
    afterDrift(a, wrapBox(q), q.halfBuffer2, status, s, x, ref, charge);
  }
  decideRebuild(status, handle, inGraph);
}

/// launchUpdateBounds's block cuts, by value.
struct BlockCuts {
  bool given = false;
  int block[WorkShare::kMaxCuts] = {};
};

__global__ void updateBoundsKernel(int n, int ranks, const unsigned long long* keys, int shift, BlockCuts cuts,
                                   int* bounds) {
  const int g = threadIdx.x;
  if (g > ranks) return;
  int s = cuts.given ? int(min((long long)n, (long long)cuts.block[g] * kTileSize)) : int((long long)g * n / ranks);
  // A rank's run may start at slot 0 (block cuts giving the ranks before it no tiles: PME on
  // the first GPU with a tile weight of 0): no slot before it to compare with.
  if (keys && g > 0 && g < ranks && s > 0)
    while (s < n && (keys[s] >> shift) == (keys[s - 1] >> shift)) ++s;
  bounds[g] = s;
}

template <bool kKinetic>
__global__ void __launch_bounds__(kThreads) secondHalfKernel(DeviceAtoms a, CudaIntegratorParams q, StepStatus* status,
                                                            const int* pmeBinsNeeded, double* keParts, bool kick) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage scratch;
  const int2 range = ownRange(a);
  const int s = range.x + int(blockIdx.x * blockDim.x + threadIdx.x);  // the grid covers every slot
  double ke = 0;
  if (s < range.y) {
    double4_32a v = a.vel[s];
    double4_32a x;
    if (kick && (x = a.pos[s]).w == 0.0) {  // constrained slots: kicked by the constraint kernels
      const double3 f = forceOf(a, s);
      cuda_update::kick(q, f, v);
      a.vel[s] = v;
      if (isBad(f, x, v)) atomicMin(&status->firstBad, a.atom[s]);
    }
    if constexpr (kKinetic) ke = v.w > 0 ? 0.5 * (v.x * v.x + v.y * v.y + v.z * v.z) / v.w : 0.0;  // sites: 1/m = 0
  }
  if constexpr (kKinetic) {
    const double sum = Reduce(scratch).Sum(ke);
    if (threadIdx.x == 0) keParts[blockIdx.x] = sum;
  }
  if (kick && blockIdx.x == 0 && threadIdx.x == 0) {
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

/// Blocks for a launch over this GPU's slots: as many as for every slot (the run of slots
/// starts anywhere; the threads past its end return at once).
int updateBlocks(const DeviceAtoms& atoms) { return blocksFor(atoms.n, kThreads); }

void launchFirstHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                     StepStatus* status, const unsigned long long* conditionHandle, bool decideRebuild) {
  const cudaGraphConditionalHandle handle = conditionHandle ? *conditionHandle : 0ull;
  const int blocks = updateBlocks(atoms);
  const bool inGraph = conditionHandle != nullptr, d = decideRebuild;
  if (atoms.own && params.stepKinetic)
    firstHalfKernel<true, true><<<blocks, kThreads, 0, stream>>>(atoms, params, status, handle, false, d);
  else if (atoms.own)
    firstHalfKernel<true, false><<<blocks, kThreads, 0, stream>>>(atoms, params, status, handle, false, d);
  else if (params.stepKinetic)
    firstHalfKernel<false, true><<<blocks, kThreads, 0, stream>>>(atoms, params, status, handle, inGraph, d);
  else
    firstHalfKernel<false, false><<<blocks, kThreads, 0, stream>>>(atoms, params, status, handle, inGraph, d);
  FARADAY_CUDA_CHECK_LAUNCH("firstHalfKernel");
}

void launchBuildSites(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      const CudaVirtualSites& sites, const int* slotOfAtom, StepStatus* status,
                      const unsigned long long* conditionHandle) {
  if (atoms.own) throw Error("virtual sites: the update split of several GPUs does not build them");
  const cudaGraphConditionalHandle handle = conditionHandle ? *conditionHandle : 0ull;
  const bool inGraph = conditionHandle != nullptr;
  for (int level = 0; level < sites.levels(); ++level) {
    const int first = sites.levelStart(level), end = sites.levelStart(level + 1);
    const int blocks = std::max(1, blocksFor(end - first, kThreads));
    if (level + 1 < sites.levels())
      buildSitesKernel<false><<<blocks, kThreads, 0, stream>>>(atoms, params, sites.view(), first, end, slotOfAtom,
                                                              status, handle, inGraph);
    else
      buildSitesKernel<true><<<blocks, kThreads, 0, stream>>>(atoms, params, sites.view(), first, end, slotOfAtom,
                                                             status, handle, inGraph);
    FARADAY_CUDA_CHECK_LAUNCH("buildSitesKernel");
  }
}

void launchWrapOthers(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      StepStatus* status, const unsigned long long* conditionHandle) {
  wrapOthersKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(
      atoms, params, status, conditionHandle ? *conditionHandle : 0ull, conditionHandle != nullptr);
  FARADAY_CUDA_CHECK_LAUNCH("wrapOthersKernel");
}

void launchUpdateBounds(cudaStream_t stream, int n, int ranks, const unsigned long long* sortedKeys, int groupShift,
                        int* bounds, const int* blockCuts) {
  if (ranks + 1 > WorkShare::kMaxCuts)
    throw Error("update bounds: at most " + std::to_string(WorkShare::kMaxCuts - 1) + " GPUs");
  BlockCuts cuts;
  cuts.given = blockCuts != nullptr;
  for (int g = 0; cuts.given && g <= ranks; ++g) cuts.block[g] = blockCuts[g];
  updateBoundsKernel<<<1, 32, 0, stream>>>(n, ranks, sortedKeys, groupShift, cuts, bounds);
  FARADAY_CUDA_CHECK_LAUNCH("updateBoundsKernel");
}

void launchSecondHalf(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params,
                      StepStatus* status, const int* pmeBinsNeeded, double* keParts) {
  if (keParts && atoms.own) throw Error("secondHalf: the kinetic partials need every slot");
  const int blocks = updateBlocks(atoms);
  if (keParts)
    secondHalfKernel<true><<<blocks, kThreads, 0, stream>>>(atoms, params, status, pmeBinsNeeded, keParts, true);
  else
    secondHalfKernel<false><<<blocks, kThreads, 0, stream>>>(atoms, params, status, pmeBinsNeeded, keParts, true);
  FARADAY_CUDA_CHECK_LAUNCH("secondHalfKernel");
}

void launchKineticEnergy(cudaStream_t stream, const DeviceAtoms& atoms, double* keParts) {
  DeviceAtoms every = atoms;
  every.own = nullptr;  // the partials are those of every slot, one a thread
  secondHalfKernel<true><<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(every, CudaIntegratorParams{}, nullptr,
                                                                               nullptr, keParts, false);
  FARADAY_CUDA_CHECK_LAUNCH("secondHalfKernel");
}

void launchWrapPositions(cudaStream_t stream, const DeviceAtoms& atoms, const CudaIntegratorParams& params) {
  wrapKernel<<<blocksFor(atoms.n, kThreads), kThreads, 0, stream>>>(atoms, params);
  FARADAY_CUDA_CHECK_LAUNCH("wrapKernel");
}

}  // namespace faraday
