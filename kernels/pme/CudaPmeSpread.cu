// Phases 1 and 2 of the GPU PME (CudaPme.cu has the overview): the binning, one thread per
// atom, and the spreading, one thread block per brick of grid points collecting the charges
// of the bins that reach it, without float atomics. The file reads in layers: per-atom
// evaluators -> block- and warp-level steps -> __global__ kernels -> launch functions.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/CudaCheck.h"
#include "kernels/pme/BSpline.h"
#include "kernels/pme/CudaPmeDetail.cuh"
#include "kernels/pme/PmeGridGeometry.h"

namespace faraday::pme::gpu {

namespace {

// ---- Layer 1: evaluators -------------------------------------------------------------

/// Phase 1a for one atom: first grid index per dimension and the fractional parts w, from
/// its fixed-point fractional coordinates f (PmeGridGeometry.h).
template <int P>
__device__ __forceinline__ void atomGridCoordinates(const std::uint32_t f[3], const GridDims g, int first[3],
                                                    float w[3]) {
#pragma unroll
  for (int d = 0; d < 3; ++d) pme::gridCoordinateFixed(f[d], g.k[d], P, first[d], w[d]);
}

// ---- Layer 2: block- and warp-level steps ---------------------------------------------------

// Spreading: a block of kThreads per brick of E^3 points (E = kBrickEdge). Warp w owns
// the x planes 2w and 2w + 1 (see spreadKernel).
// Staged atom records hold the brick-relative weights: q theta_x at [0, E), theta_y at
// [E, 2E), theta_z at [2E, 3E) (zero where the atom does not reach that point).
constexpr int kStageFloats = 28;  // 3 kBrickEdge weights, padded: 16-byte stores without bank conflicts
constexpr int kStageAtoms = 128;  // staged per pass (positions fit a byte)
constexpr int kMaxCombos = pme::kMaxBrickBins * pme::kMaxBrickBins * pme::kMaxBrickBins;
static_assert(kBrickEdge == 8 && kThreads == 128, "four warps of two 8 x 8 planes cover an 8^3 brick");
static_assert(kMaxCombos <= kThreads, "one thread per bin of a brick for the scan");

struct SpreadShared {
  float4 stage[kStageAtoms * kStageFloats / 4];
  unsigned char xmask[kStageAtoms];  ///< x points of the brick the staged atom reaches (0: none)
  unsigned short list[kThreads / 32][kStageAtoms];  ///< per warp: byte offsets of the staged atoms reaching its x planes
  int binList[3][pme::kMaxBrickBins];
  int binListLen[3];
  unsigned int comboBin[kThreads];
  int comboOrigin[3][kThreads];  ///< first cell of the combination's bin per dimension
  int comboCount[kThreads];
  int comboOffset[kThreads + 1];
};

/// Stages one atom (its tag and B-spline values th, q theta_x then theta_y, theta_z, from its
/// entry) of the brick's bin combination `combo` at stage position `pos`: the values spread
/// over the brick's points.
/// `oneImage`: every grid dimension is at least kBrickEdge + P - 1, so an atom reaches a
/// brick through one periodic image at most (then the weights are placed by offset;
/// otherwise each point's spline index is found modulo K).
template <int P>
__device__ __forceinline__ void stageAtom(const GridDims& g, const int o[3], SpreadShared& sh, bool oneImage, int combo,
                                          int tag, const float th[3 * P], int pos) {
  const int origin[3] = {sh.comboOrigin[0][combo], sh.comboOrigin[1][combo], sh.comboOrigin[2][combo]};
  int cell[3];
  tagCell(tag, origin, cell);
  float4* const dst4 = sh.stage + pos * (kStageFloats / 4);
  float* const dst = reinterpret_cast<float*>(dst4);
  unsigned int masks[3];
  if (oneImage) {
#pragma unroll
    for (int q = 0; q < 3 * kBrickEdge / 4; ++q) dst4[q] = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      int r = cell[d] - o[d];  // point o + r + j gets theta[j]
      if (r >= kBrickEdge) r -= g.k[d];
#pragma unroll
      for (int j = 0; j < P; ++j)
        if (unsigned(r + j) < unsigned(kBrickEdge)) dst[d * kBrickEdge + r + j] = th[d * P + j];
      const unsigned int span = (1u << P) - 1u;
      masks[d] = r >= 0 ? (span << min(r, 31)) & 0xffu : span >> min(-r, 31);
    }
  } else {
    float rec[3 * kBrickEdge];
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      unsigned int m = 0;
#pragma unroll
      for (int p = 0; p < kBrickEdge; ++p) {
        const int i = pme::brickWeightIndex(g.k[d], o[d], p, cell[d]);
        float v = 0.f;
#pragma unroll
        for (int j = 0; j < P; ++j) v = i == j ? th[d * P + j] : v;  // th[i] without a local-memory index
        rec[d * kBrickEdge + p] = v;
        m |= unsigned(i < P) << p;
      }
      masks[d] = m;
    }
#pragma unroll
    for (int q = 0; q < 3 * kBrickEdge / 4; ++q)
      dst4[q] = make_float4(rec[4 * q], rec[4 * q + 1], rec[4 * q + 2], rec[4 * q + 3]);
  }
  sh.xmask[pos] = (unsigned char)(masks[1] && masks[2] ? masks[0] : 0u);
}

