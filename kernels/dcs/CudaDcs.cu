// CUDA kernels for potential maps by direct Coulomb summation (SEEDS.md 000/001).
// Layers: per-pair terms (DcsPair.h) -> per-kernel loops -> __global__ -> host drivers.
// Coordinates on the device are relative to the lattice origin (subtracted in double on
// the host), so lattice point (i, j, k) is at (i hx, j hy, k hz) in float.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "engine/Error.h"
#include "engine/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaOwners.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcs.h"
#include "kernels/dcs/CudaDcsDetail.cuh"
#include "kernels/dcs/DcsPair.h"

namespace faraday {
using namespace dcs::detail;

const char* dcsKernelName(DcsKernel k) {
  switch (k) {
    case DcsKernel::Scatter: return "scatter (atomics)";
    case DcsKernel::Gather: return "gather";
    case DcsKernel::Coarsened: return "gather coarsened x8";
    case DcsKernel::Coalesced: return "gather coarsened+coalesced";
    case DcsKernel::CutoffBinned: return "cutoff binned";
  }
  return "?";
}
const char* dcsAccumulationName(DcsAccumulation a) {
  switch (a) {
    case DcsAccumulation::Float: return "float";
    case DcsAccumulation::Kahan: return "kahan";
    case DcsAccumulation::BlockedDouble: return "blocked-double";
  }
  return "?";
}
DcsKernel productionKernel(MapMethod method) {
  return method == MapMethod::Cutoff ? DcsKernel::CutoffBinned : DcsKernel::Coalesced;
}

namespace {

// ---- constant memory ------------------------------------------------------------
/// Atoms {x, y, z, q} of one chunk: 4096 x 16 bytes = the whole 64 KB bank (this
/// translation unit has no other __constant__ data).
constexpr int kChunkAtoms = 4096;
/// Atoms are padded to a multiple of this with zero charges (the blocked accumulation folds
/// every kFold <= kAtomBlock atoms, kFold dividing kAtomBlock; inner loops get a fixed trip
/// count). kChunkAtoms is a multiple, so every chunk is too.
constexpr int kAtomBlock = 128;
static_assert(kChunkAtoms % kAtomBlock == 0, "chunks must hold whole atom blocks");
__constant__ float4 c_atoms[kChunkAtoms];


// ---- accumulators ----------------------------------------------------------------
template <DcsAccumulation A>
struct Accumulator;
template <>
struct Accumulator<DcsAccumulation::Float> {
  float s = 0.f;
  __device__ void add(float t) { s += t; }
  __device__ void endBlock() {}
  __device__ double total() const { return double(s); }
};
template <>
struct Accumulator<DcsAccumulation::Kahan> {
  float s = 0.f, c = 0.f;  // c: the low-order part lost so far (Kahan 1965)
  __device__ void add(float t) {
    const float y = t - c;
    const float u = s + y;
    c = (u - s) - y;
    s = u;
  }
  __device__ void endBlock() {}
  __device__ double total() const { return double(s) - double(c); }
};
template <>
struct Accumulator<DcsAccumulation::BlockedDouble> {
  float s = 0.f;  // at most kFold terms: rounding error ~ sqrt(kFold) ulp of the block sum
  double d = 0.0;
  __device__ void add(float t) { s += t; }
  __device__ void endBlock() {
    d += double(s);
    s = 0.f;
  }
  __device__ double total() const { return d + double(s); }
};

struct PeriodicBox {
  float L[3];     // nm
  float invL[3];  // 1/nm
};

template <bool kPeriodic>
__device__ inline float minimumImage(float d, float L, float invL) {
  if (kPeriodic) d -= L * rintf(d * invL);
  return d;
}

// ---- (b, c, d) gather: thread per lattice point(s), atoms from constant memory -------
/// kCoarsen points per thread along x; kCoalesced puts them blockDim.x apart (a warp
/// writes 32 consecutive doubles per point index), else adjacent. Per atom and thread:
/// 1 constant read (broadcast), dy, dz, dy^2+dz^2 once, then per point 1 sub, 1 fma,
/// 1 rsqrt, 1 mul-add (plus 2 ops for the minimum image when periodic).
template <int kCoarsen, bool kCoalesced, bool kPeriodic, DcsAccumulation A, int kMinBlocks = 1, bool kPerPairTest = false,
          int kFold = 32>
__global__ void __launch_bounds__(128, kMinBlocks) gatherKernel(LatticeDims g, PeriodicBox box, int nAtoms, double* map) {
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  const int i0 = kCoalesced ? blockIdx.x * blockDim.x * kCoarsen + threadIdx.x
                            : (blockIdx.x * blockDim.x + threadIdx.x) * kCoarsen;
  const int step = kCoalesced ? blockDim.x : 1;
  const float y = j * g.hy, z = k * g.hz;
  float x[kCoarsen];
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) x[c] = (i0 + c * step) * g.hx;
  Accumulator<A> acc[kCoarsen];
  for (int a0 = 0; a0 < nAtoms; a0 += kFold) {
#pragma unroll 4
    for (int a = a0; a < a0 + kFold; ++a) {
      const float4 atom = c_atoms[a];
      const float dy = minimumImage<kPeriodic>(y - atom.y, box.L[1], box.invL[1]);
      const float dz = minimumImage<kPeriodic>(z - atom.z, box.L[2], box.invL[2]);
      const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
      for (int c = 0; c < kCoarsen; ++c) {
        const float dx = minimumImage<kPeriodic>(x[c] - atom.x, box.L[0], box.invL[0]);
        const float r2 = fmaf(dx, dx, dyz2);
        // kPerPairTest: the near-atom test of directTerm on every pair (compare + select).
        // Without it the chunk must hold only atoms farther than kMinDistance from every
        // lattice row (splitNearRowAtoms), so r >= kMinDistance holds for every pair.
        if (kPerPairTest)
          acc[c].add(dcs::directTerm(atom.w, r2, dcs::fastRsqrt(r2)));
        else
          acc[c].add(atom.w * dcs::fastRsqrt(r2));
      }
    }
#pragma unroll
    for (int c = 0; c < kCoarsen; ++c) acc[c].endBlock();
  }
  if (j >= g.ny) return;
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) {
    const int i = i0 + c * step;
    if (i < g.nx) map[(std::size_t(k) * g.ny + j) * g.nx + i] += units::kCoulomb * acc[c].total();
  }
}

