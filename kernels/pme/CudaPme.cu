// Smooth PME on the GPU, phase for phase like CpuPme (the double-precision oracle):
//   1 spline    one thread per atom: (a) fractional coordinates (uploaded as fixed point,
//               expanded in double), first grid index, cell key; (b) after the sort, in
//               sorted order: B-spline weights (float) into the spreading records
//   2 spread    two-phase collection without float atomics: (a) a stable radix sort of
//               (cell key, atom index) and the cell start offsets; (b) each warp gathers a
//               tile of grid points from exactly the atoms whose spline support covers them,
//               in a fixed order
//   3 fft_forward  cuFFT R2C
//   4 convolve  influence function, energy and virial by CUB block reductions in double
//               (per-block partials, summed in index order by the last block to finish:
//               deterministic)
//   5 fft_inverse  cuFFT C2R
//   6 gather    one thread per atom (in sorted order) recomputes its weights and
//               derivatives and interpolates its force
// Every sum runs in a fixed order, so results are bitwise reproducible on one GPU.
// The file reads in layers: per-atom evaluators -> warp-level loops -> __global__ kernels
// -> the host driver (class CudaPme).
#include <cub/cub.cuh>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/Error.h"
#include "engine/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CudaPme.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/pme/PmeHostTransfer.h"

namespace faraday {

namespace {

using pme::GridDims;

// Per-atom spreading records, in sorted order (position s of the sorted atom list), padded
// to a multiple of 4 floats for 16-byte loads: q theta_x[P], theta_y[P], theta_z[P], cz (int
// bits), q. The gather recomputes its weights and derivatives from {w, q} (cheaper than
// writing and reading them back).
template <int P>
constexpr int kSpreadStride = (3 * P + 2 + 3) / 4 * 4;
/// Gather weights: theta_x[P], theta_y[P], theta_z[P], dtheta_x[P], dtheta_y[P], dtheta_z[P].
template <int P>
constexpr int kGatherWeights = 6 * P;

constexpr int kThreads = 128;       // per block, per-atom kernels and spreading
constexpr int kReduceThreads = 256; // per block, convolution
constexpr int kMaxReduceBlocks = 1024;
constexpr unsigned kFullMask = 0xffffffffu;

/// Energy and virial partial sums: E, W_xx, W_yy, W_zz, W_xy, W_xz, W_yz (kJ/mol).
struct Sums7 {
  double v[7];
};
struct Sums7Add {
  __device__ Sums7 operator()(const Sums7& a, const Sums7& b) const {
    Sums7 r;
#pragma unroll
    for (int c = 0; c < 7; ++c) r.v[c] = a.v[c] + b.v[c];
    return r;
  }
};

/// The box-dependent constants of the convolution and the gather, in device memory so that
/// a captured graph stays valid when the box changes (the host rewrites them before a replay).
struct BoxTerms {
  float3 invLength;   ///< 1/L per dimension (1/nm)
  float prefactor;    ///< k_C / (pi V) (kJ/mol nm)
  float piOverBeta2;  ///< pi^2 / beta^2 (nm^2)
  float3 scale;       ///< K/L per dimension (grid units per nm)
};

template <int N>
__device__ __forceinline__ void storeFloats(float* __restrict__ dst, const float* src) {
  static_assert(N % 4 == 0, "16-byte stores");
  float4* d4 = reinterpret_cast<float4*>(dst);
#pragma unroll
  for (int i = 0; i < N / 4; ++i) d4[i] = make_float4(src[4 * i], src[4 * i + 1], src[4 * i + 2], src[4 * i + 3]);
}

// ---- Layer 1: evaluators -------------------------------------------------------------

/// Phase 1a for one atom: first grid index per dimension and the fractional parts w, from
/// its fixed-point fractional coordinates f (PmeGridGeometry.h).
template <int P>
__device__ __forceinline__ void atomGridCoordinates(const std::uint32_t f[3], const GridDims g, int first[3],
                                                    float w[3]) {
#pragma unroll
  for (int d = 0; d < 3; ++d) pme::gridCoordinateFixed(f[d], g.k[d], P, first[d], w[d]);
}

/// Phase 1b for one atom: its spreading record from w and q.
template <int P>
__device__ __forceinline__ void atomSpreadRecord(const float4 wq, int cz, float spread[kSpreadStride<P>]) {
  const float w[3] = {wq.x, wq.y, wq.z};
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    float th[P];
    pme::bsplineWeights<P, float>(w[d], th, nullptr);
#pragma unroll
    for (int j = 0; j < P; ++j) spread[d * P + j] = d == 0 ? wq.w * th[j] : th[j];
  }
  spread[3 * P] = __int_as_float(cz);
  spread[3 * P + 1] = wq.w;
#pragma unroll
  for (int j = 3 * P + 2; j < kSpreadStride<P>; ++j) spread[j] = 0.f;
}

/// Phase 6 for one atom: the gather weights (kGatherWeights layout) from w.
template <int P>
__device__ __forceinline__ void atomGatherWeights(const float4 wq, float rec[kGatherWeights<P>]) {
  const float w[3] = {wq.x, wq.y, wq.z};
#pragma unroll
  for (int d = 0; d < 3; ++d) pme::bsplineWeights<P, float>(w[d], rec + d * P, rec + 3 * P + d * P);
}

/// The P grid values phi[rowStart + (cz + c) mod K], c = 0..P-1, of one grid line. Without
/// wrap-around they are read as aligned 16-byte chunks of the flat grid (which is padded
/// by kGridPad floats so that the last chunk never leaves the allocation).
constexpr int kGridPad = 16;
template <int P>
__device__ __forceinline__ void loadGridRow(const float* __restrict__ phi, std::size_t rowStart, int cz, int K,
                                            float v[P]) {
  if (cz + P <= K) {
    const std::size_t index = rowStart + cz;
    const float4* chunk = reinterpret_cast<const float4*>(phi) + (index >> 2);
    const int o = int(index & 3);
    constexpr int kChunks = (P + 6) / 4;  // o + P <= P + 3 floats
    float w[4 * kChunks];
#pragma unroll
    for (int q = 0; q < kChunks; ++q) {
      float4 c = make_float4(0.f, 0.f, 0.f, 0.f);
      if (q == 0 || 4 * q < o + P) c = __ldg(chunk + q);
      w[4 * q] = c.x;
      w[4 * q + 1] = c.y;
      w[4 * q + 2] = c.z;
      w[4 * q + 3] = c.w;
    }
#pragma unroll
    for (int c = 0; c < P; ++c) v[c] = o == 0 ? w[c] : (o == 1 ? w[c + 1] : (o == 2 ? w[c + 2] : w[c + 3]));
  } else {
#pragma unroll
    for (int c = 0; c < P; ++c) v[c] = __ldg(phi + rowStart + (cz + c < K ? cz + c : cz + c - K));
  }
}

/// Phase 6 for one atom: the gradient sum_k phi(k) grad(theta_x theta_y theta_z) in grid
/// units, from the potential grid phi, in a fixed order.
template <int P>
__device__ __forceinline__ float3 atomPotentialGradient(const float* __restrict__ phi, const GridDims g, int cx, int cy,
                                                        int cz, const float rec[kGatherWeights<P>]) {
  const float* tx = rec;
  const float* ty = rec + P;
  const float* tz = rec + 2 * P;
  const float* dx = rec + 3 * P;
  const float* dy = rec + 4 * P;
  const float* dz = rec + 5 * P;
  float gx = 0.f, gy = 0.f, gz = 0.f;
#pragma unroll
  for (int i = 0; i < P; ++i) {
    const int ix = cx + i < g.k[0] ? cx + i : cx + i - g.k[0];
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int iy = cy + j < g.k[1] ? cy + j : cy + j - g.k[1];
      float v[P];
      loadGridRow<P>(phi, (std::size_t(ix) * g.k[1] + iy) * g.k[2], cz, g.k[2], v);
      float sumT = 0.f, sumD = 0.f;
#pragma unroll
      for (int c = 0; c < P; ++c) {
        sumT = fmaf(v[c], tz[c], sumT);
        sumD = fmaf(v[c], dz[c], sumD);
      }
      gx = fmaf(dx[i] * ty[j], sumT, gx);
      gy = fmaf(tx[i] * dy[j], sumT, gy);
      gz = fmaf(tx[i] * ty[j], sumD, gz);
    }
  }
  return make_float3(gx, gy, gz);
}

