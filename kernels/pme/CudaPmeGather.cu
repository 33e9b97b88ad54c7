// Phase 6 of the GPU PME (CudaPme.cu has the overview): one thread block per brick stages
// the potential its atoms reach in shared memory, then one thread per atom interpolates its
// force; block 0 first sums the convolution's energy and virial partials. The file reads in
// layers: block- and warp-level steps -> the __global__ kernel -> its launch function.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/FixedPoint.h"
#include "kernels/pme/CudaPmeDetail.cuh"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::pme::gpu {

namespace {

/// i mod K for i >= 0: one comparison unless i >= 2K (grids smaller than a brick and its halo).
__device__ __forceinline__ int wrapIndex(int i, int K) { return i < K ? i : (i - K < K ? i - K : i % K); }

// Gather: a block per brick (see gatherKernel). The brick's atoms reach the points o + r,
// r in [0, kSide) per dimension (kSide = kBrickEdge + P - 1), staged x-major, z fastest.
constexpr int kGatherThreads = 64;
constexpr unsigned int kNoBin = ~0u;
static_assert(kBrickEdge == 2 * pme::kBinEdge, "a brick holds 2 x 2 x 2 bins");
template <int P>
struct GatherShared {
  static constexpr int kSide = kBrickEdge + P - 1;
  static_assert(kSide <= 16, "the staging puts two rows of a plane in a warp");
  float phi[kSide * kSide * kSide];
  unsigned int bin[8];     ///< the brick's bins, (x, y, z) halves as bits 2, 1, 0; kNoBin past the grid
  int start[9];            ///< the brick's atoms: bin k holds atoms start[k] .. start[k + 1] - 1
};

/// Warp 0 of a gather block: the brick's bins, their atom counts and where each bin's atoms
/// start in the brick's order (lanes 0-7 hold a bin each; a shuffle scan).
__device__ __forceinline__ void brickBinStarts(const BinLayout& bins, const int brick[3],
                                               const int* __restrict__ binCount, unsigned int bin[8],
                                               int start[9]) {
  const int lane = threadIdx.x & 31;
  int count = 0;
  if (lane < 8) {
    const int cb[3] = {2 * brick[0] + (lane >> 2), 2 * brick[1] + ((lane >> 1) & 1), 2 * brick[2] + (lane & 1)};
    unsigned int b = kNoBin;
    if (cb[0] < bins.nb[0] && cb[1] < bins.nb[1] && cb[2] < bins.nb[2]) {
      b = pme::binIndex(bins.nb, cb[0] * pme::kBinEdge, cb[1] * pme::kBinEdge, cb[2] * pme::kBinEdge);
      count = min(binCount[b], bins.cap);
    }
    bin[lane] = b;
  }
  int inclusive = count;
#pragma unroll
  for (int d = 1; d < 8; d <<= 1) {
    const int v = __shfl_up_sync(kFullMask, inclusive, d);
    if (lane >= d) inclusive += v;
  }
  if (lane < 8) start[lane + 1] = inclusive;
  if (lane == 0) start[0] = 0;
}

/// Stages the potential the brick's atoms reach (see GatherShared). Lanes run along z, kSide
/// of them per row and two rows per warp; a thread loads its rows of kXBatch x planes before
/// storing them. Lanes past the last row repeat its last point (same value, same place).
/// The first batch is loaded by the constructor, before the block learns its atoms.
template <int P>
class PotentialStager {
 public:
  static constexpr int S = GatherShared<P>::kSide;
  static constexpr int kRows = 32 / S;
  static constexpr int kRowStep = kRows * (kGatherThreads / 32);
  static constexpr int kYIter = (S + kRowStep - 1) / kRowStep;
  static constexpr int kXBatch = 4;

  __device__ __forceinline__ PotentialStager(const GridDims& g, const int o[3], const float* __restrict__ phi,
                                             int slabFirst, int slabLast)
      : phi_(phi), ox_(o[0]), kx_(g.k[0]), planeSize_(g.k[1] * g.k[2]), slabFirst_(slabFirst), slabLast_(slabLast) {
    const int lane = threadIdx.x & 31, sub = min(lane / S, kRows - 1);
    const int z = lane < kRows * S ? lane - sub * S : S - 1;
    const int y0 = (threadIdx.x >> 5) * kRows + sub;
    const int zg = wrapIndex(o[2] + z, g.k[2]);
#pragma unroll
    for (int m = 0; m < kYIter; ++m) {
      const int y = min(y0 + m * kRowStep, S - 1);
      rowSrc_[m] = wrapIndex(o[1] + y, g.k[1]) * g.k[2] + zg;
      rowDst_[m] = y * S + z;
    }
    load(0);
  }