// ---- (d') production direct: coalesced tiles, the last partial wave split over atoms ----
/// Same tile as gatherKernel's coalesced form (a block of 32 x 4 threads covers 4 rows of
/// 32 kCoarsen points, a thread's points 32 apart), on a 1-D grid of tiles. A launch holds
/// T tiles; with R blocks resident on the GPU, the last T mod R tiles would run as a mostly
/// empty wave of lone blocks (512x256x32 lattice: 4096 tiles over 1320 resident blocks
/// leave 136 tiles, ~1 block per SM, at the end of every launch). Those tail tiles are
/// instead split into `parts` blocks each summing a contiguous range of the atoms into
/// `scratch` (one slot per part and point); tailFoldKernel then adds the parts, in part
/// order, to the map. Every launch shape is a fixed function of the lattice, the atom count
/// and the device, so the map is bitwise repeatable.
/// Per atom and warp: 2 constant loads (LDC.64; the production shapes were chosen where the
/// compiler emits these: the same loop with ULDC.64 into uniform registers ran 3x slower,
/// NOTES.md), dy, dz, dy^2 + dz^2 (4 FP32 instructions); per point: dx (FADD), r^2 (FFMA),
/// MUFU.RSQ, the charge-weighted add (FFMA); per kFold atoms and point: F2F.F64.F32 + DADD.
struct TileGrid {
  int tilesX, tilesY;  // tiles per row and per slice
  int fullTiles;       // tiles computed whole (block b < fullTiles is tile b)
  int log2Parts;       // blocks per tail tile: parts = 1 << log2Parts (1: no split)
  int atomsPerPart;    // a multiple of kFold
};