// ---- Layer 2: warp-level loops -------------------------------------------------------------

/// Spreading: the sorted atoms [begin, end) of this lane's window in cell column c
/// (nothing for c >= x1, the end of the warp's segment).
__device__ __forceinline__ void windowRange(const GridDims& g, const pme::SpreadWindow& win, int x1, int c,
                                            const int* __restrict__ cellStart, int& begin, int& end) {
  begin = end = 0;
  if (c < x1 && win.valid) {
    const int cx = c < 0 ? c + g.k[0] : c;
    const std::uint32_t rowKey = pme::cellKey(g, cx, win.cy, 0);
    begin = __ldg(cellStart + rowKey + win.zLo);
    end = __ldg(cellStart + rowKey + win.zHi + 1);
  }
}

/// Spreading, one warp: the sorted atoms of one cell column c are the concatenation of the
/// lanes' window ranges [begin, end) in lane order. ColumnAtoms holds that list's layout.
struct ColumnAtoms {
  int begin, count, offset;  ///< this lane's window: range start, length, place in the list
  int total;                 ///< atoms in the list (warp-uniform)
};

__device__ __forceinline__ ColumnAtoms columnAtoms(int begin, int end, int lane) {
  ColumnAtoms c;
  c.begin = begin;
  c.count = end - begin;
  int inclusive = c.count;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const int v = __shfl_up_sync(kFullMask, inclusive, o);
    if (lane >= o) inclusive += v;
  }
  c.total = __shfl_sync(kFullMask, inclusive, 31);
  c.offset = inclusive - c.count;
  return c;
}

/// Phase 2, the grid side: stages the atoms of this lane's window (list entries base ..
/// base + 31 only) into shared memory with cp.async and commits them as one group.
template <int P>
__device__ __forceinline__ void stageWindowAsync(const float* __restrict__ records, const ColumnAtoms& col,
                                                 const pme::SpreadWindow& win, int base, float* slots, int2* meta) {
  const int lo = max(col.offset, base), hi = min(col.offset + col.count, base + 32);
  for (int t = lo; t < hi; ++t) {
    const float* src = records + std::size_t(col.begin + t - col.offset) * kSpreadStride<P>;
    float* dst = slots + (t - base) * kSpreadStride<P>;
#pragma unroll
    for (int q = 0; q < kSpreadStride<P> / 4; ++q) __pipeline_memcpy_async(dst + 4 * q, src + 4 * q, 16);
    meta[t - base] = make_int2(win.yUnwrapped, win.zShift);
  }
  __pipeline_commit();
}

/// Adds staged atoms 0..count-1 (records, with their window's row and z shift in meta).
template <int P>
__device__ __forceinline__ void addStagedRecords(const float* slots, const int2* meta, int count, int gy, int gz,
                                                 bool active, float acc[P]) {
  for (int j = 0; j < count; ++j) {
    const float* slot = slots + j * kSpreadStride<P>;
    const int2 m = meta[j];
    const int relY = gy - m.x;
    const int relZ = gz - (__float_as_int(slot[3 * P]) + m.y);
    if (active && unsigned(relY) < unsigned(P) && unsigned(relZ) < unsigned(P)) {
      const float wyz = slot[P + relY] * slot[2 * P + relZ];
      float qx[P];
      if constexpr (P % 4 == 0) {
#pragma unroll
        for (int q = 0; q < P / 4; ++q) {
          const float4 v = reinterpret_cast<const float4*>(slot)[q];
          qx[4 * q] = v.x;
          qx[4 * q + 1] = v.y;
          qx[4 * q + 2] = v.z;
          qx[4 * q + 3] = v.w;
        }
      } else {
#pragma unroll
        for (int k = 0; k < P; ++k) qx[k] = slot[k];
      }
#pragma unroll
      for (int k = 0; k < P; ++k) acc[k] = fmaf(wyz, qx[k], acc[k]);
    }
  }
}