  /// Stores the loaded batch, then loads and stores the others.
  __device__ __forceinline__ void finish(GatherShared<P>& sh) {
#pragma unroll
    for (int x0 = 0; x0 < S; x0 += kXBatch) {
      if (x0 > 0) load(x0);
#pragma unroll
      for (int u = 0; u < kXBatch; ++u)
#pragma unroll
        for (int m = 0; m < kYIter; ++m)
          if (x0 + u < S) sh.phi[(x0 + u) * S * S + rowDst_[m]] = v_[u][m];
    }
  }

 private:
  __device__ __forceinline__ void load(int x0) {
#pragma unroll
    for (int u = 0; u < kXBatch; ++u) {
      // Planes of other GPUs' slabs count zero here (theirs add the rest).
      const int x = wrapIndex(ox_ + min(x0 + u, S - 1), kx_);
      const bool held = x >= slabFirst_ && x < slabLast_;
      const int plane = x * planeSize_;
#pragma unroll
      for (int m = 0; m < kYIter; ++m) {
        const float v = __ldg(phi_ + (rowSrc_[m] + plane));
        v_[u][m] = held ? v : 0.f;
      }
    }
  }

  const float* phi_;
  int ox_, kx_, planeSize_, slabFirst_, slabLast_;
  int rowSrc_[kYIter];
  int rowDst_[kYIter];
  float v_[kXBatch][kYIter];
};

/// One atom of a gather brick: its index, its cell relative to the brick origin, and its
/// entry (the tag, the values and the derivatives).
template <int P>
struct GatherAtom {
  int atom;
  int r[3];
  float4 e[Entry<P>::kGatherFloat4s];
};

/// Atom p of the brick (in the order of brickBinStarts()).
template <int P>
__device__ __forceinline__ GatherAtom<P> loadGatherAtom(const unsigned int bin[8], const int start[9],
                                                        const BinLayout& bins, const float4* __restrict__ entries,
                                                        int p) {
  int k = 0;  // the bin holding p: the last whose start is <= p (empty bins start where the next does)
#pragma unroll
  for (int s = 1; s < 8; ++s) k += start[s] <= p;
  const float4* const e = entries + binSlot(bins, bin[k], p - start[k]) * Entry<P>::kFloat4s;
  GatherAtom<P> a;
#pragma unroll
  for (int c = 0; c < Entry<P>::kGatherFloat4s; ++c) a.e[c] = __ldg(e + c);
  const int tag = __float_as_int(a.e[0].x);
  const int origin[3] = {pme::kBinEdge * (k >> 2), pme::kBinEdge * ((k >> 1) & 1), pme::kBinEdge * (k & 1)};
  a.atom = tag >> kTagBits;
  tagCell(tag, origin, a.r);
  return a;
}

/// The force on one atom from the staged potential: per x plane i and y row j, the sums
/// over z of theta_z phi and dtheta_z phi, then the y and x weights.
template <int P>
__device__ __forceinline__ void interpolateForce(const GatherShared<P>& sh, const GatherAtom<P>& a, float3 scale,
                                                 float3 tilt, const ForceOut& out) {
  constexpr int S = GatherShared<P>::kSide;
  float v[4 * Entry<P>::kGatherFloat4s];
  unpackFloat4s(a.e, v);
  const float* const tx = v + Entry<P>::kValues;  // q theta_x
  const float* const ty = tx + P;
  const float* const tz = ty + P;
  const float* const dx = v + Entry<P>::kDerivs;  // q dtheta_x
  const float* const dy = dx + P;
  const float* const dz = dy + P;
  float gx = 0.f, gy = 0.f, gz = 0.f;
#pragma unroll
  for (int i = 0; i < P; ++i) {
    const float* plane = sh.phi + ((a.r[0] + i) * S + a.r[1]) * S + a.r[2];
    float sT = 0.f, sY = 0.f, sD = 0.f;  // sum_j theta_y T_j, dtheta_y T_j, theta_y D_j
#pragma unroll
    for (int j = 0; j < P; ++j) {
      float T = 0.f, D = 0.f;  // sum_k theta_z phi, dtheta_z phi of row j
#pragma unroll
      for (int k = 0; k < P; ++k) {
        const float v = plane[j * S + k];
        T = fmaf(tz[k], v, T);
        D = fmaf(dz[k], v, D);
      }
      sT = fmaf(ty[j], T, sT);
      sY = fmaf(dy[j], T, sY);
      sD = fmaf(ty[j], D, sD);
    }
    gx = fmaf(dx[i], sT, gx);
    gy = fmaf(tx[i], sY, gy);
    gz = fmaf(tx[i], sD, gz);
  }
  // F = -(K_x a* g_x + K_y b* g_y + K_z c* g_z): the tilt terms (tilt = K_x a*_y, K_x a*_z,
  // K_y b*_z) are zero in a rectangular box, where adding them changes no bit.
  const float fx = -scale.x * gx;
  const float fy = __fmaf_rn(-tilt.x, gx, -scale.y * gy);
  const float fz = __fmaf_rn(-tilt.y, gx, __fmaf_rn(-tilt.z, gy, -scale.z * gz));
  if (out.fixed) {
    // Integer atomics: the short-range kernel may be adding to the same buffer meanwhile.
    unsigned long long* f = out.fixed + a.atom;
    atomicAdd(f, static_cast<unsigned long long>(__float2ll_rn(fx * 4294967296.f)));
    atomicAdd(f + out.stride, static_cast<unsigned long long>(__float2ll_rn(fy * 4294967296.f)));
    atomicAdd(f + 2 * out.stride, static_cast<unsigned long long>(__float2ll_rn(fz * 4294967296.f)));
    return;
  }
  float* f = out.forces + 3 * std::size_t(a.atom);
  f[0] = fx;
  f[1] = fy;
  f[2] = fz;
}

/// The final reduction of the convolution's block partials, by one block of kBlock threads
/// (block 0 of the gather, which runs after the convolution has finished): thread t adds
/// partials t, t + kBlock, ... in index order, then one block reduction in double; the sums
/// go out with the bin overflow count, which is reset for the next binning. Every thread of
/// the block must call it.
template <int kBlock>
__device__ __forceinline__ void sumPartials(const Sums7* __restrict__ partials, int count,
                                            int* __restrict__ binsNeeded, EvaluationSums* __restrict__ out,
                                            unsigned long long* __restrict__ fixedSums) {
  using BlockReduce = cub::BlockReduce<Sums7, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  Sums7 local;
#pragma unroll
  for (int c = 0; c < 7; ++c) local.v[c] = 0.0;
  for (int p = threadIdx.x; p < count; p += kBlock) {
#pragma unroll
    for (int c = 0; c < 7; ++c) local.v[c] += partials[p].v[c];
  }
  const Sums7 sum = BlockReduce(temp).Reduce(local, Sums7Add());
  if (threadIdx.x == 0) {
    out->sums = sum;
    if (fixedSums)
      for (int c = 0; c < 7; ++c) fixedSums[c] = static_cast<unsigned long long>(fixed::energyToFixed(sum.v[c]));
    out->binsNeeded = *binsNeeded;
    *binsNeeded = 0;  // the overflow count starts from zero at the next binning
  }
}

/// Phase 6: one block of kGatherThreads per brick of kBrickEdge^3 cells (its 2^3 bins).
/// The block stages the potential at every point its atoms' splines reach (the brick and
/// P - 1 more points per dimension, periodically) in shared memory; then one thread per atom
/// of its bins interpolates that atom's force from there with the B-spline values and
/// derivatives of its entry (phase 1's), F = -q (K/L) grad, in a fixed order of terms.
/// Forces are written in atom order as float triples. The last to read the bin counts, it
/// leaves them zero for the next evaluation's binning. Block 0 first sums the convolution's
/// energy and virial partials (sumPartials()).
template <int P>
__global__ void __launch_bounds__(kGatherThreads) gatherKernel(GridDims g, BinLayout bins, int3 nBricks,
                                                               int* __restrict__ binCount,
                                                               const float4* __restrict__ entries,
                                                               const float* __restrict__ phi,
                                                               const BoxTerms* __restrict__ box,
                                                               ForceOut forces, GatherSlab slab,
                                                               const Sums7* __restrict__ partials, int partialCount,
                                                               int* __restrict__ binsNeeded,
                                                               EvaluationSums* __restrict__ out) {
  __shared__ GatherShared<P> sh;
  if (blockIdx.x == 0) sumPartials<kGatherThreads>(partials, partialCount, binsNeeded, out, slab.fixedSums);
  const int tid = threadIdx.x;
  int brick[3];
  brickOfIndex(nBricks, blockIdx.x, brick);
  const int o[3] = {brick[0] * kBrickEdge, brick[1] * kBrickEdge, brick[2] * kBrickEdge};
  // Whether the brick's atoms reach a plane of this GPU's slab; if not, the block only
  // clears its bin counts.
  bool reaches = false;
  for (int u = 0; u < GatherShared<P>::kSide; ++u) {
    const int x = wrapIndex(o[0] + u, g.k[0]);
    reaches = reaches || (x >= slab.first && x < slab.last);
  }
  if (!reaches) {
    if (tid < 32) brickBinStarts(bins, brick, binCount, sh.bin, sh.start);
    __syncthreads();
    if (tid < 8 && sh.bin[tid] != kNoBin) binCount[sh.bin[tid]] = 0;
    return;
  }
  PotentialStager<P> stager(g, o, phi, slab.first, slab.last);  // its first loads in flight during the bin scan
  if (tid < 32) brickBinStarts(bins, brick, binCount, sh.bin, sh.start);
  __syncthreads();
  const int atoms = sh.start[8];
  const bool first = tid < atoms;
  GatherAtom<P> a{};
  if (first) a = loadGatherAtom<P>(sh.bin, sh.start, bins, entries, tid);  // in flight during the staging
  stager.finish(sh);
  __syncthreads();
  const float3 scale = box->scale, tilt = box->scaleTilt;
  if (first) interpolateForce<P>(sh, a, scale, tilt, forces);
  for (int p = tid + kGatherThreads; p < atoms; p += kGatherThreads)
    interpolateForce<P>(sh, loadGatherAtom<P>(sh.bin, sh.start, bins, entries, p), scale, tilt, forces);
  if (tid < 8 && sh.bin[tid] != kNoBin) binCount[sh.bin[tid]] = 0;  // after every read of them
}

}  // namespace