template <int kCoarsen, bool kPeriodic, DcsAccumulation A, int kMinBlocks, int kFold, int kUnroll>
__global__ void __launch_bounds__(128, kMinBlocks)
    tileKernel(LatticeDims g, PeriodicBox box, int nAtoms, TileGrid t, double* map, double* scratch) {
  // Shifts and masks only (no integer division): the atom range stays in uniform
  // registers, so the atoms are read with uniform constant loads (ULDC).
  int tile = blockIdx.x, part = -1, aBegin = 0, aEnd = nAtoms;
  if (tile >= t.fullTiles) {
    const int e = tile - t.fullTiles;
    tile = t.fullTiles + (e >> t.log2Parts);
    part = e & ((1 << t.log2Parts) - 1);
    aBegin = min(nAtoms, part * t.atomsPerPart);
    aEnd = min(nAtoms, aBegin + t.atomsPerPart);
  }
  const int tx = tile % t.tilesX, ty = (tile / t.tilesX) % t.tilesY, k = tile / (t.tilesX * t.tilesY);
  const int j = ty * blockDim.y + threadIdx.y;
  const int i0 = tx * 32 * kCoarsen + threadIdx.x;
  // Point coordinates rounded once here (__fmul_rn: not contracted into the loop's
  // subtractions), so the loop needs no spacing: dx, dy, dz are single FADDs.
  const float y = __fmul_rn(float(j), g.hy), z = __fmul_rn(float(k), g.hz);
  float x[kCoarsen];
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) x[c] = __fmul_rn(float(i0 + 32 * c), g.hx);
  Accumulator<A> acc[kCoarsen];
  for (int a0 = aBegin; a0 < aEnd; a0 += kFold) {
#pragma unroll kUnroll
    for (int a = a0; a < a0 + kFold; ++a) {
      const float4 atom = c_atoms[a];
      const float dy = minimumImage<kPeriodic>(y - atom.y, box.L[1], box.invL[1]);
      const float dz = minimumImage<kPeriodic>(z - atom.z, box.L[2], box.invL[2]);
      const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
      for (int c = 0; c < kCoarsen; ++c) {
        const float dx = minimumImage<kPeriodic>(x[c] - atom.x, box.L[0], box.invL[0]);
        // The chunk holds only atoms farther than kMinDistance from every lattice row
        // (splitNearRowAtoms): r >= kMinDistance for every pair, no test needed.
        acc[c].add(atom.w * dcs::fastRsqrt(fmaf(dx, dx, dyz2)));
      }
    }
#pragma unroll
    for (int c = 0; c < kCoarsen; ++c) acc[c].endBlock();
  }
  if (part >= 0) {
    // Slot of (part, tail tile, thread, c): written for every thread, read by tailFoldKernel.
    const int tailTiles = gridDim.x - t.fullTiles;  // = parts x tail tiles
    const std::size_t slot0 =
        (std::size_t(part) * (tailTiles >> t.log2Parts) + (tile - t.fullTiles)) * (128 * kCoarsen) +
        (threadIdx.y * 32 + threadIdx.x) * kCoarsen;
#pragma unroll
    for (int c = 0; c < kCoarsen; ++c) scratch[slot0 + c] = acc[c].total();
    return;
  }
  if (j >= g.ny) return;
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) {
    const int i = i0 + 32 * c;
    if (i < g.nx) map[(std::size_t(k) * g.ny + j) * g.nx + i] += units::kCoulomb * acc[c].total();
  }
}

/// Adds the split tail tiles' parts to the map, part 0 first (one thread per point slot).
template <int kCoarsen>
__global__ void tailFoldKernel(LatticeDims g, TileGrid t, int tailTiles, const double* scratch, double* map) {
  const std::size_t perPart = std::size_t(tailTiles) * 128 * kCoarsen;
  const std::size_t s = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= perPart) return;
  const int c = int(s % kCoarsen);
  const int thread = int((s / kCoarsen) % 128);
  const int tile = t.fullTiles + int(s / (std::size_t(128) * kCoarsen));
  const int tx = tile % t.tilesX, ty = (tile / t.tilesX) % t.tilesY, k = tile / (t.tilesX * t.tilesY);
  const int j = ty * 4 + thread / 32;
  const int i = tx * 32 * kCoarsen + thread % 32 + 32 * c;
  if (j >= g.ny || i >= g.nx) return;
  double sum = 0.0;
  for (int p = 0; p < (1 << t.log2Parts); ++p) sum += scratch[p * perPart + s];
  map[(std::size_t(k) * g.ny + j) * g.nx + i] += units::kCoulomb * sum;
}

// ---- (a) scatter: thread per atom, float atomics (benchmark only) -----------------
/// Each thread walks every lattice point, starting its rows at its own offset so that a
/// warp's 32 atomics hit 32 different addresses. Order of the additions is not fixed.
__global__ void scatterKernel(LatticeDims g, const float4* __restrict__ atoms, int nAtoms, float* map) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= nAtoms) return;
  const float4 atom = atoms[a];
  const int shift = a % g.nx;
  for (int k = 0; k < g.nz; ++k) {
    const float dz = k * g.hz - atom.z;
    for (int j = 0; j < g.ny; ++j) {
      const float dy = j * g.hy - atom.y;
      const float dyz2 = fmaf(dy, dy, dz * dz);
      float* row = map + (std::size_t(k) * g.ny + j) * g.nx;
      for (int ii = 0; ii < g.nx; ++ii) {
        int i = ii + shift;
        if (i >= g.nx) i -= g.nx;
        const float dx = i * g.hx - atom.x;
        const float r2 = fmaf(dx, dx, dyz2);
        atomicAdd(&row[i], dcs::directTerm(atom.w, r2, dcs::fastRsqrt(r2)));
      }
    }
  }
}
/// The throughput ceiling of any DCS kernel: 8 independent rsqrt accumulations per thread.
__global__ void rsqrtCeilingKernel(int iterations, float* out) {
  float x[8], acc[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    x[c] = 1.0f + 1e-3f * (threadIdx.x + c);
    acc[c] = 0.f;
  }
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      acc[c] += dcs::fastRsqrt(x[c]);
      x[c] += 1e-6f;
    }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += acc[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

__global__ void floatToDoubleKernel(const float* in, std::size_t n, double scale, double* out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < n) out[t] += scale * double(in[t]);
}