// ---- Layer 3: kernels ----------------------------------------------------------------------

/// Phase 1a: one thread per atom: cell key and {w_x, w_y, w_z, q}. Atoms with q = 0 get the
/// key numCells(g), which sorts them after every cell: never spread, zero force.
template <int P>
__global__ void __launch_bounds__(kThreads) keyKernel(int n, const std::uint32_t* __restrict__ fractions,
                                                      const double* __restrict__ charges, GridDims g,
                                                      std::uint32_t* __restrict__ keys, float4* __restrict__ wq) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double q = charges[i];
  if (q == 0.0) {
    keys[i] = pme::numCells(g);
    return;
  }
  const std::uint32_t f[3] = {fractions[3 * i], fractions[3 * i + 1], fractions[3 * i + 2]};
  int first[3];
  float w[3];
  atomGridCoordinates<P>(f, g, first, w);
  keys[i] = pme::cellKey(g, first[0], first[1], first[2]);
  wq[i] = make_float4(w[0], w[1], w[2], float(q));
}

/// cellStart[c] = first sorted position whose key is >= c, for c in [0, numCells]. Warp w
/// owns the sorted positions s0 = 32 w .. s0 + 31 and fills, with coalesced stores, the cells
/// (key[s0 - 1], key[s0 + 31]]: cell c gets s0 + the number of the warp's keys below c
/// (binary search over the keys held by the lanes). Positions >= n count as key numCells.
__global__ void __launch_bounds__(kThreads) cellStartKernel(int n, const std::uint32_t* __restrict__ sortedKeys,
                                                            std::uint32_t cells, int* __restrict__ cellStart) {
  const long long s0 = (long long)((blockIdx.x * blockDim.x + threadIdx.x) >> 5) * 32;
  const int lane = threadIdx.x & 31;
  if (s0 > n) return;  // whole warps leave together
  const long long s = s0 + lane;
  const std::uint32_t key = s < n ? min(sortedKeys[s], cells) : cells;
  const long long first = s0 == 0 ? 0 : (long long)min(sortedKeys[s0 - 1], cells) + 1;
  const long long last = (long long)__shfl_sync(kFullMask, key, 31);
  for (long long base = first; base <= last; base += 32) {
    const long long c = base + lane;
    int below = 0;  // lanes with key < c (keys ascend with the lane); c <= last keeps it <= 31
#pragma unroll
    for (int step = 16; step >= 1; step >>= 1) {
      const std::uint32_t k = __shfl_sync(kFullMask, key, below + step - 1);
      if ((long long)k < c) below += step;
    }
    if (c <= last) cellStart[c] = int(s0) + below;
  }
}

/// Copies the block's `count` records of `stride` floats from shared memory to dst (the
/// block's first record), 16 bytes per thread and consecutive threads on consecutive bytes.
__device__ __forceinline__ void writeRecordsCoalesced(const float4* stage, int count, int stride, float* dst) {
  float4* d4 = reinterpret_cast<float4*>(dst);
  for (int i = threadIdx.x; i < count * stride / 4; i += blockDim.x) d4[i] = stage[i];
}

/// Phase 1b: one thread per sorted atom: B-spline weights (float) into the spreading record
/// at its sorted position. The records go through shared memory, so that the global stores
/// are coalesced.
template <int P>
__global__ void __launch_bounds__(kThreads) splineKernel(int n, const std::uint32_t* __restrict__ sortedKeys,
                                                         const int* __restrict__ perm, GridDims g,
                                                         const float4* __restrict__ wq,
                                                         float* __restrict__ spreadRecords) {
  __shared__ float4 stage[kThreads * kSpreadStride<P> / 4];
  const int first = blockIdx.x * kThreads;
  const int s = first + int(threadIdx.x);
  float spread[kSpreadStride<P>] = {};
  if (s < n) {
    const std::uint32_t key = sortedKeys[s];
    if (key < pme::numCells(g)) atomSpreadRecord<P>(wq[perm[s]], int(key % std::uint32_t(g.k[2])), spread);
  }
  const int count = min(kThreads, n - first);
  float* const own = reinterpret_cast<float*>(stage) + threadIdx.x * kSpreadStride<P>;
  storeFloats<kSpreadStride<P>>(own, spread);
  __syncthreads();
  writeRecordsCoalesced(stage, count, kSpreadStride<P>, spreadRecords + std::size_t(first) * kSpreadStride<P>);
}