/// The tag of the entry in slot `slot`.
template <int P>
__device__ __forceinline__ int entryTag(const float4* __restrict__ entries, std::size_t slot) {
  return __float_as_int(__ldg(reinterpret_cast<const float*>(entries + slot * Entry<P>::kFloat4s)));
}

/// Loads the tag and the values of the entry in slot `slot` (th: q theta_x, theta_y,
/// theta_z); returns the tag.
template <int P>
__device__ __forceinline__ int loadSpreadEntry(const float4* __restrict__ entries, std::size_t slot, float th[3 * P]) {
  const float4* const e = entries + slot * Entry<P>::kFloat4s;
  float4 raw[Entry<P>::kSpreadFloat4s];
#pragma unroll
  for (int c = 0; c < Entry<P>::kSpreadFloat4s; ++c) raw[c] = __ldg(e + c);
  float v[4 * Entry<P>::kSpreadFloat4s];
  unpackFloat4s(raw, v);
#pragma unroll
  for (int j = 0; j < 3 * P; ++j) th[j] = v[Entry<P>::kValues + j];
  return __float_as_int(v[0]);
}

/// Rank of the atom `me` among the n atoms of the bin at `base` (by atom index): the fixed
/// order of the bin's atoms, whatever slots the binning gave them.
template <int P>
__device__ __forceinline__ int rankInBin(const float4* __restrict__ entries, std::size_t base, int n, int me) {
  int rank = 0;
  for (int j = 0; j < n; ++j) rank += (entryTag<P>(entries, base + j) >> kTagBits) < me;
  return rank;
}