// ---- host side -----------------------------------------------------------------------
PeriodicBox boxOf(const MapOptions& o) {
  PeriodicBox p{};
  const Vec3 L = o.box.lengths();
  for (int d = 0; d < 3; ++d) {
    p.L[d] = o.periodic ? float(L[d]) : 0.f;
    p.invL[d] = o.periodic ? float(1.0 / L[d]) : 0.f;
  }
  return p;
}

/// Atoms relative to the lattice origin as float4 {x, y, z, q}, padded to kAtomBlock.
std::vector<float4> packAtoms(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q,
                              bool wrap, const Box& box) {
  std::vector<float4> out;
  out.reserve(pos.size() + kAtomBlock);
  for (std::size_t a = 0; a < pos.size(); ++a) {
    const Vec3 r = (wrap ? box.wrap(pos[a]) : pos[a]) - l.origin;
    out.push_back(make_float4(float(r.x), float(r.y), float(r.z), float(q[a])));
  }
  while (out.size() % kAtomBlock) out.push_back(make_float4(kFarAway, kFarAway, kFarAway, 0.f));
  return out;
}

template <int C, bool kCoalesced, bool kPeriodic, DcsAccumulation A, int kMinBlocks = 1, bool kPerPairTest = false,
          int kFold = 32>
void launchGather(const Lattice& l, const PeriodicBox& box, int nAtoms, double* map, cudaStream_t s) {
  const dim3 block(32, 4);
  const int pointsPerBlockX = 32 * C;
  const dim3 grid((l.nx + pointsPerBlockX - 1) / pointsPerBlockX, (l.ny + 3) / 4, l.nz);
  gatherKernel<C, kCoalesced, kPeriodic, A, kMinBlocks, kPerPairTest, kFold><<<grid, block, 0, s>>>(dimsOf(l), box, nAtoms, map);
  FARADAY_CUDA_CHECK_LAUNCH("gatherKernel");
}

template <int C, bool kCoalesced, bool kPeriodic, int MB = 1>
void launchGatherAcc(DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n, double* map,
                     cudaStream_t s) {
  switch (a) {
    case DcsAccumulation::Float: launchGather<C, kCoalesced, kPeriodic, DcsAccumulation::Float, MB>(l, box, n, map, s); break;
    case DcsAccumulation::Kahan: launchGather<C, kCoalesced, kPeriodic, DcsAccumulation::Kahan, MB>(l, box, n, map, s); break;
    case DcsAccumulation::BlockedDouble:
      launchGather<C, kCoalesced, kPeriodic, DcsAccumulation::BlockedDouble, MB>(l, box, n, map, s);
      break;
  }
}

