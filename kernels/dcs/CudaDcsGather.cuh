#pragma once
// The direct-summation map kernels (SEEDS.md 000/001), shared by the production driver
// (CudaDcs.cu) and the benchmark's studies. Without relocatable device code a kernel must sit
// in the translation unit of the __constant__ memory it reads, so everything here is in an
// unnamed namespace: each .cu that includes it gets its own atom chunk and kernels.
// Layers: per-pair terms (DcsPair.h) -> per-kernel loops -> __global__ -> host launchers.
// Coordinates on the device are relative to the lattice origin (subtracted in double on
// the host), so lattice point (i, j, k) is at (i hx, j hy, k hz) in float.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "core/Error.h"
#include "core/Units.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/CudaConstantBank.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/dcs/CudaDcsDetail.cuh"
#include "kernels/dcs/DcsPair.h"

namespace faraday::dcs::detail {
namespace {

// ---- constant memory ------------------------------------------------------------
/// Atoms {x, y, z, q} of one chunk: 4096 x 16 bytes = the whole 64 KB bank (a translation
/// unit that includes this header has no other __constant__ data).
constexpr int kChunkAtoms = 4096;
/// Atoms are padded to a multiple of this with zero charges (the blocked accumulation folds
/// every kFold <= kAtomBlock atoms, kFold dividing kAtomBlock; inner loops get a fixed trip
/// count). kChunkAtoms is a multiple, so every chunk is too.
constexpr int kAtomBlock = 128;
static_assert(kChunkAtoms % kAtomBlock == 0, "chunks must hold whole atom blocks");
__constant__ float4 c_atoms[kChunkAtoms];
/// c_atoms is one array per GPU: accumulators on several host threads sharing a GPU (map
/// workers) take turns with it, or one thread's atoms would land under another's kernel.
ConstantBankTurns g_atomTurns;

// ---- accumulation -------------------------------------------------------------------
/// How a lattice point accumulates its float pair terms in production: float over blocks of
/// kFold atoms, each block folded into a double (at most kFold terms per float sum: rounding
/// error ~ sqrt(kFold) ulp of the block sum). The kernels take the accumulator as a type.
struct BlockedDoubleAccumulator {
  float s = 0.f;
  double d = 0.0;
  __device__ void add(float t) { s += t; }
  __device__ void endBlock() {
    d += double(s);
    s = 0.f;
  }
  __device__ double total() const { return d + double(s); }
};

/// The periodic box as the kernels read it: the diagonal a_x, b_y, c_z, its inverse and the
/// tilts b_x, c_x, c_y (all zero when not periodic).
struct PeriodicBox {
  float L[3];     // nm
  float invL[3];  // 1/nm
  float bx, cx, cy;  // nm
};

template <bool kPeriodic>
__device__ inline float minimumImage(float d, float L, float invL) {
  if (kPeriodic) d -= L * rintf(d * invL);
  return d;
}

/// The minimum image of the displacements from `atom` to a row of points at (y, z) (x varies
/// along the row) in a rectangular box: dy and dz, and the atom's x (the shift by a is per
/// point, minimumImage<kPeriodic>(x - ax)). A triclinic box takes nearestImageR2 per pair.
template <bool kPeriodic>
__device__ inline void rowImage(const PeriodicBox& box, float y, float z, const float4& atom, float& dy, float& dz,
                                float& ax) {
  dy = minimumImage<kPeriodic>(y - atom.y, box.L[1], box.invL[1]);
  dz = minimumImage<kPeriodic>(z - atom.z, box.L[2], box.invL[2]);
  ax = atom.x;
}

/// |d|^2 of the nearest periodic image of d = point - atom in a triclinic box, as
/// Box::nearestImage: the brick image (c, then b) and the images one step of c and/or b from
/// it, each with its a shift by rounding, the least (about 60 FP32 operations per pair, 15
/// times the rectangular pair's). The brick image alone is not the nearest beyond half the
/// smallest diagonal element, and jumps where it changes: a direct map sums every atom, so
/// it takes the nearest image, which changes only where two images are equally far.
__device__ inline float nearestImageR2(const PeriodicBox& box, float dx, float dy, float dz) {
  const float sz = rintf(dz * box.invL[2]);
  dz -= box.L[2] * sz;
  dy -= box.cy * sz;
  dx -= box.cx * sz;
  const float sy = rintf(dy * box.invL[1]);
  dy -= box.L[1] * sy;
  dx -= box.bx * sy;
  float best = INFINITY;
#pragma unroll
  for (int kc = -1; kc <= 1; ++kc)
#pragma unroll
    for (int kb = -1; kb <= 1; ++kb) {
      const float ez = dz + float(kc) * box.L[2];
      const float ey = dy + float(kc) * box.cy + float(kb) * box.L[1];
      float ex = dx + float(kc) * box.cx + float(kb) * box.bx;
      ex -= box.L[0] * rintf(ex * box.invL[0]);
      best = fminf(best, fmaf(ex, ex, fmaf(ey, ey, ez * ez)));
    }
  return best;
}

// ---- (b, c, d) gather: thread per lattice point(s), atoms from constant memory -------
/// kCoarsen points per thread along x; kCoalesced puts them blockDim.x apart (a warp
/// writes 32 consecutive doubles per point index), else adjacent. Per atom and thread:
/// 1 constant read (broadcast), dy, dz, dy^2+dz^2 once, then per point 1 sub, 1 fma,
/// 1 rsqrt, 1 mul-add (plus 2 ops for the minimum image when periodic).
template <int kCoarsen, bool kCoalesced, bool kPeriodic, class Acc, int kMinBlocks = 1, bool kPerPairTest = false,
          int kFold = 32, bool kTilted = false>
__global__ void __launch_bounds__(128, kMinBlocks) gatherKernel(LatticeDims g, PeriodicBox box, int nAtoms, double* map) {
  const int j = blockIdx.y * blockDim.y + threadIdx.y;
  const int k = blockIdx.z;
  const int i0 = kCoalesced ? blockIdx.x * blockDim.x * kCoarsen + threadIdx.x
                            : (blockIdx.x * blockDim.x + threadIdx.x) * kCoarsen;
  const int step = kCoalesced ? blockDim.x : 1;
  const float y = j * g.hy + k * g.tzy, z = k * g.hz, rowX = j * g.tyx + k * g.tzx;
  float x[kCoarsen];
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) x[c] = (i0 + c * step) * g.hx + rowX;
  Acc acc[kCoarsen];
  for (int a0 = 0; a0 < nAtoms; a0 += kFold) {
#pragma unroll 4
    for (int a = a0; a < a0 + kFold; ++a) {
      const float4 atom = c_atoms[a];
      if constexpr (kTilted) {
#pragma unroll
        for (int c = 0; c < kCoarsen; ++c) {
          const float r2 = nearestImageR2(box, x[c] - atom.x, y - atom.y, z - atom.z);
          if (kPerPairTest)
            acc[c].add(dcs::directTerm(atom.w, r2, dcs::fastRsqrt(r2)));
          else
            acc[c].add(atom.w * dcs::fastRsqrt(r2));
        }
        continue;
      }
      float dy, dz, ax;
      rowImage<kPeriodic>(box, y, z, atom, dy, dz, ax);
      const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
      for (int c = 0; c < kCoarsen; ++c) {
        const float dx = minimumImage<kPeriodic>(x[c] - ax, box.L[0], box.invL[0]);
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
/// docs/perf/dcs-log.md), dy, dz, dy^2 + dz^2 (4 FP32 instructions); per point: dx (FADD),
/// r^2 (FFMA), MUFU.RSQ, the charge-weighted add (FFMA); per kFold atoms and point:
/// F2F.F64.F32 + DADD.
struct TileGrid {
  int tilesX, tilesY;  // tiles per row and per slice
  int fullTiles;       // tiles computed whole (block b < fullTiles is tile b)
  int log2Parts;       // blocks per tail tile: parts = 1 << log2Parts (1: no split)
  int atomsPerPart;    // a multiple of kFold
};

template <int kCoarsen, bool kPeriodic, class Acc, int kMinBlocks, int kFold, int kUnroll, bool kTilted = false>
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
  // Point coordinates rounded once here (__fmul_rn, __fadd_rn: not contracted into the loop's
  // subtractions), so the loop needs no spacing: dx, dy, dz are single FADDs. The row's tilt
  // terms are zero on an orthogonal lattice, where adding them changes no bit.
  const float y = __fadd_rn(__fmul_rn(float(j), g.hy), __fmul_rn(float(k), g.tzy)), z = __fmul_rn(float(k), g.hz);
  const float rowX = __fadd_rn(__fmul_rn(float(j), g.tyx), __fmul_rn(float(k), g.tzx));
  float x[kCoarsen];
#pragma unroll
  for (int c = 0; c < kCoarsen; ++c) x[c] = __fadd_rn(__fmul_rn(float(i0 + 32 * c), g.hx), rowX);
  Acc acc[kCoarsen];
  for (int a0 = aBegin; a0 < aEnd; a0 += kFold) {
#pragma unroll kUnroll
    for (int a = a0; a < a0 + kFold; ++a) {
      const float4 atom = c_atoms[a];
      if constexpr (kTilted) {
#pragma unroll
        for (int c = 0; c < kCoarsen; ++c)
          acc[c].add(atom.w * dcs::fastRsqrt(nearestImageR2(box, x[c] - atom.x, y - atom.y, z - atom.z)));
        continue;
      }
      float dy, dz, ax;
      rowImage<kPeriodic>(box, y, z, atom, dy, dz, ax);
      const float dyz2 = fmaf(dy, dy, dz * dz);
#pragma unroll
      for (int c = 0; c < kCoarsen; ++c) {
        const float dx = minimumImage<kPeriodic>(x[c] - ax, box.L[0], box.invL[0]);
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


// ---- host side -----------------------------------------------------------------------
PeriodicBox boxOf(const MapOptions& o) {
  PeriodicBox p{};
  const Vec3 L = o.box.diagonal();
  for (int d = 0; d < 3; ++d) {
    p.L[d] = o.periodic ? float(L[d]) : 0.f;
    p.invL[d] = o.periodic ? float(1.0 / L[d]) : 0.f;
  }
  if (o.periodic) {
    p.bx = float(o.box.b.x);
    p.cx = float(o.box.c.x);
    p.cy = float(o.box.c.y);
  }
  return p;
}

/// Whether the periodic direct kernels take the tilted minimum image (a triclinic box).
[[maybe_unused]] bool tiltedImage(const MapOptions& o) { return o.periodic && !o.box.isRectangular(); }

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

template <int C, bool kCoalesced, bool kPeriodic, class Acc, int kMinBlocks = 1, bool kPerPairTest = false,
          int kFold = 32, bool kTilted = false>
void launchGather(const Lattice& l, const PeriodicBox& box, int nAtoms, double* map, cudaStream_t s) {
  const dim3 block(32, 4);
  const int pointsPerBlockX = 32 * C;
  const dim3 grid((l.nx + pointsPerBlockX - 1) / pointsPerBlockX, (l.ny + 3) / 4, l.nz);
  gatherKernel<C, kCoalesced, kPeriodic, Acc, kMinBlocks, kPerPairTest, kFold, kTilted>
      <<<grid, block, 0, s>>>(dimsOf(l), box, nAtoms, map);
  FARADAY_CUDA_CHECK_LAUNCH("gatherKernel");
}

/// The tile kernel on `s`, with the last partial wave split (`splitTail`) when it would
/// leave most of the GPU idle: the T mod R tail tiles are split into
/// parts blocks each, the largest power of 2 <= min(8, R / tail tiles, atom blocks).
template <int C, bool kPeriodic, class Acc, int MB, int kFold, int kUnroll, bool kTilted = false>
void launchTiles(const Lattice& l, const PeriodicBox& box, int nAtoms, double* map, DeviceBuffer<double>& scratch,
                 cudaStream_t s, bool splitTail) {
  static const int resident = [] {
    int sms = 0, perSm = 0;
    FARADAY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    FARADAY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &perSm, tileKernel<C, kPeriodic, Acc, MB, kFold, kUnroll, kTilted>, 128, 0));
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
  tileKernel<C, kPeriodic, Acc, MB, kFold, kUnroll, kTilted>
      <<<blocks, dim3(32, 4), 0, s>>>(dimsOf(l), box, nAtoms, t, map, scratch.data());
  FARADAY_CUDA_CHECK_LAUNCH("tileKernel");
  if (parts > 1) {
    const std::size_t slots = std::size_t(tail) * 128 * C;
    tailFoldKernel<C><<<int((slots + 255) / 256), 256, 0, s>>>(dimsOf(l), t, tail, scratch.data(), map);
    FARADAY_CUDA_CHECK_LAUNCH("tailFoldKernel");
  }
}

/// Production shapes of the coalesced tile kernel by row length, chosen from the benchmark's
/// timing and accuracy studies (bench dcs --study; docs/perf/dcs-log.md): points per thread,
/// the __launch_bounds__ minimum blocks per SM (caps registers), atoms per float block, atoms
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

/// The coalesced tile kernel in its production shape for the lattice's row length: 16
/// points per thread cover 512 points per tile row; shorter rows waste fewer threads with 8
/// (256 per tile row) or 4 (128).
template <bool kPeriodic, class Acc, bool kTilted = false>
void launchProductionTiles(const Lattice& l, const PeriodicBox& box, int n, double* map,
                           DeviceBuffer<double>& scratch, cudaStream_t s) {
  if (l.nx > 32 * kMidCoarsening)
    launchTiles<kProductionCoarsening, kPeriodic, Acc, kProductionMinBlocks, kProductionFold, kProductionUnroll,
                kTilted>(l, box, n, map, scratch, s, kProductionSplitTail);
  else if (l.nx > 32 * 4)
    launchTiles<kMidCoarsening, kPeriodic, Acc, kMidMinBlocks, kProductionFold, kMidUnroll, kTilted>(
        l, box, n, map, scratch, s, kProductionSplitTail);
  else
    launchTiles<4, kPeriodic, Acc, 1, kProductionFold, 4, kTilted>(l, box, n, map, scratch, s, kProductionSplitTail);
}

/// The atoms near a lattice row: one point per thread with the per-pair near-atom test.
template <bool kPeriodic, class Acc, bool kTilted = false>
void launchNearRow(const Lattice& l, const PeriodicBox& box, int n, double* map, cudaStream_t s) {
  launchGather<1, false, kPeriodic, Acc, 1, true, 32, kTilted>(l, box, n, map, s);
}

/// Splits packed atoms (relative to the lattice origin) into those that can never come
/// within kMinDistance of a lattice point's row (|dy| or |dz| to every row line >= 2
/// kMinDistance: r >= that for every point, float rounding included) and the rare rest,
/// which the kernel with the per-pair test sums. Order within each list is kept; uncharged
/// atoms are dropped. Each list is padded to kAtomBlock.
void splitNearRowAtoms(const Lattice& l, const MapOptions& o, const std::vector<float4>& atoms,
                       std::vector<float4>& regular, std::vector<float4>& nearRow) {
  const NearTest test = nearTestOf(l, o.box, o.periodic);
  regular.clear();
  nearRow.clear();
  for (const float4& a : atoms) {
    if (a.w == 0.f) continue;  // padding and uncharged atoms add nothing
    const bool near = dcs::nearLatticeRow(test, a.y, a.z);
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


/// Copies `regular` then `nearRow` (`kind`: from host or device memory, each padded to
/// kAtomBlock) one constant-memory chunk at a time and calls launchRegular(n) or
/// launchNearRow(n) for each chunk of n atoms. The order is fixed, so the result is
/// deterministic; each chunk's copy and launch wait for the kernels of the chunk before it
/// on this GPU, from any stream (g_atomTurns).
template <class LaunchRegular, class LaunchNearRow>
void runGatherChunks(const float4* regular, std::size_t regularCount, const float4* nearRow, std::size_t nearCount,
                     cudaMemcpyKind kind, cudaStream_t s, LaunchRegular launchRegular,
                     LaunchNearRow launchNearRowChunk) {
  auto run = [&](const float4* atoms, std::size_t count, auto launch) {
    for (std::size_t first = 0; first < count; first += kChunkAtoms) {
      const int n = int(std::min<std::size_t>(kChunkAtoms, count - first));
      g_atomTurns.take(s, [&] {
        FARADAY_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_atoms, atoms + first, n * sizeof(float4), 0, kind, s));
        launch(n);
      });
    }
  };
  run(regular, regularCount, launchRegular);
  run(nearRow, nearCount, launchNearRowChunk);
}
template <class LaunchRegular, class LaunchNearRow>
void runGatherChunks(const std::vector<float4>& regular, const std::vector<float4>& nearRow, cudaStream_t s,
                     LaunchRegular launchRegular, LaunchNearRow launchNearRowChunk) {
  runGatherChunks(regular.data(), regular.size(), nearRow.data(), nearRow.size(), cudaMemcpyHostToDevice, s,
                  launchRegular, launchNearRowChunk);
}


void checkInputs(const Lattice& l, const std::vector<Vec3>& pos, const std::vector<double>& q,
                 const MapOptions& o) {
  checkMapOptions(o);
  if (pos.size() != q.size()) throw Error("potential map: positions and charges differ in count");
  if (l.size() == 0) throw Error("potential map: empty lattice");
}


}  // namespace
}  // namespace faraday::dcs::detail