/// Phase 2, the grid side: one warp per (x segment, y tile, z tile); lane (ly, lz) owns the
/// points (x, gy0 + ly, gz0 + lz) for x in [x0, x1). The warp sweeps cell columns c = x0-P+1
/// .. x1-1; after column c, point c is complete and leaves the shift register acc, whose
/// entry k holds point c + k. The atoms of column c + 1 are copied global -> shared by
/// cp.async (lane w copies those of its window w) while column c is summed from the other
/// of two shared buffers, in list order (windows in lane order, atoms in sorted order).
/// That order is fixed, so each grid value is the same float sum on every run. Every grid
/// point is written (no memset needed).
template <int P>
__global__ void __launch_bounds__(kThreads) spreadKernel(GridDims g, int segLen, int nSeg, int nTy, int nTz,
                                                              const int* __restrict__ cellStart,
                                                              const float* __restrict__ records,
                                                              float* __restrict__ grid) {
  __shared__ float4 stage[kThreads / 32][2][32 * kSpreadStride<P> / 4];
  __shared__ int2 meta[kThreads / 32][2][32];
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (warp >= nSeg * nTy * nTz) return;  // whole warps leave together
  // Buffer b of this warp: slots(b), metas(b) (arithmetic, not an indexed pointer array,
  // which would live in local memory).
  float* const slots0 = reinterpret_cast<float*>(stage[threadIdx.x >> 5][0]);
  int2* const metas0 = meta[threadIdx.x >> 5][0];
  auto slots = [&](int b) { return slots0 + b * (32 * kSpreadStride<P>); };
  auto metas = [&](int b) { return metas0 + b * 32; };
  const int tz = warp % nTz;
  const int ty = (warp / nTz) % nTy;
  const int seg = warp / (nTz * nTy);
  const int gy0 = ty * pme::kSpreadTileY, gz0 = tz * pme::kSpreadTileZ;
  const int gy = gy0 + lane / pme::kSpreadTileZ, gz = gz0 + lane % pme::kSpreadTileZ;
  const bool active = gy < g.k[1] && gz < g.k[2];
  const int x0 = seg * segLen;
  const int x1 = min(x0 + segLen, g.k[0]);
  const pme::SpreadWindow win = pme::spreadWindow(g, P, gy0, gz0, lane);

  float acc[P];
#pragma unroll
  for (int k = 0; k < P; ++k) acc[k] = 0.f;
  int begin, end;
  windowRange(g, win, x1, x0 - P + 1, cellStart, begin, end);
  ColumnAtoms col = columnAtoms(begin, end, lane);
  stageWindowAsync<P>(records, col, win, 0, slots(0), metas(0));
  windowRange(g, win, x1, x0 - P + 2, cellStart, begin, end);
  int b = 0;
  for (int c = x0 - P + 1; c < x1; ++c) {
    const ColumnAtoms next = columnAtoms(begin, end, lane);
    __syncwarp();  // every lane is done with buffer b ^ 1 (column c - 1)
    stageWindowAsync<P>(records, next, win, 0, slots(b ^ 1), metas(b ^ 1));
    windowRange(g, win, x1, c + 2, cellStart, begin, end);
    __pipeline_wait_prior(1);  // this lane's copies of column c have landed
    __syncwarp();              // ... and every other lane's
    addStagedRecords<P>(slots(b), metas(b), min(col.total, 32), gy, gz, active, acc);
    for (int base = 32; base < col.total; base += 32) {  // columns of more than 32 atoms
      __syncwarp();
      stageWindowAsync<P>(records, col, win, base, slots(b), metas(b));
      __pipeline_wait_prior(0);
      __syncwarp();
      addStagedRecords<P>(slots(b), metas(b), min(col.total - base, 32), gy, gz, active, acc);
    }
    if (c >= x0 && active) grid[(std::size_t(c) * g.k[1] + gy) * g.k[2] + gz] = acc[0];
#pragma unroll
    for (int k = 0; k < P - 1; ++k) acc[k] = acc[k + 1];
    acc[P - 1] = 0.f;
    col = next;
    b ^= 1;
  }
  __pipeline_wait_prior(0);
}

/// Phase 4: S(m) *= eterm(m) over the half-complex grid, with the energy and virial terms
/// (see CpuPme::convolve). The terms are formed in float (relative error ~1e-7 each) and
/// summed per thread in double in a fixed order, then per block with cub::BlockReduce.
__global__ void __launch_bounds__(kReduceThreads) convolveKernel(GridDims g, int nComplex, float2* __restrict__ spectrum,
                                                                 const float* __restrict__ fx,
                                                                 const float* __restrict__ fy,
                                                                 const float* __restrict__ fz,
                                                                 const BoxTerms* __restrict__ box, Sums7* partials,
                                                                 unsigned int* __restrict__ blocksDone,
                                                                 Sums7* __restrict__ out) {
  using BlockReduce = cub::BlockReduce<Sums7, kReduceThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ bool lastBlock;
  const int kh = g.k[2] / 2 + 1;
  const float3 invLength = box->invLength;
  const float prefactor = box->prefactor, piOverBeta2 = box->piOverBeta2;
  Sums7 local;
#pragma unroll
  for (int c = 0; c < 7; ++c) local.v[c] = 0.0;
  for (int e = blockIdx.x * blockDim.x + threadIdx.x; e < nComplex; e += gridDim.x * blockDim.x) {
    const int iz = e % kh;
    const int t = e / kh;
    const int iy = t % g.k[1];
    const int ix = t / g.k[1];
    const float2 s = spectrum[e];
    if (e == 0) {
      spectrum[0] = make_float2(0.f, 0.f);  // m = 0: the neutralising background, done elsewhere
      continue;
    }
    const float mx = float(ix <= g.k[0] / 2 ? ix : ix - g.k[0]) * invLength.x;
    const float my = float(iy <= g.k[1] / 2 ? iy : iy - g.k[1]) * invLength.y;
    const float mz = float(iz) * invLength.z;
    const float m2 = mx * mx + my * my + mz * mz;
    const float invM2 = 1.f / m2;
    const float eterm = prefactor * __ldg(fx + ix) * __ldg(fy + iy) * __ldg(fz + iz) * invM2;
    const float weight = (iz == 0 || 2 * iz == g.k[2]) ? 0.5f : 1.0f;  // 1/2 of 1 or 2
    const float en = weight * eterm * (s.x * s.x + s.y * s.y);
    const float vfac = 2.f * (1.f + piOverBeta2 * m2) * invM2;
    const float ev = en * vfac;
    local.v[0] += double(en);
    local.v[1] += double(en - ev * mx * mx);
    local.v[2] += double(en - ev * my * my);
    local.v[3] += double(en - ev * mz * mz);
    local.v[4] -= double(ev * mx * my);
    local.v[5] -= double(ev * mx * mz);
    local.v[6] -= double(ev * my * mz);
    spectrum[e] = make_float2(s.x * eterm, s.y * eterm);
  }
  const Sums7 total = BlockReduce(temp).Reduce(local, Sums7Add());
  // The last block to finish sums the partials (no second launch). Which block that is
  // varies, but the sum does not: thread t adds partials t, t + blockDim, ... in index order,
  // then one block reduction. Only an integer atomic counts the finished blocks.
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence();  // the partial is visible device-wide before the count includes it
    lastBlock = atomicAdd(blocksDone, 1u) == gridDim.x - 1;
  }
  __syncthreads();  // lastBlock is set, and temp may be used again
  if (!lastBlock) return;
  __threadfence();