/// The tile kernel on `s`, with the last partial wave split (`splitTail`) when it would
/// leave most of the GPU idle: the T mod R tail tiles are split into
/// parts blocks each, the largest power of 2 <= min(8, R / tail tiles, atom blocks).
template <int C, bool kPeriodic, DcsAccumulation A, int MB, int kFold, int kUnroll>
void launchTiles(const Lattice& l, const PeriodicBox& box, int nAtoms, double* map, DeviceBuffer<double>& scratch,
                 cudaStream_t s, bool splitTail) {
  static const int resident = [] {
    int sms = 0, perSm = 0;
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    FARADAY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, tileKernel<C, kPeriodic, A, MB, kFold, kUnroll>, 128, 0));
    return std::max(1, sms * perSm);
  }();
  TileGrid t{};
  t.tilesX = (l.nx + 32 * C - 1) / (32 * C);
  t.tilesY = (l.ny + 3) / 4;
  const long long tiles = (long long)t.tilesX * t.tilesY * l.nz;
  if (tiles > (1LL << 30)) throw Error("potential map: lattice too large for one direct launch");
  const int tail = int(tiles >= resident ? tiles % resident : tiles);
  const int atomBlocks = nAtoms / kFold;
  const int maxParts = splitTail && tail > 0 ? std::min({8, resident / tail, atomBlocks}) : 1;
  t.log2Parts = 0;
  while ((2 << t.log2Parts) <= maxParts) ++t.log2Parts;
  const int parts = 1 << t.log2Parts;
  t.fullTiles = int(tiles) - (parts > 1 ? tail : 0);
  t.atomsPerPart = ((atomBlocks + parts - 1) / parts) * kFold;
  const int blocks = t.fullTiles + (parts > 1 ? parts * tail : 0);
  if (parts > 1) scratch.resize(std::max<std::size_t>(scratch.size(), std::size_t(parts) * tail * 128 * C));
  tileKernel<C, kPeriodic, A, MB, kFold, kUnroll><<<blocks, dim3(32, 4), 0, s>>>(dimsOf(l), box, nAtoms, t, map,
                                                                                  scratch.data());
  FARADAY_CUDA_CHECK_LAUNCH("tileKernel");
  if (parts > 1) {
    const std::size_t slots = std::size_t(tail) * 128 * C;
    tailFoldKernel<C><<<int((slots + 255) / 256), 256, 0, s>>>(dimsOf(l), t, tail, scratch.data(), map);
    FARADAY_CUDA_CHECK_LAUNCH("tailFoldKernel");
  }
}

/// Production shapes of the coalesced tile kernel by row length, chosen from the benchmark's
/// timing and accuracy studies (bench dcs --study; NOTES.md): points per thread, the
/// __launch_bounds__ minimum blocks per SM (caps registers), atoms per float block, atoms
/// per unrolled inner iteration; the last partial wave is always split over atom ranges.
/// Long rows: 16 points per thread, 5 blocks of 128 threads per SM (<= 96 registers).
constexpr int kProductionCoarsening = 16;
constexpr int kProductionMinBlocks = 5;
constexpr int kProductionUnroll = 4;
/// Rows of 129..256 points: 8 points per thread, 8 blocks per SM (<= 64 registers), unroll 8.
constexpr int kMidCoarsening = 8;
constexpr int kMidMinBlocks = 8;
constexpr int kMidUnroll = 8;
constexpr int kProductionFold = 128;
constexpr bool kProductionSplitTail = true;
static_assert(kAtomBlock % kProductionFold == 0, "the fold must divide the atom padding");

template <int C, bool kPeriodic, int MB, int kFold, int kUnroll>
void launchTilesAcc(DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n, double* map,
                    DeviceBuffer<double>& scratch, cudaStream_t s, bool split) {
  switch (a) {
    case DcsAccumulation::Float:
      launchTiles<C, kPeriodic, DcsAccumulation::Float, MB, kFold, kUnroll>(l, box, n, map, scratch, s, split);
      break;
    case DcsAccumulation::Kahan:
      launchTiles<C, kPeriodic, DcsAccumulation::Kahan, MB, kFold, kUnroll>(l, box, n, map, scratch, s, split);
      break;
    case DcsAccumulation::BlockedDouble:
      launchTiles<C, kPeriodic, DcsAccumulation::BlockedDouble, MB, kFold, kUnroll>(l, box, n, map, scratch, s, split);
      break;
  }
}

template <bool kPeriodic>
void launchGatherVariant(DcsKernel k, DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n,
                         double* map, DeviceBuffer<double>& scratch, cudaStream_t s) {
  switch (k) {
    case DcsKernel::Gather: launchGatherAcc<1, false, kPeriodic>(a, l, box, n, map, s); break;
    case DcsKernel::Coarsened: launchGatherAcc<8, false, kPeriodic>(a, l, box, n, map, s); break;
    case DcsKernel::Coalesced:
      // 16 points per thread cover 512 points per tile row; shorter rows waste fewer
      // threads with 8 (256 per tile row) or 4 (128).
      if (l.nx > 32 * kMidCoarsening)
        launchTilesAcc<kProductionCoarsening, kPeriodic, kProductionMinBlocks, kProductionFold, kProductionUnroll>(
            a, l, box, n, map, scratch, s, kProductionSplitTail);
      else if (l.nx > 32 * 4)
        launchTilesAcc<kMidCoarsening, kPeriodic, kMidMinBlocks, kProductionFold, kMidUnroll>(
            a, l, box, n, map, scratch, s, kProductionSplitTail);
      else
        launchTilesAcc<4, kPeriodic, 1, kProductionFold, 4>(a, l, box, n, map, scratch, s, kProductionSplitTail);
      break;
    default: throw Error("launchGatherVariant: not a gather kernel");
  }
}

