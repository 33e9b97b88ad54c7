// Smooth PME on the GPU, phase for phase like CpuPme (the double-precision oracle):
//   1 spline    one thread per atom: fractional coordinates (uploaded as fixed point,
//               expanded in double), first grid index (the atom's cell), the B-spline
//               values and derivatives, and its place in the bin of kBinEdge^3 cells that
//               holds that cell (a slot from an integer counter), where its entry goes: a
//               tag (atom index and cell), the values and the derivatives (Entry)
//   2 spread    two-phase collection without float atomics: one thread block per brick of
//               kBrickEdge^3 grid points stages the atoms of the bins that reach it, in a
//               fixed order (bins in a fixed order, atoms of a bin by atom index), with
//               their B-spline values laid over the brick; each warp then sums its
//               grid points over exactly those atoms, in that order, by FP64 matrix
//               products on the tensor cores (mma.m8n8k4, double accumulators)
//   3 fft_forward  cuFFT R2C: the (y, z) transforms of every x plane (batched 2D plans), or
//               the 3D transform where the x transforms cannot run by lines
//   4 convolve  by lines (LineFft.h): per tile of (m_y, m_z) columns, the x transform, the
//               influence function with the energy and virial terms, and the inverse x
//               transform, in shared memory; else the influence function alone. Energy and
//               virial by CUB block reductions in double (per-block partials, summed in
//               index order by the gather's first block: deterministic)
//   5 fft_inverse  cuFFT C2R, (y, z) or 3D as phase 3
//   6 gather    one thread block per brick stages the potential its atoms reach in shared
//               memory; one thread per atom interpolates its force from the staged
//               potential with the values and derivatives of its entry
// Every floating-point sum runs in a fixed order, so results are bitwise reproducible on one
// GPU. The file reads in layers: per-atom evaluators -> block- and warp-level steps ->
// __global__ kernels -> the host driver (class CudaPme).
#include <cub/cub.cuh>
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
#include "kernels/pme/LineFft.h"
#include "kernels/pme/PmeGridGeometry.h"
#include "kernels/pme/PmeHostTransfer.h"

namespace faraday {

namespace {

using pme::GridDims;

constexpr int kThreads = 128;       // per block, binning and spreading
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

/// What the convolution hands back: the seven sums, and the count of the fullest bin when
/// one overflowed its capacity (0 otherwise).
struct EvaluationSums {
  Sums7 sums;
  int binsNeeded;
};

/// The box-dependent constants of the convolution and the gather, in device memory so that
/// a captured graph stays valid when the box changes (the host rewrites them before a replay).
struct BoxTerms {
  float3 invLength;   ///< 1/L per dimension (1/nm)
  float prefactor;    ///< k_C / (pi V) (kJ/mol nm)
  float piOverBeta2;  ///< pi^2 / beta^2 (nm^2)
  float3 scale;       ///< K/L per dimension (grid units per nm)
};

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

/// Where the bins live: nb bins per dimension (total of them), cap record slots per bin.
struct BinLayout {
  int nb[3];
  unsigned int total;
  int cap;
};

/// Entry slot of bin b, slot s.
__device__ __forceinline__ std::size_t binSlot(const BinLayout& bins, unsigned int b, int s) {
  return std::size_t(b) * std::size_t(bins.cap) + std::size_t(s);
}

/// What a bin slot holds for its atom, phase 1's output, in floats: the tag (atom index << 6
/// | the atom's cell inside the bin, (x, y, z) in 2 bits each; the int's bits), the B-spline
/// values q theta_x, theta_y, theta_z (P each), then the derivatives q dtheta_x, dtheta_y,
/// dtheta_z (P each); padded to whole 32-byte sectors (128 bytes at orders 4 and 5), so
/// that the binning writes whole sectors. The spreading reads the tag and the values, the
/// gather all of it. The charge is folded into the x factors.
/// Float4s of an entry at order P (whole sectors), for the kernels and the host.
constexpr int entryFloat4s(int P) { return (1 + 6 * P + 7) / 8 * 2; }
template <int P>
struct Entry {
  static constexpr int kValues = 1;          ///< first float of the values
  static constexpr int kDerivs = 1 + 3 * P;  ///< first float of the derivatives
  static constexpr int kFloat4s = entryFloat4s(P);
  static constexpr int kSpreadFloat4s = (kDerivs + 3) / 4;  ///< the tag and the values
  static constexpr int kGatherFloat4s = (1 + 6 * P + 3) / 4;
};

/// The floats of N float4s, in order.
template <int N>
__device__ __forceinline__ void unpackFloat4s(const float4 (&in)[N], float out[4 * N]) {
#pragma unroll
  for (int c = 0; c < N; ++c) {
    out[4 * c] = in[c].x;
    out[4 * c + 1] = in[c].y;
    out[4 * c + 2] = in[c].z;
    out[4 * c + 3] = in[c].w;
  }
}
constexpr int kTagBits = 6;
static_assert(pme::kBinEdge == 4, "tags hold the cell inside a bin in 2 bits per dimension");
__device__ __forceinline__ void tagCell(int tag, const int binOrigin[3], int cell[3]) {
  cell[0] = binOrigin[0] + ((tag >> 4) & 3);
  cell[1] = binOrigin[1] + ((tag >> 2) & 3);
  cell[2] = binOrigin[2] + (tag & 3);
}

// Spreading: a block of kThreads per brick of E^3 points (E = kBrickEdge). Warp w owns
// the x planes 2w and 2w + 1 (see spreadKernel).
// Staged atom records hold the brick-relative weights: q theta_x at [0, E), theta_y at
// [E, 2E), theta_z at [2E, 3E) (zero where the atom does not reach that point).
constexpr int kBrickEdge = pme::kBrickEdge;
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

/// The brick of this block (spreading and gather: one block per brick, z fastest).
__device__ __forceinline__ void brickOfBlock(int3 nBricks, int brick[3]) {
  const int rest = int(blockIdx.x / unsigned(nBricks.z));
  brick[2] = int(blockIdx.x - unsigned(rest) * unsigned(nBricks.z));
  brick[1] = rest % nBricks.y;
  brick[0] = rest / nBricks.y;
}

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

  __device__ __forceinline__ PotentialStager(const GridDims& g, const int o[3], const float* __restrict__ phi)
      : phi_(phi), ox_(o[0]), kx_(g.k[0]), planeSize_(g.k[1] * g.k[2]) {
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
      const int plane = wrapIndex(ox_ + min(x0 + u, S - 1), kx_) * planeSize_;
#pragma unroll
      for (int m = 0; m < kYIter; ++m) v_[u][m] = __ldg(phi_ + (rowSrc_[m] + plane));
    }
  }