/// Index of the last combination k in [lo, hi) with comboOffset[k] <= e.
__device__ __forceinline__ int comboOf(const int* comboOffset, int lo, int hi, int e) {
  while (hi - lo > 1) {
    const int mid = (lo + hi) >> 1;
    if (comboOffset[mid] <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

// ---- Layer 3: kernels ----------------------------------------------------------------------

/// Phase 1: one thread per atom: fractional coordinates, cell (the first grid index), the
/// B-spline values and derivatives, and a slot in the bin of the cell, where the atom's
/// Entry goes. Atoms with q = 0 are not binned: never spread, zero force (written here).
/// The slot comes from an integer counter (its order varies between runs; the spreading
/// orders each bin by atom index). A bin fuller than its capacity leaves its extra atoms out
/// and records the count it needed in binCount[bins.total]; the host then grows the capacity
/// and evaluates again. Each warp writes its entries through shared memory, each store
/// instruction covering whole entries: the slots are scattered, and whole 32-byte sectors
/// are written at full speed where partial ones are not.
template <int P>
__global__ void __launch_bounds__(kThreads) binKernel(int n, const std::uint32_t* __restrict__ fractions,
                                                      const double* __restrict__ charges, GridDims g, BinLayout bins,
                                                      int* __restrict__ binCount, float4* __restrict__ entries,
                                                      float* __restrict__ forces, int slabFirst, int slabLast) {
  using E = Entry<P>;
  constexpr int kStride = E::kFloat4s + 1;  // odd: the threads' stores to the stage avoid bank conflicts
  constexpr std::size_t kNoSlot = ~std::size_t(0);
  __shared__ float4 stage[kThreads * kStride];
  __shared__ std::size_t slotOf[kThreads];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  std::size_t slot = kNoSlot;
  float e[4 * E::kFloat4s];
#pragma unroll
  for (int c = 0; c < 4 * E::kFloat4s; ++c) e[c] = 0.f;
  if (i < n) {
    const double q = charges[i];
    const std::uint32_t f[3] = {fractions[3 * std::size_t(i)], fractions[3 * std::size_t(i) + 1],
                                fractions[3 * std::size_t(i) + 2]};
    int first[3];
    float w[3];
    atomGridCoordinates<P>(f, g, first, w);
    const unsigned int b = pme::binIndex(bins.nb, first[0], first[1], first[2]);
    // Split over GPUs: only atoms whose stencil reaches this GPU's x planes are binned.
    bool reaches = false;
#pragma unroll
    for (int j = 0; j < P; ++j) {
      const int x = first[0] + j < g.k[0] ? first[0] + j : first[0] + j - g.k[0];
      reaches = reaches || (x >= slabFirst && x < slabLast);
    }
    // The branch tests the bin as well as the charge (b < bins.total always holds): on the
    // charge alone, the compiler issues the fraction loads after the test, one memory
    // latency later (1M: binning 0.084 -> 0.076 ms).
    if (!((q != 0.0) & (b < bins.total) & reaches)) {
      forces[3 * std::size_t(i)] = forces[3 * std::size_t(i) + 1] = forces[3 * std::size_t(i) + 2] = 0.f;
    } else {
      const int s = atomicAdd(binCount + b, 1);
      e[0] = __int_as_float((i << kTagBits) | ((first[0] & 3) << 4) | ((first[1] & 3) << 2) | (first[2] & 3));
#pragma unroll
      for (int d = 0; d < 3; ++d) {
        float th[P], dth[P];
        pme::bsplineWeights<P, float>(w[d], th, dth);
        const float scale = d == 0 ? float(q) : 1.f;
#pragma unroll
        for (int j = 0; j < P; ++j) {
          e[E::kValues + d * P + j] = scale * th[j];
          e[E::kDerivs + d * P + j] = scale * dth[j];
        }
      }
      if (s < bins.cap) slot = binSlot(bins, b, s);
      else atomicMax(binCount + bins.total, s + 1);
    }
  }
  // The warp's 32 entries go out as 32 x kFloat4s float4s, lane l storing float4s l,
  // l + 32, ... of them in order: every store instruction writes whole sectors.
  const int lane = threadIdx.x & 31, warpBase = threadIdx.x - lane;
#pragma unroll
  for (int c = 0; c < E::kFloat4s; ++c)
    stage[threadIdx.x * kStride + c] = make_float4(e[4 * c], e[4 * c + 1], e[4 * c + 2], e[4 * c + 3]);
  slotOf[threadIdx.x] = slot;
  __syncwarp();
#pragma unroll
  for (int k = lane; k < 32 * E::kFloat4s; k += 32) {
    const int r = k / E::kFloat4s, c = k - r * E::kFloat4s;
    const std::size_t at = slotOf[warpBase + r];
    if (at != kNoSlot) entries[at * E::kFloat4s + c] = stage[(warpBase + r) * kStride + c];
  }
}

/// C += A B for one 8 x 8 x 4 FP64 tile (mma.sync.m8n8k4): lane l holds A[l / 4][l % 4] in a,
/// B[l % 4][l / 4] in b and C[l / 4][2 (l % 4) + i] in c[i]. The tensor cores add in a fixed
/// order, so the result is the same on every run.
__device__ __forceinline__ void mmaF64(double c[2], double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "the spreading needs FP64 matrix instructions (compute capability 8.0 or later)"
#endif
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(c[0]), "+d"(c[1])
      : "d"(a), "d"(b));
}

/// The bins of brick `o` (its first grid point) per dimension (those of brickBins(), in its
/// order): a periodic run of runLen[d] bins from runFirst[d], or, on grids where a run would
/// meet itself (returns false), the host's table copied into sh.binList (row d * tableRows +
/// brick index along d, kBrickTableEntry ints each) with runLen[d] its lengths.
template <int P>
__device__ __forceinline__ bool brickBinRuns(const GridDims& g, const BinLayout& bins, const int o[3],
                                             const int* __restrict__ brickTable, int tableRows, SpreadShared& sh,
                                             int runFirst[3], int runLen[3]) {
  const int tid = threadIdx.x;
  bool runs = true;
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    runLen[d] = pme::brickBinRun(g.k[d], bins.nb[d], P, o[d], runFirst[d]);
    runs = runs && runLen[d] <= bins.nb[d];
  }
  if (!runs) {
    if (tid < 3 * kBrickTableEntry) {
      const int d = tid / kBrickTableEntry, k = tid - d * kBrickTableEntry;
      const int v = __ldg(brickTable + (d * tableRows + o[d] / kBrickEdge) * kBrickTableEntry + k);
      if (k == 0) sh.binListLen[d] = v;
      else sh.binList[d][k - 1] = v;
    }
    __syncthreads();
#pragma unroll
    for (int d = 0; d < 3; ++d) runLen[d] = sh.binListLen[d];
  }
  return runs;
}

/// Thread `tid` < combos takes bin combination tid (z fastest) of the brick's bins: its bin,
/// atom count (at most the capacity) and first cell per dimension into sh; then the
/// combinations' first stage positions (an exclusive scan, the total at sh.comboOffset[kThreads]).
template <class BlockScan>
__device__ __forceinline__ void brickCombos(const BinLayout& bins, const int runFirst[3], const int runLen[3],
                                            bool runs, int combos, const int* __restrict__ binCount,
                                            SpreadShared& sh, typename BlockScan::TempStorage& scanTemp) {
  const int tid = threadIdx.x;
  int count = 0;
  if (tid < combos) {
    const int i[3] = {tid / (runLen[2] * runLen[1]), (tid / runLen[2]) % runLen[1], tid % runLen[2]};
    int cb[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      const int r = runFirst[d] + i[d];
      cb[d] = runs ? (r < bins.nb[d] ? r : r - bins.nb[d]) : sh.binList[d][i[d]];
    }
    const unsigned int b =
        (unsigned(cb[0]) * unsigned(bins.nb[1]) + unsigned(cb[1])) * unsigned(bins.nb[2]) + unsigned(cb[2]);
    count = min(__ldg(binCount + b), bins.cap);
    sh.comboBin[tid] = b;
    sh.comboCount[tid] = count;
#pragma unroll
    for (int d = 0; d < 3; ++d) sh.comboOrigin[d][tid] = cb[d] * pme::kBinEdge;
  }
  int offset = 0, total = 0;
  BlockScan(scanTemp).ExclusiveSum(count, offset, total);
  sh.comboOffset[tid] = offset;  // = total for tid >= combos
  if (tid == 0) sh.comboOffset[kThreads] = total;
}

/// Stages one pass: combinations [c0, c1) whole, each bin's atoms by rank, or (`split`) the
/// ranks [rankLo, rankLo + kStageAtoms) of combination c0 alone. Returns the atoms staged.
template <int P>
__device__ __forceinline__ int stagePass(const GridDims& g, const BinLayout& bins, const int o[3], SpreadShared& sh,
                                         bool oneImage, const float4* __restrict__ entries, int c0, int c1,
                                         int base, bool split, int rankLo) {
  const int tid = threadIdx.x;
  if (!split) {
    const int len = sh.comboOffset[c1] - base;
    for (int e = base + tid; e < base + len; e += kThreads) {
      const int k = comboOf(sh.comboOffset, c0, c1, e);
      const std::size_t first = binSlot(bins, sh.comboBin[k], 0);
      const std::size_t at = first + std::size_t(e - sh.comboOffset[k]);
      float th[3 * P];
      const int tag = loadSpreadEntry<P>(entries, at, th);
      const int rank = rankInBin<P>(entries, first, sh.comboCount[k], tag >> kTagBits);
      stageAtom<P>(g, o, sh, oneImage, k, tag, th, sh.comboOffset[k] - base + rank);
    }
    return len;
  }
  const int n = sh.comboCount[c0];
  const int len = min(kStageAtoms, n - rankLo);
  const std::size_t first = binSlot(bins, sh.comboBin[c0], 0);
  for (int s = tid; s < n; s += kThreads) {
    const int tag = entryTag<P>(entries, first + s);
    const int rank = rankInBin<P>(entries, first, n, tag >> kTagBits);
    if (rank >= rankLo && rank < rankLo + kStageAtoms) {
      float th[3 * P];
      loadSpreadEntry<P>(entries, first + s, th);
      stageAtom<P>(g, o, sh, oneImage, c0, tag, th, rank - rankLo);
    }
  }
  return len;
}

/// This warp's list: the byte offsets of the `len` staged atoms that reach its x planes (and
/// the brick), in stage order; returns its length. Atoms left out have zero weight at every
/// point of the warp.
__device__ __forceinline__ int warpStageList(const SpreadShared& sh, unsigned short* myList, int len,
                                             unsigned int warpXBits, int lane) {
  int listLen = 0;
  for (int p0 = 0; p0 < len; p0 += 32) {
    const int p = p0 + lane;
    const bool hit = p < len && (sh.xmask[p] & warpXBits) != 0u;
    const unsigned int ballot = __ballot_sync(kFullMask, hit);
    if (hit) myList[listLen + __popc(ballot & ((1u << lane) - 1u))] = (unsigned short)(p * kStageFloats * 4);
    listLen += __popc(ballot);
  }
  return listLen;
}

/// The warp's two 8 x 8 (y, z) tiles += the list's atoms, four per mma.m8n8k4: tile_x = sum_a
/// (q theta_x[a, x] theta_y[a, .])^T theta_z[a, .]; lane (gr, gt) feeds atom k + gt.
__device__ __forceinline__ void accumulateStageList(const SpreadShared& sh, const unsigned short* myList, int listLen,
                                                    int warp, int gr, int gt, double acc[2][2]) {
  const char* const stageBytes = reinterpret_cast<const char*>(sh.stage);
  for (int k = 0; k < listLen; k += 4) {
    float2 wx = make_float2(0.f, 0.f);
    float wy = 0.f, wz = 0.f;
    if (k + gt < listLen) {
      const char* const rec = stageBytes + myList[k + gt];
      wx = *reinterpret_cast<const float2*>(rec + 4 * 2 * warp);
      wy = *reinterpret_cast<const float*>(rec + 4 * (kBrickEdge + gr));
      wz = *reinterpret_cast<const float*>(rec + 4 * (2 * kBrickEdge + gr));
    }
    const double b = wz;
    mmaF64(acc[0], double(wx.x * wy), b);
    mmaF64(acc[1], double(wx.y * wy), b);
  }
}

/// The warp's points of the brick at `o` into the grid, as float: x planes 2 warp + h, y = gr,
/// z = 2 gt, 2 gt + 1 (those inside the grid).
__device__ __forceinline__ void storeBrickPoints(const GridDims& g, const int o[3], int warp, int gr, int gt,
                                                 const double acc[2][2], float* __restrict__ grid) {
  const int y = o[1] + gr, z0 = o[2] + 2 * gt;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int x = o[0] + 2 * warp + h;
    if (x < g.k[0] && y < g.k[1]) {
      float* dst = grid + (std::size_t(x) * g.k[1] + y) * g.k[2] + z0;
#pragma unroll
      for (int k = 0; k < 2; ++k)
        if (z0 + k < g.k[2]) dst[k] = float(acc[h][k]);
    }
  }
}