/// The benchmark's timing studies of the coalesced kernel (non-periodic only).
void launchGatherStudy(const DcsGatherTuning& t, DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n,
                       double* map, DeviceBuffer<double>& scratch, cudaStream_t s) {
  constexpr auto F = DcsAccumulation::Float;
  constexpr auto B = DcsAccumulation::BlockedDouble;
  if (a != B && a != F) throw Error("gather study: float or blocked-double accumulation only");
  const bool blocked = a == B;
  const int c = t.coarsening, mb = t.minBlocksPerSm, fold = t.foldAtoms, unroll = t.unroll;
  const bool pp = t.perPairTest, tiles1d = t.tileKernel, split = t.splitTail;
#define FARADAY_STUDY(C, MB, PP, FOLD)                                                                      \
  if (!tiles1d && c == C && mb == MB && pp == PP && fold == FOLD) {                                         \
    blocked ? launchGather<C, true, false, B, MB, PP, FOLD>(l, box, n, map, s)                             \
            : launchGather<C, true, false, F, MB, PP, FOLD>(l, box, n, map, s);                            \
    return;                                                                                                 \
  }
  FARADAY_STUDY(8, 10, false, 32)
  FARADAY_STUDY(8, 10, false, 128)
  FARADAY_STUDY(8, 10, true, 32)
#undef FARADAY_STUDY
#define FARADAY_STUDY_TILES(C, MB, FOLD, U)                                                                 \
  if (tiles1d && !pp && c == C && mb == MB && fold == FOLD && unroll == U) {                                \
    blocked ? launchTiles<C, false, B, MB, FOLD, U>(l, box, n, map, scratch, s, split)                     \
            : launchTiles<C, false, F, MB, FOLD, U>(l, box, n, map, scratch, s, split);                    \
    return;                                                                                                 \
  }
  FARADAY_STUDY_TILES(8, 10, 128, 4)
  FARADAY_STUDY_TILES(8, 10, 128, 8)
  FARADAY_STUDY_TILES(8, 10, 64, 4)
  FARADAY_STUDY_TILES(8, 8, 128, 8)
  FARADAY_STUDY_TILES(16, 5, 128, 4)
  FARADAY_STUDY_TILES(16, 6, 128, 4)
#undef FARADAY_STUDY_TILES
  throw Error("gather study: combination not compiled");
}

/// Splits packed atoms (relative to the lattice origin) into those that can never come
/// within kMinDistance of a lattice point's row (|dy| or |dz| to every row line >= 2
/// kMinDistance: r >= that for every point, float rounding included) and the rare rest,
/// which the kernel with the per-pair test sums. Order within each list is kept; uncharged
/// atoms are dropped. Each list is padded to kAtomBlock.
void splitNearRowAtoms(const Lattice& l, const MapOptions& o, const std::vector<float4>& atoms,
                       std::vector<float4>& regular, std::vector<float4>& nearRow) {
  const Vec3 L = o.box.lengths();
  auto nearPlanes = [&](double c, double h, double period) { return dcs::nearLatticePlane(c, h, period, o.periodic); };
  regular.clear();
  nearRow.clear();
  for (const float4& a : atoms) {
    if (a.w == 0.f) continue;  // padding and uncharged atoms add nothing
    const bool near = nearPlanes(a.y, l.spacing.y, L.y) && nearPlanes(a.z, l.spacing.z, L.z);
    (near ? nearRow : regular).push_back(a);
  }
  // Padding: zero charge at the first regular atom's place, so the padding is as far from
  // every lattice row as that atom (a "far away" point is not far under the minimum image:
  // it can land exactly on a lattice point, and 0 * rsqrt(0) = 0 * inf is NaN in the
  // untested kernel). The near-row list is summed with the per-pair test, which drops r = 0.
  if (!regular.empty()) {
    const float4 pad = make_float4(regular[0].x, regular[0].y, regular[0].z, 0.f);
    while (regular.size() % kAtomBlock) regular.push_back(pad);
  }
  while (nearRow.size() % kAtomBlock) nearRow.push_back(make_float4(kFarAway, kFarAway, kFarAway, 0.f));
}