  const float* phi_;
  int ox_, kx_, planeSize_;
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
/// Where the gather puts its forces: float triples in atom order, or (fixed non-null) added
/// to a 64-bit fixed-point buffer of x, y, z planes of `stride` (each atom is gathered by
/// one thread once, after the other force kernels: no atomics needed).
struct ForceOut {
  float* forces;
  unsigned long long* fixed;
  std::size_t stride;
};

template <int P>
__device__ __forceinline__ void interpolateForce(const GatherShared<P>& sh, const GatherAtom<P>& a, float3 scale,
                                                 const ForceOut& out) {
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
  if (out.fixed) {
    unsigned long long* f = out.fixed + a.atom;
    f[0] += static_cast<unsigned long long>(__float2ll_rn(-scale.x * gx * 4294967296.f));
    f[out.stride] += static_cast<unsigned long long>(__float2ll_rn(-scale.y * gy * 4294967296.f));
    f[2 * out.stride] += static_cast<unsigned long long>(__float2ll_rn(-scale.z * gz * 4294967296.f));
    return;
  }
  float* f = out.forces + 3 * std::size_t(a.atom);
  f[0] = -scale.x * gx;
  f[1] = -scale.y * gy;
  f[2] = -scale.z * gz;
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
                                                      float* __restrict__ forces) {
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
    // The branch tests the bin as well as the charge (b < bins.total always holds): on the
    // charge alone, the compiler issues the fraction loads after the test, one memory
    // latency later (1M: binning 0.084 -> 0.076 ms).
    if (!((q != 0.0) & (b < bins.total))) {
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

/// Phase 2: one block per brick of kBrickEdge^3 grid points (see SpreadShared). The bins
/// that reach the brick are taken in a fixed order (x, y, z bin lists of brickBins(), z
/// fastest), the atoms of each bin by atom index: passes of up to kStageAtoms staged atoms,
/// whole bins per pass, or rank windows of one bin larger than that. Each warp adds, per
/// pass, the atoms that reach its x planes, four at a time in stage order, to double
/// accumulators, so every grid value is the same sum on every run. Every grid point is
/// written (no memset needed).
constexpr int kBrickTableEntry = 1 + pme::kMaxBrickBins;  ///< count, bins

template <int P>
__global__ void __launch_bounds__(kThreads, 8) spreadKernel(GridDims g, BinLayout bins, int3 nBricks,
                                                         const int* __restrict__ brickTable, int tableRows,
                                                         const int* __restrict__ binCount,
                                                         const float4* __restrict__ entries,
                                                         float* __restrict__ grid) {
  using BlockScan = cub::BlockScan<int, kThreads>;
  __shared__ __align__(16) SpreadShared sh;
  __shared__ typename BlockScan::TempStorage scanTemp;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  int brick[3];
  brickOfBlock(nBricks, brick);
  const int o[3] = {brick[0] * kBrickEdge, brick[1] * kBrickEdge, brick[2] * kBrickEdge};
  // The bins of this brick per dimension (those of brickBins(), in its order): a periodic
  // run of runLen[d] bins from runFirst[d], or, on grids where a run would meet itself, the
  // host's table (row d * tableRows + brick index along d, kBrickTableEntry ints each).
  int runFirst[3], runLen[3];
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
  const int combos = runLen[0] * runLen[1] * runLen[2];
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
    int len;
    if (!split) {
      len = sh.comboOffset[c1] - base;
      for (int e = base + tid; e < base + len; e += kThreads) {
        const int k = comboOf(sh.comboOffset, c0, c1, e);
        const std::size_t first = binSlot(bins, sh.comboBin[k], 0);
        const std::size_t at = first + std::size_t(e - sh.comboOffset[k]);
        float th[3 * P];
        const int tag = loadSpreadEntry<P>(entries, at, th);
        const int rank = rankInBin<P>(entries, first, sh.comboCount[k], tag >> kTagBits);
        stageAtom<P>(g, o, sh, oneImage, k, tag, th, sh.comboOffset[k] - base + rank);
      }
    } else {
      const int n = sh.comboCount[c0];
      len = min(kStageAtoms, n - rankLo);
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
    }
    __syncthreads();
    // This warp's list: the staged atoms that reach its x planes (and the brick), in stage
    // order. Atoms left out have zero weight at every point of the warp.
    unsigned short* const myList = sh.list[warp];
    int listLen = 0;
    for (int p0 = 0; p0 < len; p0 += 32) {
      const int p = p0 + lane;
      const bool hit = p < len && (sh.xmask[p] & warpXBits) != 0u;
      const unsigned int ballot = __ballot_sync(kFullMask, hit);
      if (hit) myList[listLen + __popc(ballot & ((1u << lane) - 1u))] = (unsigned short)(p * kStageFloats * 4);
      listLen += __popc(ballot);
    }
    __syncwarp();
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
    if (split && rankLo + kStageAtoms < sh.comboCount[c0]) {
      rankLo += kStageAtoms;
    } else {
      rankLo = 0;
      c0 = c1;
    }
    if (c0 < combos) __syncthreads();  // the stage is free for the next pass
  }
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

/// The end of the convolution: the block's energy and virial sums (cub::BlockReduce in
/// double) go to partials[blockIdx.x], for sumPartials(). Every thread of the block must
/// call it.
template <int kBlock>
__device__ __forceinline__ void blockPartial(const Sums7& local, Sums7* __restrict__ partials) {
  using BlockReduce = cub::BlockReduce<Sums7, kBlock>;
  __shared__ typename BlockReduce::TempStorage temp;
  const Sums7 total = BlockReduce(temp).Reduce(local, Sums7Add());
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/// The final reduction of the convolution's block partials, by one block of kBlock threads
/// (block 0 of the gather, which runs after the convolution has finished): thread t adds
/// partials t, t + kBlock, ... in index order, then one block reduction in double; the sums
/// go out with the bin overflow count, which is reset for the next binning. Every thread of
/// the block must call it.
template <int kBlock>
__device__ __forceinline__ void sumPartials(const Sums7* __restrict__ partials, int count,
                                            int* __restrict__ binsNeeded, EvaluationSums* __restrict__ out) {
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
    out->binsNeeded = *binsNeeded;
    *binsNeeded = 0;  // the overflow count starts from zero at the next binning
  }
}

/// One reciprocal-space term of the convolution at frequency (mx, my, mz) (1/nm), spectrum
/// value s: adds the energy and virial terms (see CpuPme::convolve) to part and returns the
/// factor eterm that multiplies s. fxyz = prefactor f_x f_y f_z; weight 1/2 for the m_z
/// planes stored once (0 and K_z/2), else 1.
__device__ __forceinline__ float convolutionTerm(float2 s, float mx, float my, float mz, float fxyz, float weight,
                                                 float piOverBeta2, float part[7]) {
  const float m2 = mx * mx + my * my + mz * mz;
  const float invM2 = __fdividef(1.f, m2);
  const float eterm = fxyz * invM2;
  const float en = weight * eterm * (s.x * s.x + s.y * s.y);
  const float vfac = 2.f * (1.f + piOverBeta2 * m2) * invM2;
  const float ev = en * vfac;
  part[0] += en;
  part[1] += en - ev * mx * mx;
  part[2] += en - ev * my * my;
  part[3] += en - ev * mz * mz;
  part[4] -= ev * mx * my;
  part[5] -= ev * mx * mz;
  part[6] -= ev * my * mz;
  return eterm;
}

/// Phase 4: S(m) *= eterm(m) over the half-complex grid, with the energy and virial terms
/// (see CpuPme::convolve). One warp per (m_x, m_y) line at a time, lanes along m_z. The
/// terms are formed in float (relative error ~1e-7 each); a lane sums its few terms of a line
/// (at most ceil((K_z/2 + 1)/32)) in float, then the line sums in double in a fixed order,
/// then per block with cub::BlockReduce (blockPartial()).
__global__ void __launch_bounds__(kReduceThreads) convolveKernel(GridDims g, float2* __restrict__ spectrum,
                                                                 const float* __restrict__ fx,
                                                                 const float* __restrict__ fy,
                                                                 const float* __restrict__ fz,
                                                                 const BoxTerms* __restrict__ box,
                                                                 Sums7* __restrict__ partials) {
  const int kh = g.k[2] / 2 + 1;
  const int lines = g.k[0] * g.k[1];
  const int warpsPerBlock = kReduceThreads / 32;
  const int lane = threadIdx.x & 31;
  const float3 invLength = box->invLength;
  const float prefactor = box->prefactor, piOverBeta2 = box->piOverBeta2;
  Sums7 local;
#pragma unroll
  for (int c = 0; c < 7; ++c) local.v[c] = 0.0;
  for (int line = blockIdx.x * warpsPerBlock + (threadIdx.x >> 5); line < lines; line += gridDim.x * warpsPerBlock) {
    const int ix = line / g.k[1];
    const int iy = line - ix * g.k[1];
    const float mx = float(ix <= g.k[0] / 2 ? ix : ix - g.k[0]) * invLength.x;
    const float my = float(iy <= g.k[1] / 2 ? iy : iy - g.k[1]) * invLength.y;
    const float fxy = prefactor * __ldg(fx + ix) * __ldg(fy + iy);
    float2* const row = spectrum + std::size_t(line) * kh;
    float part[7] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int iz = lane; iz < kh; iz += 32) {
      const float2 s = row[iz];
      if (line == 0 && iz == 0) {
        row[0] = make_float2(0.f, 0.f);  // m = 0: the neutralising background, done elsewhere
        continue;
      }
      const float weight = (iz == 0 || 2 * iz == g.k[2]) ? 0.5f : 1.0f;  // 1/2 of 1 or 2
      const float eterm = convolutionTerm(s, mx, my, float(iz) * invLength.z, fxy * __ldg(fz + iz), weight,
                                          piOverBeta2, part);
      row[iz] = make_float2(s.x * eterm, s.y * eterm);
    }
#pragma unroll
    for (int c = 0; c < 7; ++c) local.v[c] += double(part[c]);
  }
  blockPartial<kReduceThreads>(local, partials);
}

// ---- Phases 3-5 by lines: (y, z) transforms by cuFFT, x transforms here (LineFft.h) ----

constexpr int kLineThreads = 256;
constexpr int kLineBatch = 8;  ///< spectrum loads in flight per thread

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/// In-register DFT of length R (forward sign, w_R = exp(-2 pi i / R)); radices 7 and above
/// take their roots tw[m n / R] from the twiddle table.
template <int R>
__device__ __forceinline__ void smallDft(float2 v[R], const float2* tw, int n) {
  auto add = [](float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); };
  auto sub = [](float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); };
  auto minusI = [](float2 a) { return make_float2(a.y, -a.x); };  // -i a
  if constexpr (R == 2) {
    const float2 a = v[0], b = v[1];
    v[0] = add(a, b);
    v[1] = sub(a, b);
  } else if constexpr (R == 3) {
    constexpr float kSin60 = 0.866025403784438647f;
    const float2 t1 = add(v[1], v[2]);
    const float2 t2 = make_float2(v[0].x - 0.5f * t1.x, v[0].y - 0.5f * t1.y);
    const float2 d = minusI(make_float2(kSin60 * (v[1].x - v[2].x), kSin60 * (v[1].y - v[2].y)));
    v[0] = add(v[0], t1);
    v[1] = add(t2, d);
    v[2] = sub(t2, d);
  } else if constexpr (R == 4) {
    const float2 s02 = add(v[0], v[2]), d02 = sub(v[0], v[2]);
    const float2 s13 = add(v[1], v[3]), d13 = minusI(sub(v[1], v[3]));
    v[0] = add(s02, s13);
    v[2] = sub(s02, s13);
    v[1] = add(d02, d13);
    v[3] = sub(d02, d13);
  } else if constexpr (R == 5) {
    constexpr float c1 = 0.309016994374947424f, c2 = -0.809016994374947424f;  // cos(2 pi / 5), cos(4 pi / 5)
    constexpr float s1 = 0.951056516295153572f, s2 = 0.587785252292473129f;   // sin(2 pi / 5), sin(4 pi / 5)
    const float2 a1 = add(v[1], v[4]), b1 = sub(v[1], v[4]);
    const float2 a2 = add(v[2], v[3]), b2 = sub(v[2], v[3]);
    const float2 p1 = make_float2(v[0].x + c1 * a1.x + c2 * a2.x, v[0].y + c1 * a1.y + c2 * a2.y);
    const float2 p2 = make_float2(v[0].x + c2 * a1.x + c1 * a2.x, v[0].y + c2 * a1.y + c1 * a2.y);
    const float2 q1 = minusI(make_float2(s1 * b1.x + s2 * b2.x, s1 * b1.y + s2 * b2.y));
    const float2 q2 = minusI(make_float2(s2 * b1.x - s1 * b2.x, s2 * b1.y - s1 * b2.y));
    v[0] = add(v[0], add(a1, a2));
    v[1] = add(p1, q1);
    v[4] = sub(p1, q1);
    v[2] = add(p2, q2);
    v[3] = sub(p2, q2);
  } else {
    float2 root[R];
#pragma unroll
    for (int m = 0; m < R; ++m) root[m] = tw[m * (n / R)];
    float2 out[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
      out[q] = v[0];
#pragma unroll
      for (int r = 1; r < R; ++r) out[q] = add(out[q], cmul(v[r], root[(r * q) % R]));
    }
#pragma unroll
    for (int q = 0; q < R; ++q) v[q] = out[q];
  }
}