/// Phase 2: one block per brick of kBrickEdge^3 grid points (see SpreadShared). The bins
/// that reach the brick are taken in a fixed order (x, y, z bin lists of brickBins(), z
/// fastest), the atoms of each bin by atom index: passes of up to kStageAtoms staged atoms,
/// whole bins per pass, or rank windows of one bin larger than that. Each warp adds, per
/// pass, the atoms that reach its x planes, four at a time in stage order, to double
/// accumulators, so every grid value is the same sum on every run. Every grid point is
/// written (no memset needed).
template <int P>
__global__ void __launch_bounds__(kThreads, 8) spreadKernel(GridDims g, BinLayout bins, int3 nBricks,
                                                         int firstBrick, const int* __restrict__ brickTable,
                                                         int tableRows,
                                                         const int* __restrict__ binCount,
                                                         const float4* __restrict__ entries,
                                                         float* __restrict__ grid) {
  using BlockScan = cub::BlockScan<int, kThreads>;
  __shared__ __align__(16) SpreadShared sh;
  __shared__ typename BlockScan::TempStorage scanTemp;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  int brick[3];
  brickOfIndex(nBricks, blockIdx.x + unsigned(firstBrick), brick);
  const int o[3] = {brick[0] * kBrickEdge, brick[1] * kBrickEdge, brick[2] * kBrickEdge};
  int runFirst[3], runLen[3];
  const bool runs = brickBinRuns<P>(g, bins, o, brickTable, tableRows, sh, runFirst, runLen);
  const int combos = runLen[0] * runLen[1] * runLen[2];
  brickCombos<BlockScan>(bins, runFirst, runLen, runs, combos, binCount, sh, scanTemp);
  __syncthreads();

  const bool oneImage = min(g.k[0], min(g.k[1], g.k[2])) >= kBrickEdge + P - 1;
  // Warp w sums the x planes 2w and 2w + 1 as two 8 x 8 (y, z) tiles of an FP64 matrix
  // product over the staged atoms: tile_x = sum_a (q theta_x[a, x] theta_y[a, .])^T
  // theta_z[a, .], four atoms per mma.m8n8k4; lane (g, t) = (lane / 4, lane % 4) feeds
  // atom k + t and holds the points (y = g, z = 2t, 2t + 1) of both planes.
  const int gr = lane >> 2, gt = lane & 3;
  const unsigned int warpXBits = 3u << (2 * warp);
  double acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
  int c0 = 0, rankLo = 0;
  while (c0 < combos) {
    // This pass: combinations [c0, c1) whole, or (split) ranks [rankLo, rankLo + kStageAtoms)
    // of combination c0 alone.
    const int base = sh.comboOffset[c0];
    int c1 = combos;
    if (sh.comboOffset[combos] - base > kStageAtoms) {
      c1 = c0 + 1;
      while (c1 < combos && sh.comboOffset[c1 + 1] - base <= kStageAtoms) ++c1;
    }
    const bool split = sh.comboOffset[c1] - base > kStageAtoms;
    const int len = stagePass<P>(g, bins, o, sh, oneImage, entries, c0, c1, base, split, rankLo);
    __syncthreads();
    unsigned short* const myList = sh.list[warp];
    const int listLen = warpStageList(sh, myList, len, warpXBits, lane);
    __syncwarp();
    accumulateStageList(sh, myList, listLen, warp, gr, gt, acc);
    if (split && rankLo + kStageAtoms < sh.comboCount[c0]) {
      rankLo += kStageAtoms;
    } else {
      rankLo = 0;
      c0 = c1;
    }
    if (c0 < combos) __syncthreads();  // the stage is free for the next pass
  }
  storeBrickPoints(g, o, warp, gr, gt, acc, grid);
}

}  // namespace