template <bool kPeriodic>
void launchNearRow(DcsAccumulation a, const Lattice& l, const PeriodicBox& box, int n, double* map, cudaStream_t s) {
  switch (a) {
    case DcsAccumulation::Float: launchGather<1, false, kPeriodic, DcsAccumulation::Float, 1, true>(l, box, n, map, s); break;
    case DcsAccumulation::Kahan: launchGather<1, false, kPeriodic, DcsAccumulation::Kahan, 1, true>(l, box, n, map, s); break;
    case DcsAccumulation::BlockedDouble:
      launchGather<1, false, kPeriodic, DcsAccumulation::BlockedDouble, 1, true>(l, box, n, map, s);
      break;
  }
}

/// Adds the direct map of `atoms` (packed) into `map`, one constant-memory chunk per launch:
/// first the regular atoms with kernel `k`, then the near-row atoms (usually none) with the
/// per-pair-tested gather. The order is fixed, so the result is deterministic.
void runGather(DcsKernel k, DcsAccumulation a, const Lattice& l, const MapOptions& o,
               const std::vector<float4>& atoms, double* map, DeviceBuffer<double>& scratch, cudaStream_t s,
               const DcsGatherTuning* study = nullptr) {
  if (study && o.periodic) throw Error("gather study: non-periodic only");
  const PeriodicBox box = boxOf(o);
  std::vector<float4> regular, nearRow;
  if (study && study->perPairTest)
    regular = atoms;  // timing study: every atom through the per-pair test
  else
    splitNearRowAtoms(l, o, atoms, regular, nearRow);
  for (std::size_t first = 0; first < regular.size(); first += kChunkAtoms) {
    const int n = int(std::min<std::size_t>(kChunkAtoms, regular.size() - first));
    FARADAY_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_atoms, regular.data() + first, n * sizeof(float4), 0,
                                               cudaMemcpyHostToDevice, s));
    if (study)
      launchGatherStudy(*study, a, l, box, n, map, scratch, s);
    else if (o.periodic)
      launchGatherVariant<true>(k, a, l, box, n, map, scratch, s);
    else
      launchGatherVariant<false>(k, a, l, box, n, map, scratch, s);
  }
  for (std::size_t first = 0; first < nearRow.size(); first += kChunkAtoms) {
    const int n = int(std::min<std::size_t>(kChunkAtoms, nearRow.size() - first));
    FARADAY_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_atoms, nearRow.data() + first, n * sizeof(float4), 0,
                                               cudaMemcpyHostToDevice, s));
    if (o.periodic)
      launchNearRow<true>(a, l, box, n, map, s);
    else
      launchNearRow<false>(a, l, box, n, map, s);
  }
}

/// The start and stop of a timed interval.
struct Events {
  CudaEvent start, stop;
};

void checkInputs(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q,
                 const MapOptions& o) {
  checkMapOptions(o);
  if (pos.size() != q.size()) throw Error("potential map: positions and charges differ in count");
  if (l.size() == 0) throw Error("potential map: empty lattice");
}

}  // namespace

std::vector<double> cudaPotentialMap(DcsKernel kernel, DcsAccumulation accumulation, const Lattice& l,
                                     const std::vector<Vec3>& pos, const std::vector<double>& q,
                                     const MapOptions& o, DcsKernelStats* stats, int repeats,
                                     const DcsGatherTuning* study) {
  checkInputs(l, pos, q, o);
  CudaStream stream;
  Events ev;
  DeviceBuffer<double> map("potential map", l.size());
  DeviceBuffer<float> fmap;
  DeviceBuffer<float4> dAtoms, dBins("cutoff bins", 1);
  DeviceBuffer<double> tailScratch("direct map tail parts", 1);
  std::vector<double> hostPart;
  DcsKernelStats st;
  std::vector<float> times;
  const bool wrap = o.periodic && kernel != DcsKernel::CutoffBinned;
  const std::vector<float4> atoms = packAtoms(l, pos, q, wrap, o.box);
  if (kernel == DcsKernel::Scatter) {
    if (o.periodic) throw Error("the scatter map kernel is non-periodic only (benchmark)");
    fmap = DeviceBuffer<float>("potential map (float, scatter)", l.size());
    dAtoms.upload(atoms, stream.get());
  }
  for (int r = 0; r < std::max(1, repeats); ++r) {
    map.zero(stream.get());
    hostPart.assign(l.size(), 0.0);
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.start.get(), stream.get()));
    switch (kernel) {
      case DcsKernel::Scatter: {
        fmap.zero(stream.get());
        scatterKernel<<<(int(atoms.size()) + 127) / 128, 128, 0, stream.get()>>>(dimsOf(l), dAtoms.data(),
                                                                                    int(atoms.size()), fmap.data());
        FARADAY_CUDA_CHECK_LAUNCH("scatterKernel");
        floatToDoubleKernel<<<int((l.size() + 255) / 256), 256, 0, stream.get()>>>(fmap.data(), l.size(),
                                                                                     units::kCoulomb, map.data());
        FARADAY_CUDA_CHECK_LAUNCH("floatToDoubleKernel");
        break;
      }
      case DcsKernel::CutoffBinned:
        if (o.method != MapMethod::Cutoff) throw Error("the cutoff-binned kernel needs map.method = cutoff");
        runCutoffBinned(l, o, pos, q, map, dBins, hostPart, stream.get(), &st);
        break;
      default: runGather(kernel, accumulation, l, o, atoms, map.data(), tailScratch, stream.get(), study); break;
    }
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.stop.get(), stream.get()));
    FARADAY_CUDA_CHECK(cudaEventSynchronize(ev.stop.get()));
    const float ms = CudaEvent::elapsedMs(ev.start, ev.stop);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  std::vector<double> out = map.toHost(stream.get());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] += hostPart[p];
  if (stats) {
    *stats = st;
    stats->seconds = 1e-3 * times[times.size() / 2];
    stats->effectiveEvaluations = double(l.size()) * double(pos.size());
    if (kernel != DcsKernel::CutoffBinned) stats->actualEvaluations = stats->effectiveEvaluations;
  }
  return out;
}