/// Shared-memory index of element (x, w) of a tile of 2^LogW columns: row x, so that a warp
/// touches consecutive words. Rows narrower than 16 columns share the 32 banks in groups
/// of G = 16 >> LogW rows, and a pass that writes every R-th row (R even) would hit one
/// group only: the row's low bits are XORed with the next ones (a permutation inside each
/// aligned group of G rows; tiles hold a multiple of 4 rows).
template <int LogW>
__device__ __forceinline__ int tileIndex(int x, int w) {
  if constexpr (LogW < 4) {
    constexpr int kGroupBits = 4 - LogW;
    x ^= (x >> kGroupBits) & ((1 << kGroupBits) - 1);
  }
  return (x << LogW) + w;
}

/// One Stockham pass of radix R over the 2^LogW columns of a tile: thread t takes column
/// t mod 2^LogW and butterflies j0 = t >> LogW, j0 + J, ... (J = kLineThreads >> LogW).
template <int R, int LogW>
__device__ __forceinline__ void linePass(const float2* in, float2* out, const float2* tw, int n,
                                         const pme::LinePass& pass) {
  constexpr int J = kLineThreads >> LogW;
  const int m = n / R;
  const int w = threadIdx.x & ((1 << LogW) - 1);
  for (pme::LineWalk b(threadIdx.x >> LogW, pass); b.j < m; b.next(J, pass)) {
    float2 v[R];
#pragma unroll
    for (int r = 0; r < R; ++r) v[r] = in[tileIndex<LogW>(b.j + r * m, w)];
    if (b.k != 0) {
      const int step = b.twiddleStep(pass);
#pragma unroll
      for (int r = 1; r < R; ++r) v[r] = cmul(v[r], tw[r * step]);
    }
    smallDft<R>(v, tw, n);
#pragma unroll
    for (int r = 0; r < R; ++r) out[tileIndex<LogW>(b.dst + r * pass.ns, w)] = v[r];
  }
}