#pragma unroll
  for (int c = 0; c < 7; ++c) local.v[c] = 0.0;
  for (int p = threadIdx.x; p < int(gridDim.x); p += blockDim.x) {
#pragma unroll
    for (int c = 0; c < 7; ++c) local.v[c] += __ldcg(&partials[p].v[c]);  // from L2, not a stale L1
  }
  const Sums7 sum = BlockReduce(temp).Reduce(local, Sums7Add());
  if (threadIdx.x == 0) {
    *out = sum;
    *blocksDone = 0u;  // ready for the next evaluation
  }
}

/// Phase 6: one thread per sorted atom (neighbouring threads read neighbouring grid points);
/// weights recomputed from {w, q}; F = -q (K/L) grad, written in atom order as float triples.
template <int P>
__global__ void __launch_bounds__(kThreads) gatherKernel(int n, const std::uint32_t* __restrict__ sortedKeys,
                                                         const int* __restrict__ perm, GridDims g,
                                                         const float4* __restrict__ wq,
                                                         const float* __restrict__ phi,
                                                         const BoxTerms* __restrict__ box,
                                                         float* __restrict__ forces) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int a = perm[s];
  const std::uint32_t key = sortedKeys[s];
  float* f = forces + 3 * std::size_t(a);
  if (key >= pme::numCells(g)) {
    f[0] = f[1] = f[2] = 0.f;
    return;
  }
  int cx, cy, cz;
  pme::decodeCellKey(g, key, cx, cy, cz);
  const float4 wqa = __ldg(wq + a);
  float rec[kGatherWeights<P>];
  atomGatherWeights<P>(wqa, rec);
  const float q = wqa.w;
  const float3 grad = atomPotentialGradient<P>(phi, g, cx, cy, cz, rec);
  const float3 scale = box->scale;
  f[0] = -q * scale.x * grad.x;
  f[1] = -q * scale.y * grad.y;
  f[2] = -q * scale.z * grad.z;
}

// ---- Layer 4: host driver ---------------------------------------------------------------