template <int P>
void launchGather(GridDims g, BinLayout bins, int3 nBricks, int* binCount, const float4* entries, const float* phi,
                  const BoxTerms* box, ForceOut forces, GatherSlab slab, const Sums7* partials, int partialCount,
                  int* binsNeeded, EvaluationSums* out, cudaStream_t stream) {
  const int bricks = nBricks.x * nBricks.y * nBricks.z;
  gatherKernel<P><<<bricks, kGatherThreads, 0, stream>>>(g, bins, nBricks, binCount, entries, phi, box, forces, slab,
                                                         partials, partialCount, binsNeeded, out);
  FARADAY_CUDA_CHECK_LAUNCH("gatherKernel");
}

// Every supported order.
template void launchGather<4>(GridDims, BinLayout, int3, int*, const float4*, const float*, const BoxTerms*,
                              ForceOut, GatherSlab, const Sums7*, int, int*, EvaluationSums*, cudaStream_t);
template void launchGather<5>(GridDims, BinLayout, int3, int*, const float4*, const float*, const BoxTerms*,
                              ForceOut, GatherSlab, const Sums7*, int, int*, EvaluationSums*, cudaStream_t);
template void launchGather<6>(GridDims, BinLayout, int3, int*, const float4*, const float*, const BoxTerms*,
                              ForceOut, GatherSlab, const Sums7*, int, int*, EvaluationSums*, cudaStream_t);
template void launchGather<7>(GridDims, BinLayout, int3, int*, const float4*, const float*, const BoxTerms*,
                              ForceOut, GatherSlab, const Sums7*, int, int*, EvaluationSums*, cudaStream_t);
template void launchGather<8>(GridDims, BinLayout, int3, int*, const float4*, const float*, const BoxTerms*,
                              ForceOut, GatherSlab, const Sums7*, int, int*, EvaluationSums*, cudaStream_t);

}  // namespace faraday::pme::gpu