/// Forward transform of every column of the tile in a (b is scratch) by the `count` passes
/// of `passes` (the kernel's pass table); returns the buffer that holds the result. Ends
/// with the block synchronised.
template <int LogW>
__device__ __forceinline__ float2* lineForward(float2* a, float2* b, const float2* tw, int n,
                                               const pme::LinePass* passes, int count) {
  for (int p = 0; p < count; ++p) {
    const pme::LinePass pass = passes[p];
    switch (pass.radix) {
      case 2: linePass<2, LogW>(a, b, tw, n, pass); break;
      case 3: linePass<3, LogW>(a, b, tw, n, pass); break;
      case 4: linePass<4, LogW>(a, b, tw, n, pass); break;
      case 5: linePass<5, LogW>(a, b, tw, n, pass); break;
      default: linePass<7, LogW>(a, b, tw, n, pass); break;
    }
    __syncthreads();
    float2* const t = a;
    a = b;
    b = t;
  }
  return a;
}

/// Phases 3b-5a: one block per tile of 2^LogW consecutive m_z columns of one m_y, all K_x
/// values of m_x, after the (y, z) forward transform: the x transform, the convolution
/// (energy and virial terms as convolveKernel), and the x inverse transform, done as
/// conj(DFT(conj(.))) by the same forward passes. Shared memory: the twiddles
/// w_n^0..w_n^(n-1), {f_x, m_x} per m_x, then two tiles of lineTileRows(n) rows. Thread t
/// always handles column t mod 2^LogW, rows t >> LogW, + J, ... outside the passes; with m_y
/// and m_z fixed, it sums E, W and the virial's m_x moments over its rows in a fixed order.
template <int LogW>
__global__ void __launch_bounds__(kLineThreads, 4) lineConvolveKernel(
    GridDims g, const __grid_constant__ pme::LinePassTable passTable, int tilesZ, float2* __restrict__ spectrum,
    const float2* __restrict__ twiddles, const float* __restrict__ fx, const float* __restrict__ fy,
    const float* __restrict__ fz, const BoxTerms* __restrict__ box, Sums7* __restrict__ partials) {
  constexpr int J = kLineThreads >> LogW;
  static_assert(J <= pme::kMaxLineStride, "LineWalk needs at most kMaxLineStride threads per column");
  extern __shared__ float2 lineShared[];
  const pme::LinePass* const passes = passTable.pass;
  const int passCount = passTable.count;
  const int n = g.k[0], ny = g.k[1], kh = g.k[2] / 2 + 1;
  float2* const tw = lineShared;
  float2* const xTerms = tw + n;  // {f_x, m_x} per m_x
  float2* const a = xTerms + n;
  float2* const b = a + (pme::lineTileRows(n) << LogW);
  const int iy = blockIdx.x / tilesZ;
  const int z0 = (blockIdx.x - iy * tilesZ) << LogW;
  const int w = threadIdx.x & ((1 << LogW) - 1), x0 = threadIdx.x >> LogW;
  const bool inside = z0 + w < kh;  // this thread's column exists (the last tile may be narrower)
  // Element offsets from spectrum in 32 bits (the grid is capped below 2^31 points): row x of
  // this thread's column at columnAt + x rowStride.
  const unsigned int rowStride = unsigned(ny) * unsigned(kh);
  const unsigned int columnAt = unsigned(iy) * unsigned(kh) + unsigned(z0 + w);
  const float3 invLength = box->invLength;
  for (int m = threadIdx.x; m < n; m += kLineThreads) {
    tw[m] = __ldg(twiddles + m);
    xTerms[m] = make_float2(__ldg(fx + m), float(m <= n / 2 ? m : m - n) * invLength.x);
  }
  // kLineBatch loads in flight per thread before their values are stored.
  for (int x = x0; x < n; x += kLineBatch * J) {
    const unsigned int at = columnAt + unsigned(x) * rowStride;
    float2 v[kLineBatch];
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u)
      v[u] = inside && x + u * J < n ? spectrum[at + unsigned(u * J) * rowStride] : make_float2(0.f, 0.f);
#pragma unroll
    for (int u = 0; u < kLineBatch; ++u)
      if (x + u * J < n) a[tileIndex<LogW>(x + u * J, w)] = v[u];
  }
  __syncthreads();
  float2* const s = lineForward<LogW>(a, b, tw, n, passes, passCount);

  // Per element, with m^2 = m_x^2 + m_y^2 + m_z^2 and eterm = k_C f_x f_y f_z / (pi V m^2):
  // E = weight eterm |S|^2 and W_ab = E (delta_ab - vfac m_a m_b), vfac = 2 (1 + pi^2 m^2 /
  // beta^2) / m^2. As m_y and m_z are the thread's constants, it sums E, ev = E vfac,
  // ev m_x and ev m_x^2 only.
  const float piOverBeta2 = box->piOverBeta2;
  const float my = float(iy <= ny / 2 ? iy : iy - ny) * invLength.y;
  const int iz = z0 + w;
  const float mz = float(iz) * invLength.z;
  const float myz2 = my * my + mz * mz;
  const float pyz = inside ? box->prefactor * __ldg(fy + iy) * __ldg(fz + iz) : 0.f;
  const float weight = (iz == 0 || 2 * iz == g.k[2]) ? 0.5f : 1.0f;  // 1/2 of the m_z planes stored once
  float sumE = 0.f, sumEv = 0.f, sumEvMx = 0.f, sumEvMx2 = 0.f;
  if (inside) {
    for (int ix = x0; ix < n; ix += J) {
      const int at = tileIndex<LogW>(ix, w);
      const float2 v = s[at];
      const float2 t = xTerms[ix];  // f_x, m_x
      const float m2 = fmaf(t.y, t.y, myz2);
      const float invM2 = m2 > 0.f ? __fdividef(1.f, m2) : 0.f;  // m = 0: the neutralising background, done elsewhere
      const float eterm = pyz * t.x * invM2;
      const float e = weight * eterm * fmaf(v.x, v.x, v.y * v.y);
      const float ev = e * (2.f * fmaf(piOverBeta2, m2, 1.f) * invM2);
      sumE += e;
      sumEv += ev;
      sumEvMx = fmaf(ev, t.y, sumEvMx);
      sumEvMx2 = fmaf(ev * t.y, t.y, sumEvMx2);
      s[at] = make_float2(v.x * eterm, -v.y * eterm);  // conjugated for the inverse
    }
  }
  __syncthreads();
  const float2* const r = lineForward<LogW>(s, s == a ? b : a, tw, n, passes, passCount);
  if (inside) {
    for (int x = x0; x < n; x += J) {
      const float2 v = r[tileIndex<LogW>(x, w)];
      spectrum[columnAt + unsigned(x) * rowStride] = make_float2(v.x, -v.y);
    }
  }
  Sums7 local;
  const double e = sumE, ev = sumEv, evMx = sumEvMx;
  local.v[0] = e;
  local.v[1] = e - double(sumEvMx2);
  local.v[2] = e - ev * double(my) * double(my);
  local.v[3] = e - ev * double(mz) * double(mz);
  local.v[4] = -evMx * double(my);
  local.v[5] = -evMx * double(mz);
  local.v[6] = -ev * double(my) * double(mz);
  blockPartial<kLineThreads>(local, partials);
}