template <int P>
void launchBinning(int n, const std::uint32_t* fractions, const double* charges, GridDims g, BinLayout bins,
                   int* binCount, float4* entries, float* forces, int slabFirst, int slabLast, cudaStream_t stream) {
  binKernel<P><<<blocksFor(n, kThreads), kThreads, 0, stream>>>(n, fractions, charges, g, bins, binCount, entries,
                                                                forces, slabFirst, slabLast);
  FARADAY_CUDA_CHECK_LAUNCH("binKernel");
}

template <int P>
void launchSpreading(GridDims g, BinLayout bins, int3 nBricks, int firstBrick, int brickCount, const int* brickTable,
                     int tableRows, const int* binCount, const float4* entries, float* grid, cudaStream_t stream) {
  if (brickCount <= 0) return;
  spreadKernel<P><<<brickCount, kThreads, 0, stream>>>(g, bins, nBricks, firstBrick, brickTable, tableRows, binCount,
                                                       entries, grid);
  FARADAY_CUDA_CHECK_LAUNCH("spreadKernel");
}

// Every supported order.
template void launchBinning<4>(int, const std::uint32_t*, const double*, GridDims, BinLayout, int*, float4*,
                               float*, int, int, cudaStream_t);
template void launchBinning<5>(int, const std::uint32_t*, const double*, GridDims, BinLayout, int*, float4*,
                               float*, int, int, cudaStream_t);