double cudaRsqrtCeiling() {
  int sms = 0;
  FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 16, threads = 256, iterations = 20000;
  DeviceBuffer<float> out("rsqrt ceiling output", std::size_t(blocks) * threads);
  CudaStream stream;
  Events ev;
  float best = 1e30f;
  for (int r = 0; r < 4; ++r) {  // the first launch warms up
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.start.get(), stream.get()));
    rsqrtCeilingKernel<<<blocks, threads, 0, stream.get()>>>(iterations, out.data());
    FARADAY_CUDA_CHECK_LAUNCH("rsqrtCeilingKernel");
    FARADAY_CUDA_CHECK(cudaEventRecord(ev.stop.get(), stream.get()));
    FARADAY_CUDA_CHECK(cudaEventSynchronize(ev.stop.get()));
    const float ms = CudaEvent::elapsedMs(ev.start, ev.stop);
    if (r > 0) best = std::min(best, ms);
  }
  return double(blocks) * threads * iterations * 8 / (1e-3 * best);
}

struct CudaMapAccumulator::Impl {
  Lattice lattice;
  MapOptions options;
  CudaStream stream;
  DeviceBuffer<double> sum{"potential map sum", 1};
  DeviceBuffer<float4> bins{"cutoff bins", 1};
  DeviceBuffer<double> tailScratch{"direct map tail parts", 1};
  std::vector<double> hostSum;  // overflow atoms of the cutoff kernel
};

CudaMapAccumulator::CudaMapAccumulator(const Lattice& lattice, const MapOptions& options)
    : impl_(std::make_unique<Impl>()) {
  checkMapOptions(options);
  impl_->lattice = lattice;
  impl_->options = options;
  impl_->sum.resize(lattice.size());
  impl_->sum.zero(impl_->stream.get());
  impl_->hostSum.assign(lattice.size(), 0.0);
}
CudaMapAccumulator::~CudaMapAccumulator() = default;

void CudaMapAccumulator::addFrame(const std::vector<Vec3>& positions, const std::vector<double>& charges,
                                  const Box& box, Timers* timers) {
  ScopedTimer timer(timers, "map.gpu");
  MapOptions o = impl_->options;
  if (o.periodic) o.box = box;
  checkInputs(impl_->lattice, positions, charges, o);
  cudaStream_t s = impl_->stream.get();
  if (o.method == MapMethod::Cutoff) {
    runCutoffBinned(impl_->lattice, o, positions, charges, impl_->sum, impl_->bins, impl_->hostSum, s, nullptr);
  } else {
    const std::vector<float4> atoms = packAtoms(impl_->lattice, positions, charges, o.periodic, o.box);
    runGather(DcsKernel::Coalesced, kProductionAccumulation, impl_->lattice, o, atoms, impl_->sum.data(),
              impl_->tailScratch, s);
  }
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(s));
}

std::vector<double> CudaMapAccumulator::sum() const {
  std::vector<double> out = impl_->sum.toHost(impl_->stream.get());
  for (std::size_t p = 0; p < out.size(); ++p) out[p] += impl_->hostSum[p];
  return out;
}

}  // namespace faraday