/// Page-locked host memory, so that transfers run at full DMA speed.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  ~PinnedBuffer() {
    if (ptr_) cudaFreeHost(ptr_);
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void resize(std::size_t count, const char* name) {
    if (count == count_) return;
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
    if (count == 0) return;
    if (cudaMallocHost(reinterpret_cast<void**>(&ptr_), count * sizeof(T)) != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      throw Error(std::string("out of pinned host memory allocating '") + name + "': " +
                  std::to_string(count * sizeof(T)) + " bytes");
    }
    count_ = count;
  }
  T* data() { return ptr_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

class CufftPlan {
 public:
  CufftPlan() = default;
  ~CufftPlan() {
    if (made_) cufftDestroy(plan_);
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  void make(const std::array<int, 3>& K, cufftType type, cudaStream_t stream) {
    FARADAY_CUDA_CHECK(cufftPlan3d(&plan_, K[0], K[1], K[2], type));
    made_ = true;
    FARADAY_CUDA_CHECK(cufftSetStream(plan_, stream));
  }
  cufftHandle get() const { return plan_; }

 private:
  cufftHandle plan_ = 0;
  bool made_ = false;
};

/// An instantiated CUDA graph of the evaluation for `atoms` atoms (-1: none).
class EvaluationGraph {
 public:
  EvaluationGraph() = default;
  ~EvaluationGraph() { reset(); }
  EvaluationGraph(const EvaluationGraph&) = delete;
  EvaluationGraph& operator=(const EvaluationGraph&) = delete;
  void reset() {
    if (exec) cudaGraphExecDestroy(exec);
    exec = nullptr;
    atoms = -1;
  }
  cudaGraphExec_t exec = nullptr;
  int atoms = -1;
};

constexpr std::size_t kMaxChunks = 8;  // transfer chunks per direction

/// The solver's own stream and its phase events; destroyed after everything that uses them.
class StreamAndEvents {
 public:
  StreamAndEvents() {
    FARADAY_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (auto& e : events) FARADAY_CUDA_CHECK(cudaEventCreate(&e));
    for (auto& e : chunkDone) FARADAY_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~StreamAndEvents() {
    cudaStreamSynchronize(stream);
    for (auto& e : events)
      if (e) cudaEventDestroy(e);
    for (auto& e : chunkDone)
      if (e) cudaEventDestroy(e);
    cudaStreamDestroy(stream);
  }
  StreamAndEvents(const StreamAndEvents&) = delete;
  StreamAndEvents& operator=(const StreamAndEvents&) = delete;
  cudaStream_t stream = nullptr;
  /// 0 before the upload, 1 after it, 2 keys, 3 sort, 4 splines, 5 cell starts and spreading,
  /// 6 forward FFT, 7 convolution, 8 inverse FFT, 9 gather, 10 after the download.
  std::array<cudaEvent_t, 11> events{};
  std::array<cudaEvent_t, kMaxChunks> chunkDone{};  ///< force chunk k is on the host
};

Error pmeError(int line, const std::string& what) {
  return Error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what);
}

int blocksFor(std::size_t threads, int perBlock) { return int((threads + perBlock - 1) / perBlock); }

class CudaPme final : public ReciprocalSolver {
 public:
  CudaPme(const PmeParams& params, std::size_t numAtoms) : params_(params), stream_(se_.stream), events_(se_.events) {
    if (params_.order < pme::kMinSplineOrder || params_.order > pme::kMaxSplineOrder)
      throw pmeError(__LINE__, "PME order " + std::to_string(params_.order) + " outside 4..8");
    for (int d = 0; d < 3; ++d) {
      if (params_.grid[d] < params_.order)
        throw pmeError(__LINE__, "PME grid dimension " + std::to_string(params_.grid[d]) + " smaller than the order");
      dims_.k[d] = params_.grid[d];
    }
    if (double(params_.grid[0]) * params_.grid[1] * params_.grid[2] > 2.0e9)
      throw pmeError(__LINE__, "PME grid too large for 32-bit cell keys");
    if (!(params_.beta > 0)) throw pmeError(__LINE__, "PME beta must be > 0");
    int device = 0;
    FARADAY_CUDA_CHECK(cudaGetDevice(&device));
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&numSms_, cudaDevAttrMultiProcessorCount, device));

    const std::size_t cells = pme::numCells(dims_);
    const std::size_t nComplex = std::size_t(dims_.k[0]) * dims_.k[1] * (dims_.k[2] / 2 + 1);
    realGrid_ = DeviceBuffer<float>("pme real grid", cells + kGridPad);
    complexGrid_ = DeviceBuffer<float2>("pme complex grid", nComplex);
    cellStart_ = DeviceBuffer<int>("pme cell starts", cells + 1);
    reduceBlocks_ = std::min(blocksFor(nComplex, kReduceThreads), kMaxReduceBlocks);
    partials_ = DeviceBuffer<Sums7>("pme energy partials", reduceBlocks_);
    sums_ = DeviceBuffer<Sums7>("pme energy sums", 1);
    blocksDone_ = DeviceBuffer<unsigned int>("pme convolution block counter", 1);
    FARADAY_CUDA_CHECK(cudaMemsetAsync(blocksDone_.data(), 0, sizeof(unsigned int), stream_));
    boxTerms_ = DeviceBuffer<BoxTerms>("pme box terms", 1);
    hostSums_.resize(1, "pme energy sums");
    for (int d = 0; d < 3; ++d) {
      moduli_[d] = pme::bsplineModuli(dims_.k[d], params_.order);
      factors_[d] = DeviceBuffer<float>("pme influence factors", dims_.k[d]);
    }
    forwardPlan_.make(params_.grid, CUFFT_R2C, stream_);
    inversePlan_.make(params_.grid, CUFFT_C2R, stream_);
    chooseSpreadSegments();
    reserve(numAtoms);
  }

  ~CudaPme() override { cudaStreamSynchronize(stream_); }

  std::string name() const override { return "cuda-pme"; }

  ReciprocalResult compute(const std::vector<Vec3>& positions, const std::vector<double>& charges, const Box& box,
                           std::vector<Vec3>& forces, Timers* timers) override {
    if (!box.isValid()) throw pmeError(__LINE__, "PME needs a valid rectangular box");
    if (charges.size() != positions.size() || forces.size() != positions.size())
      throw pmeError(__LINE__, "positions, charges and forces differ in size");
    static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
    const int n = int(positions.size());
    if (n == 0) return {};
    reserve(std::size_t(n));
    updateBox(box);
    const bool timed = timers != nullptr;
    auto mark = [&](int i) {
      if (timed) FARADAY_CUDA_CHECK(cudaEventRecord(events_[i], stream_));
    };

    // Up: charges when they changed since the last call; positions always, as fixed-point
    // fractional coordinates (12 bytes per atom) in chunks, the host converting chunk k + 1
    // into pinned memory while chunk k is on the bus.
    bool chargesChanged = chargesCount_ != std::size_t(n);
    if (chargesChanged) pme::parallelCopy(hostCharges_.data(), charges.data(), n * sizeof(double));
    else chargesChanged = pme::copyIfChanged(hostCharges_.data(), charges.data(), n);
    chargesCount_ = n;
    mark(0);
    if (chargesChanged)
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(charges_.data(), hostCharges_.data(), std::size_t(n) * sizeof(double),
                                         cudaMemcpyHostToDevice, stream_));
    const std::size_t chunk = transferChunk(n);
    for (std::size_t b = 0; b < std::size_t(n); b += chunk) {
      const std::size_t count = std::min(chunk, std::size_t(n) - b);
      pme::fixedPointPositions(&positions[b], count, boxLengths_, hostFractions_.data() + 3 * b);
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(fractions_.data() + 3 * b, hostFractions_.data() + 3 * b,
                                         count * 3 * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream_));
    }
    mark(1);
    launchEvaluation(n, timed);
    // Down: the seven sums, and the forces in chunks, the host adding chunk k while chunk
    // k + 1 is on the bus.
    FARADAY_CUDA_CHECK(
        cudaMemcpyAsync(hostSums_.data(), sums_.data(), sizeof(Sums7), cudaMemcpyDeviceToHost, stream_));
    int chunks = 0;
    for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
      const std::size_t count = std::min(chunk, std::size_t(n) - b);
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(hostForces_.data() + 3 * b, forceOut_.data() + 3 * b,
                                         count * 3 * sizeof(float), cudaMemcpyDeviceToHost, stream_));
      FARADAY_CUDA_CHECK(cudaEventRecord(se_.chunkDone[chunks], stream_));
    }
    mark(10);
    chunks = 0;
    for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
      FARADAY_CUDA_CHECK(cudaEventSynchronize(se_.chunkDone[chunks]));
      pme::addFloatForces(hostForces_.data() + 3 * b, &forces[b], std::min(chunk, std::size_t(n) - b));
    }
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));

    // Timers: the six phases from the events between them; "pme.transfer" from the copies
    // (the upload interval includes the host staging of all chunks but the first).
    if (timed) {
      static const char* const kPhase[6] = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                                            "pme.convolve", "pme.fft_inverse", "pme.gather"};
      // Splines and spreading interleave (keys | sort | splines | cell starts, spreading).
      timers->add(kPhase[0], elapsedSeconds(1, 2) + elapsedSeconds(3, 4));
      timers->add(kPhase[1], elapsedSeconds(2, 3) + elapsedSeconds(4, 5));
      for (int p = 2; p < 6; ++p) timers->add(kPhase[p], elapsedSeconds(p + 3, p + 4));
      timers->add("pme.transfer", elapsedSeconds(0, 1) + elapsedSeconds(9, 10));
    }
    const Sums7& s = *hostSums_.data();
    ReciprocalResult r;
    r.energy = s.v[0];
    r.virial.m[0][0] = s.v[1];
    r.virial.m[1][1] = s.v[2];
    r.virial.m[2][2] = s.v[3];
    r.virial.m[0][1] = r.virial.m[1][0] = s.v[4];
    r.virial.m[0][2] = r.virial.m[2][0] = s.v[5];
    r.virial.m[1][2] = r.virial.m[2][1] = s.v[6];
    return r;
  }

 private:
  double elapsedSeconds(int from, int to) const {
    float ms = 0.f;
    FARADAY_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return 1e-3 * double(ms);
  }

  /// The evaluation (keys to forces: ~15 kernels with the sort and the FFTs) as a CUDA graph
  /// per atom count and timing mode, captured on first use and replayed: one launch, and no
  /// gaps between the kernels. Box-dependent values are read from boxTerms_.
  void launchEvaluation(int n, bool timed) {
    EvaluationGraph& graph = graphs_[timed ? 1 : 0];
    if (graph.atoms != n) {
      graph.reset();
      cudaGraph_t captured = nullptr;
      FARADAY_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
      try {
        switch (params_.order) {
          case 4: runPhases<4>(n, timed); break;
          case 5: runPhases<5>(n, timed); break;
          case 6: runPhases<6>(n, timed); break;
          case 7: runPhases<7>(n, timed); break;
          case 8: runPhases<8>(n, timed); break;
          default: throw pmeError(__LINE__, "PME order outside 4..8");
        }
      } catch (...) {
        cudaStreamEndCapture(stream_, &captured);
        if (captured) cudaGraphDestroy(captured);
        throw;
      }
      FARADAY_CUDA_CHECK(cudaStreamEndCapture(stream_, &captured));
      const cudaError_t made = cudaGraphInstantiate(&graph.exec, captured, 0);
      cudaGraphDestroy(captured);
      FARADAY_CUDA_CHECK(made);
      graph.atoms = n;
    }
    FARADAY_CUDA_CHECK(cudaGraphLaunch(graph.exec, stream_));
  }

  /// Atoms per transfer chunk: whole arrays below 128k atoms, else up to kMaxChunks pieces.
  static std::size_t transferChunk(int n) {
    const std::size_t chunks = std::clamp<std::size_t>(std::size_t(n) / 131072, 1, kMaxChunks);
    return (std::size_t(n) + chunks - 1) / chunks;
  }

  /// Device and pinned buffers for n atoms (kept when large enough).
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    for (auto& g : graphs_) g.reset();  // they hold the old buffers' addresses
    const int P = params_.order;
    const std::size_t spreadStride = std::size_t(3 * P + 2 + 3) / 4 * 4;  // kSpreadStride<P>
    fractions_ = DeviceBuffer<std::uint32_t>("pme fractional coordinates", 3 * n);
    charges_ = DeviceBuffer<double>("pme charges", n);
    keys_ = DeviceBuffer<std::uint32_t>("pme cell keys", n);
    sortedKeys_ = DeviceBuffer<std::uint32_t>("pme sorted cell keys", n);
    atomIndex_ = DeviceBuffer<int>("pme atom indices", n);
    perm_ = DeviceBuffer<int>("pme sorted atom indices", n);
    wq_ = DeviceBuffer<float4>("pme fractional parts and charges", n);
    spreadRecords_ = DeviceBuffer<float>("pme spreading records", n * spreadStride);
    forceOut_ = DeviceBuffer<float>("pme forces", 3 * n);
    std::vector<int> iota(n);
    for (std::size_t i = 0; i < n; ++i) iota[i] = int(i);
    FARADAY_CUDA_CHECK(
        cudaMemcpyAsync(atomIndex_.data(), iota.data(), n * sizeof(int), cudaMemcpyHostToDevice, stream_));
    std::size_t tempBytes = 0;
    FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tempBytes, keys_.data(), sortedKeys_.data(),
                                                       atomIndex_.data(), perm_.data(), int(n), 0, keyBits(),
                                                       stream_));
    sortTemp_ = DeviceBuffer<unsigned char>("pme radix sort scratch", tempBytes);
    hostFractions_.resize(3 * n, "pme fractional coordinates");
    hostCharges_.resize(n, "pme charges");
    hostForces_.resize(3 * n, "pme forces");
    chargesCount_ = 0;
    capacity_ = n;
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));  // iota must outlive its upload
  }

  /// Bits of the largest key, numCells (the q = 0 key).
  int keyBits() const {
    const std::uint64_t maxKey = pme::numCells(dims_);
    int bits = 1;
    while ((std::uint64_t(1) << bits) <= maxKey) ++bits;
    return bits;
  }

  /// Influence-function factors for the box (recomputed when the box changes).
  void updateBox(const Box& box) {
    const Vec3 L = box.lengths();
    if (haveBox_ && L == boxLengths_) return;
    for (int d = 0; d < 3; ++d) {
      const std::vector<double> fd = pme::influenceFactors(moduli_[d], L[d], params_.beta);
      const std::vector<float> f(fd.begin(), fd.end());
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(factors_[d].data(), f.data(), f.size() * sizeof(float),
                                         cudaMemcpyHostToDevice, stream_));
      FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));  // f is a local
    }
    BoxTerms t;
    t.invLength = make_float3(float(1.0 / L.x), float(1.0 / L.y), float(1.0 / L.z));
    t.prefactor = float(units::kCoulomb / (units::kPi * L.x * L.y * L.z));
    t.piOverBeta2 = float(units::kPi * units::kPi / (params_.beta * params_.beta));
    t.scale = make_float3(float(dims_.k[0] / L.x), float(dims_.k[1] / L.y), float(dims_.k[2] / L.z));
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(boxTerms_.data(), &t, sizeof(t), cudaMemcpyHostToDevice, stream_));
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));  // t is a local
    boxLengths_ = L;
    haveBox_ = true;
  }

  /// x-segment length of a spreading warp: the longest of 32, 16, 8 that still gives
  /// 32 warps per multiprocessor (the x halo costs P - 1 extra columns per segment).
  void chooseSpreadSegments() {
    nTy_ = (dims_.k[1] + pme::kSpreadTileY - 1) / pme::kSpreadTileY;
    nTz_ = (dims_.k[2] + pme::kSpreadTileZ - 1) / pme::kSpreadTileZ;
    for (int len : {32, 16, 8}) {
      segLen_ = len;
      nSeg_ = (dims_.k[0] + len - 1) / len;
      if (std::size_t(nSeg_) * nTy_ * nTz_ >= std::size_t(32) * numSms_) break;
    }
  }

  template <int P>
  void runPhases(int n, bool timed) {
    auto mark = [&](int i) {
      // Under capture: an event-record node of the graph.
      if (timed) FARADAY_CUDA_CHECK(cudaEventRecordWithFlags(events_[i], stream_, cudaEventRecordExternal));
    };
    const std::uint32_t cells = pme::numCells(dims_);

    // 1a: cell keys and fractional parts.
    keyKernel<P><<<blocksFor(n, kThreads), kThreads, 0, stream_>>>(n, fractions_.data(), charges_.data(), dims_,
                                                                   keys_.data(), wq_.data());
    FARADAY_CUDA_CHECK_LAUNCH("keyKernel");
    mark(2);

    // 2a: stable sort by cell.
    std::size_t tempBytes = sortTemp_.size();
    FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_.data(), tempBytes, keys_.data(), sortedKeys_.data(),
                                                       atomIndex_.data(), perm_.data(), n, 0, keyBits(), stream_));
    mark(3);

    // 1b: B-splines in sorted order (before the cell starts, which would push wq out of L2).
    splineKernel<P><<<blocksFor(n, kThreads), kThreads, 0, stream_>>>(
        n, sortedKeys_.data(), perm_.data(), dims_, wq_.data(), spreadRecords_.data());
    FARADAY_CUDA_CHECK_LAUNCH("splineKernel");
    mark(4);

    // 2b: cell starts, then every grid point gathers its charge.
    cellStartKernel<<<blocksFor((std::size_t(n) / 32 + 1) * 32, kThreads), kThreads, 0, stream_>>>(
        n, sortedKeys_.data(), cells, cellStart_.data());
    FARADAY_CUDA_CHECK_LAUNCH("cellStartKernel");
    const std::size_t warps = std::size_t(nSeg_) * nTy_ * nTz_;
    spreadKernel<P><<<blocksFor(warps * 32, kThreads), kThreads, 0, stream_>>>(
        dims_, segLen_, nSeg_, nTy_, nTz_, cellStart_.data(), spreadRecords_.data(), realGrid_.data());
    FARADAY_CUDA_CHECK_LAUNCH("spreadKernel");
    mark(5);

    // 3: forward FFT.
    FARADAY_CUDA_CHECK(cufftExecR2C(forwardPlan_.get(), realGrid_.data(), complexGrid_.data()));
    mark(6);

    // 4: influence function, energy, virial.
    const int nComplex = int(complexGrid_.size());
    convolveKernel<<<reduceBlocks_, kReduceThreads, 0, stream_>>>(
        dims_, nComplex, complexGrid_.data(), factors_[0].data(), factors_[1].data(), factors_[2].data(),
        boxTerms_.data(),
        partials_.data(), blocksDone_.data(), sums_.data());
    FARADAY_CUDA_CHECK_LAUNCH("convolveKernel");
    mark(7);

    // 5: inverse FFT (the potential grid replaces the charge grid).
    FARADAY_CUDA_CHECK(cufftExecC2R(inversePlan_.get(), complexGrid_.data(), realGrid_.data()));
    mark(8);

    // 6: forces.
    gatherKernel<P><<<blocksFor(n, kThreads), kThreads, 0, stream_>>>(
        n, sortedKeys_.data(), perm_.data(), dims_, wq_.data(), realGrid_.data(), boxTerms_.data(), forceOut_.data());
    FARADAY_CUDA_CHECK_LAUNCH("gatherKernel");
    mark(9);
  }

  PmeParams params_;
  StreamAndEvents se_;  // first member: destroyed last
  cudaStream_t stream_;
  const std::array<cudaEvent_t, 11>& events_;
  GridDims dims_{};
  int numSms_ = 1;
  int segLen_ = 32, nSeg_ = 1, nTy_ = 1, nTz_ = 1;
  int reduceBlocks_ = 1;
  std::size_t capacity_ = 0;
  std::size_t chargesCount_ = 0;
  bool haveBox_ = false;
  Vec3 boxLengths_{};

  std::array<std::vector<double>, 3> moduli_;
  std::array<DeviceBuffer<float>, 3> factors_;
  DeviceBuffer<std::uint32_t> fractions_;
  DeviceBuffer<double> charges_;
  DeviceBuffer<std::uint32_t> keys_, sortedKeys_;
  DeviceBuffer<int> atomIndex_, perm_, cellStart_;
  DeviceBuffer<float4> wq_;
  DeviceBuffer<float> spreadRecords_, forceOut_, realGrid_;
  DeviceBuffer<float2> complexGrid_;
  DeviceBuffer<unsigned char> sortTemp_;
  DeviceBuffer<Sums7> partials_, sums_;
  DeviceBuffer<unsigned int> blocksDone_;
  DeviceBuffer<BoxTerms> boxTerms_;
  PinnedBuffer<std::uint32_t> hostFractions_;
  PinnedBuffer<double> hostCharges_;
  PinnedBuffer<float> hostForces_;
  PinnedBuffer<Sums7> hostSums_;
  CufftPlan forwardPlan_, inversePlan_;
  std::array<EvaluationGraph, 2> graphs_;  ///< untimed, timed
};

// Explicit instantiation of every supported order (each instantiates its kernels).
template void CudaPme::runPhases<4>(int, bool);
template void CudaPme::runPhases<5>(int, bool);
template void CudaPme::runPhases<6>(int, bool);
template void CudaPme::runPhases<7>(int, bool);
template void CudaPme::runPhases<8>(int, bool);

}  // namespace

std::unique_ptr<ReciprocalSolver> makeCudaPme(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<CudaPme>(params, numAtoms);
}

}  // namespace faraday