template void launchBinning<6>(int, const std::uint32_t*, const double*, GridDims, BinLayout, int*, float4*,
                               float*, int, int, cudaStream_t);
template void launchBinning<7>(int, const std::uint32_t*, const double*, GridDims, BinLayout, int*, float4*,
                               float*, int, int, cudaStream_t);
template void launchBinning<8>(int, const std::uint32_t*, const double*, GridDims, BinLayout, int*, float4*,
                               float*, int, int, cudaStream_t);
template void launchSpreading<4>(GridDims, BinLayout, int3, int, int, const int*, int, const int*, const float4*,
                                 float*, cudaStream_t);
template void launchSpreading<5>(GridDims, BinLayout, int3, int, int, const int*, int, const int*, const float4*,
                                 float*, cudaStream_t);
template void launchSpreading<6>(GridDims, BinLayout, int3, int, int, const int*, int, const int*, const float4*,
                                 float*, cudaStream_t);
template void launchSpreading<7>(GridDims, BinLayout, int3, int, int, const int*, int, const int*, const float4*,
                                 float*, cudaStream_t);
template void launchSpreading<8>(GridDims, BinLayout, int3, int, int, const int*, int, const int*, const float4*,
                                 float*, cudaStream_t);

}  // namespace faraday::pme::gpu