/// The instantiation for a tile of 2^logW columns (2..5).
using LineKernel = decltype(&lineConvolveKernel<2>);
inline LineKernel lineKernelFor(int logW) {
  switch (logW) {
    case 2: return lineConvolveKernel<2>;
    case 3: return lineConvolveKernel<3>;
    case 4: return lineConvolveKernel<4>;
    default: return lineConvolveKernel<5>;
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
                                                               ForceOut forces,
                                                               const Sums7* __restrict__ partials, int partialCount,
                                                               int* __restrict__ binsNeeded,
                                                               EvaluationSums* __restrict__ out) {
  __shared__ GatherShared<P> sh;
  if (blockIdx.x == 0) sumPartials<kGatherThreads>(partials, partialCount, binsNeeded, out);
  const int tid = threadIdx.x;
  int brick[3];
  brickOfBlock(nBricks, brick);
  const int o[3] = {brick[0] * kBrickEdge, brick[1] * kBrickEdge, brick[2] * kBrickEdge};
  PotentialStager<P> stager(g, o, phi);  // its first loads in flight during the bin scan
  if (tid < 32) brickBinStarts(bins, brick, binCount, sh.bin, sh.start);
  __syncthreads();
  const int atoms = sh.start[8];
  const bool first = tid < atoms;
  GatherAtom<P> a{};
  if (first) a = loadGatherAtom<P>(sh.bin, sh.start, bins, entries, tid);  // in flight during the staging
  stager.finish(sh);
  __syncthreads();
  const float3 scale = box->scale;
  if (first) interpolateForce<P>(sh, a, scale, forces);
  for (int p = tid + kGatherThreads; p < atoms; p += kGatherThreads)
    interpolateForce<P>(sh, loadGatherAtom<P>(sh.bin, sh.start, bins, entries, p), scale, forces);
  if (tid < 8 && sh.bin[tid] != kNoBin) binCount[sh.bin[tid]] = 0;  // after every read of them
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
  /// The (y, z) transforms of every x plane: K_x batched 2D transforms, real planes of
  /// K_y K_z points, half-complex planes of K_y (K_z / 2 + 1).
  void makePlanes(const std::array<int, 3>& K, cufftType type, cudaStream_t stream) {
    int n[2] = {K[1], K[2]};
    int realEmbed[2] = {K[1], K[2]};
    int complexEmbed[2] = {K[1], K[2] / 2 + 1};
    const int realDist = K[1] * K[2], complexDist = K[1] * (K[2] / 2 + 1);
    const bool forward = type == CUFFT_R2C;
    FARADAY_CUDA_CHECK(cufftPlanMany(&plan_, 2, n, forward ? realEmbed : complexEmbed, 1,
                                     forward ? realDist : complexDist, forward ? complexEmbed : realEmbed, 1,
                                     forward ? complexDist : realDist, type, K[0]));
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
  /// 0 before the upload, 1 after it, 2 binning, 3 spreading, 4 forward FFT, 5 convolution,
  /// 6 inverse FFT, 7 gather, 8 after the download.
  std::array<cudaEvent_t, 9> events{};
  std::array<cudaEvent_t, kMaxChunks> chunkDone{};  ///< force chunk k is on the host
};

Error pmeError(int line, const std::string& what) {
  return Error(std::string(__FILE__) + ":" + std::to_string(line) + ": " + what);
}

int blocksFor(std::size_t threads, int perBlock) { return int((threads + perBlock - 1) / perBlock); }

class CudaPme final : public ReciprocalSolver, public CudaPmeOnDevice {
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
      throw pmeError(__LINE__, "PME grid too large: at most 2e9 points (32-bit bin and grid indices)");
    if (!(params_.beta > 0)) throw pmeError(__LINE__, "PME beta must be > 0");
    int device = 0;
    FARADAY_CUDA_CHECK(cudaGetDevice(&device));
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&numSms_, cudaDevAttrMultiProcessorCount, device));

    const std::size_t cells = pme::numCells(dims_);
    const std::size_t nComplex = std::size_t(dims_.k[0]) * dims_.k[1] * (dims_.k[2] / 2 + 1);
    realGrid_ = DeviceBuffer<float>("pme real grid", cells);
    complexGrid_ = DeviceBuffer<float2>("pme complex grid", nComplex);
    for (int d = 0; d < 3; ++d) {
      bins_.nb[d] = pme::binsAlong(dims_.k[d]);
      nBricks_[d] = pme::bricksAlong(dims_.k[d]);
    }
    bins_.total = unsigned(bins_.nb[0]) * unsigned(bins_.nb[1]) * unsigned(bins_.nb[2]);
    bins_.cap = 0;
    // The bins each brick needs, per dimension (brickBins()), as kernel-readable rows.
    tableRows_ = std::max({nBricks_[0], nBricks_[1], nBricks_[2]});
    std::vector<int> table(std::size_t(3) * tableRows_ * kBrickTableEntry, 0);
    for (int d = 0; d < 3; ++d)
      for (int b = 0; b < nBricks_[d]; ++b) {
        int* row = &table[(std::size_t(d) * tableRows_ + b) * kBrickTableEntry];
        row[0] = pme::brickBins(dims_.k[d], params_.order, b * pme::kBrickEdge, row + 1);
      }
    brickTable_ = DeviceBuffer<int>("pme brick bin table", table.size());
    FARADAY_CUDA_CHECK(cudaMemcpy(brickTable_.data(), table.data(), table.size() * sizeof(int), cudaMemcpyHostToDevice));
    // Bin counts, then the count of the fullest bin when one overflowed.
    binCount_ = DeviceBuffer<int>("pme bin counts", std::size_t(bins_.total) + 1);
    binEntries_ = DeviceBuffer<float4>("pme bin entries", 0);
    const int lines = dims_.k[0] * dims_.k[1];
    reduceBlocks_ = std::clamp(blocksFor(std::size_t(lines) * 32, kReduceThreads), 1, std::min(4 * numSms_, kMaxReduceBlocks));
    partials_ = DeviceBuffer<Sums7>("pme energy partials", reduceBlocks_);
    sums_ = DeviceBuffer<EvaluationSums>("pme energy sums", 1);
    boxTerms_ = DeviceBuffer<BoxTerms>("pme box terms", 1);
    hostSums_.resize(1, "pme energy sums");
    for (int d = 0; d < 3; ++d) {
      moduli_[d] = pme::bsplineModuli(dims_.k[d], params_.order);
      factors_[d] = DeviceBuffer<float>("pme influence factors", dims_.k[d]);
    }
    // Phases 3-5: by lines (2D cuFFT plans over (y, z), x transforms with the convolution in
    // lineConvolveKernel) when K_x has no prime factor above 7 and a tile fits in shared
    // memory; else 3D plans and convolveKernel.
    int maxShared = 0;
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&maxShared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes lineAttributes{};
    FARADAY_CUDA_CHECK(cudaFuncGetAttributes(&lineAttributes, lineKernelFor(5)));
    pme::LinePlan linePlan;
    if (pme::makeLinePlan(dims_.k[0], linePlan))
      lineLogW_ = pme::lineTileLog(dims_.k[0], dims_.k[1], dims_.k[2] / 2 + 1, 2 * numSms_, pme::kLineSharedBudget,
                                   std::size_t(maxShared) - lineAttributes.sharedSizeBytes);
    if (lineLogW_ >= 0) {
      lineTilesZ_ = (dims_.k[2] / 2 + 1 + (1 << lineLogW_) - 1) >> lineLogW_;
      const int blocks = dims_.k[1] * lineTilesZ_;
      if (blocks > int(partials_.size())) partials_ = DeviceBuffer<Sums7>("pme energy partials", blocks);
      std::vector<float2> tw(dims_.k[0]);
      for (int m = 0; m < dims_.k[0]; ++m) {
        const double angle = -2.0 * units::kPi * double(m) / double(dims_.k[0]);
        tw[m] = make_float2(float(std::cos(angle)), float(std::sin(angle)));
      }
      twiddles_ = DeviceBuffer<float2>("pme x-transform twiddles", tw.size());
      linePasses_.count = pme::linePasses(linePlan, kLineThreads >> lineLogW_, linePasses_.pass);
      FARADAY_CUDA_CHECK(
          cudaMemcpy(twiddles_.data(), tw.data(), tw.size() * sizeof(float2), cudaMemcpyHostToDevice));
      FARADAY_CUDA_CHECK(cudaFuncSetAttribute(lineKernelFor(lineLogW_), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              int(pme::lineSharedBytes(dims_.k[0], lineLogW_))));
      forwardPlan_.makePlanes(params_.grid, CUFFT_R2C, stream_);
      inversePlan_.makePlanes(params_.grid, CUFFT_C2R, stream_);
    } else {
      forwardPlan_.make(params_.grid, CUFFT_R2C, stream_);
      inversePlan_.make(params_.grid, CUFFT_C2R, stream_);
    }
    reserve(numAtoms);
  }

  ~CudaPme() override { cudaStreamSynchronize(stream_); }

  // ---- On device data (CudaPmeOnDevice) ----
  void enqueue(cudaStream_t stream, int n, const std::uint32_t* fractions, const double* charges,
               unsigned long long* force, std::size_t stride) override {
    if (n <= 0) return;
    if (std::size_t(n) > capacity_) throw pmeError(__LINE__, "more atoms than the GPU PME was made for");
    Io io{stream, fractions, charges, ForceOut{forceOut_.data(), force, stride}};
    std::swap(io_, io);
    try {
      dispatchPhases(n, false);
    } catch (...) {
      std::swap(io_, io);
      throw;
    }
    std::swap(io_, io);
  }
  const double* energyAndVirial() const override { return sums_.data()->sums.v; }
  const int* binsNeeded() const override { return &sums_.data()->binsNeeded; }
  int binCapacity() const override { return bins_.cap; }
  void growBins(int needed) override {
    FARADAY_CUDA_CHECK(cudaDeviceSynchronize());
    growBinsTo(needed);
  }
  void setBox(const Box& box) override {
    updateBox(box);
    FARADAY_CUDA_CHECK(cudaMemset(binCount_.data(), 0, binCount_.size() * sizeof(int)));
    countsZero_ = true;
  }

  std::string name() const override { return "cuda-pme"; }

  /// From the event before the evaluation's graph launch to the end of its last kernel (the
  /// untimed graph unless the call had timers, whose graph has an event node per phase).
  double lastEvaluationSeconds() const override { return evaluationTimed_ ? elapsedSeconds(1, 7) : -1.0; }

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
    evaluationTimed_ = false;

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
    FARADAY_CUDA_CHECK(cudaEventRecord(events_[1], stream_));  // also the evaluation's start
    // The evaluation, then down: the sums, and the forces in chunks, the host adding chunk k
    // while chunk k + 1 is on the bus. A bin that overflowed its capacity (the sums say so,
    // and they arrive before the first chunk) grows the bins and repeats the evaluation.
    for (int attempt = 0;; ++attempt) {
      launchEvaluation(n, timed);
      if (!timed) FARADAY_CUDA_CHECK(cudaEventRecord(events_[7], stream_));  // the evaluation's end
      FARADAY_CUDA_CHECK(cudaMemcpyAsync(hostSums_.data(), sums_.data(), sizeof(EvaluationSums),
                                         cudaMemcpyDeviceToHost, stream_));
      int chunks = 0;
      for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
        const std::size_t count = std::min(chunk, std::size_t(n) - b);
        FARADAY_CUDA_CHECK(cudaMemcpyAsync(hostForces_.data() + 3 * b, forceOut_.data() + 3 * b,
                                           count * 3 * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        FARADAY_CUDA_CHECK(cudaEventRecord(se_.chunkDone[chunks], stream_));
      }
      mark(8);
      FARADAY_CUDA_CHECK(cudaEventSynchronize(se_.chunkDone[0]));
      const int needed = hostSums_.data()->binsNeeded;
      if (needed > bins_.cap) {
        FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));
        countsZero_ = true;
        if (attempt > 0) throw pmeError(__LINE__, "PME bins overflowed again after growing to fit");
        growBinsTo(needed + needed / 4 + 4);
        continue;
      }
      chunks = 0;
      for (std::size_t b = 0; b < std::size_t(n); b += chunk, ++chunks) {
        FARADAY_CUDA_CHECK(cudaEventSynchronize(se_.chunkDone[chunks]));
        pme::addFloatForces(hostForces_.data() + 3 * b, &forces[b], std::min(chunk, std::size_t(n) - b));
      }
      break;
    }
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream_));
    countsZero_ = true;
    evaluationTimed_ = true;

    // Timers: the six phases from the events between them; "pme.transfer" from the copies
    // (the upload interval includes the host staging of all chunks but the first).
    if (timed) {
      static const char* const kPhase[6] = {"pme.spline",  "pme.spread",      "pme.fft_forward",
                                            "pme.convolve", "pme.fft_inverse", "pme.gather"};
      for (int p = 0; p < 6; ++p) timers->add(kPhase[p], elapsedSeconds(p + 1, p + 2));
      timers->add("pme.transfer", elapsedSeconds(0, 1) + elapsedSeconds(7, 8));
    }
    const Sums7& s = hostSums_.data()->sums;
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

  /// The evaluation (binning to forces: ~11 nodes with the FFTs) as a CUDA graph
  /// per atom count and timing mode, captured on first use and replayed: one launch, and no
  /// gaps between the kernels. Box-dependent values are read from boxTerms_.
  void launchEvaluation(int n, bool timed) {
    EvaluationGraph& graph = graphs_[timed ? 1 : 0];
    if (graph.atoms != n) {
      graph.reset();
      cudaGraph_t captured = nullptr;
      FARADAY_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
      try {
        dispatchPhases(n, timed);
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
    if (!countsZero_)
      FARADAY_CUDA_CHECK(cudaMemsetAsync(binCount_.data(), 0, binCount_.size() * sizeof(int), stream_));
    countsZero_ = false;  // until this evaluation is known to have finished
    FARADAY_CUDA_CHECK(cudaGraphLaunch(graph.exec, stream_));
  }

  void dispatchPhases(int n, bool timed) {
    switch (params_.order) {
      case 4: runPhases<4>(n, timed); break;
      case 5: runPhases<5>(n, timed); break;
      case 6: runPhases<6>(n, timed); break;
      case 7: runPhases<7>(n, timed); break;
      case 8: runPhases<8>(n, timed); break;
      default: throw pmeError(__LINE__, "PME order outside 4..8");
    }
  }

  /// Atoms per transfer chunk: whole arrays below 128k atoms, else up to kMaxChunks pieces.
  static std::size_t transferChunk(int n) {
    const std::size_t chunks = std::clamp<std::size_t>(std::size_t(n) / 131072, 1, kMaxChunks);
    return (std::size_t(n) + chunks - 1) / chunks;
  }

  /// Device and pinned buffers for n atoms (kept when large enough), and the bins.
  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    if (n >= (std::size_t(1) << (31 - kTagBits)))
      throw pmeError(__LINE__, "the GPU PME takes at most " + std::to_string((1 << (31 - kTagBits)) - 1) +
                                   " atoms, not " + std::to_string(n));
    for (auto& g : graphs_) g.reset();  // they hold the old buffers' addresses
    fractions_ = DeviceBuffer<std::uint32_t>("pme fractional coordinates", 3 * n);
    charges_ = DeviceBuffer<double>("pme charges", n);
    forceOut_ = DeviceBuffer<float>("pme forces", 3 * n);
    hostFractions_.resize(3 * n, "pme fractional coordinates");
    hostCharges_.resize(n, "pme charges");
    hostForces_.resize(3 * n, "pme forces");
    chargesCount_ = 0;
    capacity_ = n;
    growBinsTo(pme::initialBinCapacity(n, bins_.total));
  }

  /// Bin entry slots for at least `cap` atoms per bin (kept when large enough).
  void growBinsTo(int cap) {
    cap = (cap + 3) / 4 * 4;
    if (cap <= bins_.cap) return;
    for (auto& g : graphs_) g.reset();
    const std::size_t slots = std::size_t(bins_.total) * std::size_t(cap);
    // resize() frees the old slots before allocating the new ones.
    binEntries_.resize(slots * std::size_t(entryFloat4s(params_.order)));
    bins_.cap = cap;
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

  template <int P>
  void runPhases(int n, bool timed) {
    cudaStream_t stream_ = io_.stream ? io_.stream : this->stream_;
    const std::uint32_t* fractions = io_.fractions ? io_.fractions : fractions_.data();
    const double* charges = io_.charges ? io_.charges : charges_.data();
    const ForceOut out = io_.stream ? io_.out : ForceOut{forceOut_.data(), nullptr, 0};
    auto mark = [&](int i) {
      // Under capture: an event-record node of the graph.
      if (timed) FARADAY_CUDA_CHECK(cudaEventRecordWithFlags(events_[i], stream_, cudaEventRecordExternal));
    };
    // 1: cells, B-spline values and derivatives, bin entries (the counts are zero: see countsZero_).
    binKernel<P><<<blocksFor(n, kThreads), kThreads, 0, stream_>>>(n, fractions, charges, dims_, bins_,
                                                                   binCount_.data(), binEntries_.data(),
                                                                   forceOut_.data());
    FARADAY_CUDA_CHECK_LAUNCH("binKernel");
    mark(2);

    // 2: every brick gathers its charge.
    const int3 nBricks = make_int3(nBricks_[0], nBricks_[1], nBricks_[2]);
    const int bricks = nBricks.x * nBricks.y * nBricks.z;
    spreadKernel<P><<<bricks, kThreads, 0, stream_>>>(dims_, bins_, nBricks, brickTable_.data(), tableRows_,
                                                      binCount_.data(), binEntries_.data(), realGrid_.data());
    FARADAY_CUDA_CHECK_LAUNCH("spreadKernel");
    mark(3);

    // 3: forward FFT (by lines: the (y, z) transforms).
    FARADAY_CUDA_CHECK(cufftSetStream(forwardPlan_.get(), stream_));  // the caller's stream on device data
    FARADAY_CUDA_CHECK(cufftExecR2C(forwardPlan_.get(), realGrid_.data(), complexGrid_.data()));
    mark(4);

    // 4: influence function, energy and virial block partials (by lines: with the x
    // transforms both ways).
    int partialCount = reduceBlocks_;
    if (lineLogW_ >= 0) {
      partialCount = dims_.k[1] * lineTilesZ_;
      lineKernelFor(lineLogW_)<<<partialCount, kLineThreads, pme::lineSharedBytes(dims_.k[0], lineLogW_), stream_>>>(
          dims_, linePasses_, lineTilesZ_, complexGrid_.data(), twiddles_.data(),
          factors_[0].data(), factors_[1].data(), factors_[2].data(), boxTerms_.data(), partials_.data());
      FARADAY_CUDA_CHECK_LAUNCH("lineConvolveKernel");
    } else {
      convolveKernel<<<reduceBlocks_, kReduceThreads, 0, stream_>>>(dims_, complexGrid_.data(), factors_[0].data(),
                                                                    factors_[1].data(), factors_[2].data(),
                                                                    boxTerms_.data(), partials_.data());
      FARADAY_CUDA_CHECK_LAUNCH("convolveKernel");
    }
    mark(5);

    // 5: inverse FFT (by lines: the (y, z) transforms); the potential grid replaces the
    // charge grid.
    FARADAY_CUDA_CHECK(cufftSetStream(inversePlan_.get(), stream_));
    FARADAY_CUDA_CHECK(cufftExecC2R(inversePlan_.get(), complexGrid_.data(), realGrid_.data()));
    mark(6);

    // 6: forces; block 0 also sums the energy and virial partials.
    gatherKernel<P><<<bricks, kGatherThreads, 0, stream_>>>(
        dims_, bins_, nBricks, binCount_.data(), binEntries_.data(), realGrid_.data(), boxTerms_.data(),
        out, partials_.data(), partialCount, binCount_.data() + bins_.total, sums_.data());
    FARADAY_CUDA_CHECK_LAUNCH("gatherKernel");
    mark(7);
  }

  /// Where runPhases reads and writes: the caller's device data (enqueue) or, with a null
  /// stream, the solver's own buffers (compute).
  struct Io {
    cudaStream_t stream = nullptr;
    const std::uint32_t* fractions = nullptr;
    const double* charges = nullptr;
    ForceOut out{nullptr, nullptr, 0};
  };

  PmeParams params_;
  Io io_;
  StreamAndEvents se_;  // first member: destroyed last
  cudaStream_t stream_;
  const std::array<cudaEvent_t, 9>& events_;
  GridDims dims_{};
  int numSms_ = 1;
  BinLayout bins_{};
  std::array<int, 3> nBricks_{};
  int tableRows_ = 1;
  int reduceBlocks_ = 1;
  int lineLogW_ = -1;  ///< log2 of the line tile width; -1: 3D transforms and convolveKernel
  int lineTilesZ_ = 0;
  DeviceBuffer<float2> twiddles_;
  pme::LinePassTable linePasses_;
  std::size_t capacity_ = 0;
  std::size_t chargesCount_ = 0;
  bool haveBox_ = false;
  bool evaluationTimed_ = false;  ///< events 1 and 7 bracket the last evaluation
  /// The bin counts (and the overflow count) are zero: a finished evaluation leaves them so
  /// (the gather resets the counts, its first block the overflow count); a first call, or a
  /// call after an error, clears them before the graph.
  bool countsZero_ = false;
  Vec3 boxLengths_{};

  std::array<std::vector<double>, 3> moduli_;
  std::array<DeviceBuffer<float>, 3> factors_;
  DeviceBuffer<std::uint32_t> fractions_;
  DeviceBuffer<double> charges_;
  DeviceBuffer<int> binCount_, brickTable_;
  DeviceBuffer<float4> binEntries_;  ///< bins_.total x bins_.cap slots of entryFloat4s(order) float4s
  DeviceBuffer<float> forceOut_, realGrid_;
  DeviceBuffer<float2> complexGrid_;
  DeviceBuffer<Sums7> partials_;
  DeviceBuffer<EvaluationSums> sums_;
  DeviceBuffer<BoxTerms> boxTerms_;
  PinnedBuffer<std::uint32_t> hostFractions_;
  PinnedBuffer<double> hostCharges_;
  PinnedBuffer<float> hostForces_;
  PinnedBuffer<EvaluationSums> hostSums_;
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

std::unique_ptr<CudaPmeOnDevice> makeCudaPmeOnDevice(const PmeParams& params, std::size_t numAtoms) {
  return std::make_unique<CudaPme>(params, numAtoms);
}

}  // namespace faraday
