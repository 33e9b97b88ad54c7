// The GPU tile list, in four steps (see TileList.h for what the list holds):
//   sort    per slot a 63-bit key: the Morton code of the atom's cell (a power of 2 per box
//           edge, edge within sqrt(2) of cutoff + buffer) above the Morton code of its sub-cell (2^11
//           per cell edge), i.e. a Morton code on one uniform fine grid; CUB radix
//           sort of (key, slot). The keys depend on the positions alone, so the order (and
//           with it every sum of the force kernels) does not depend on the input's order.
//   cells   each cell's range of slots, from the sorted keys
//   bounds  one warp per block of 32 slots: its bounding box (minimum image around its
//           first atom)
//   tiles   one warp per block I: its diagonal tile, then the cells within cutoff + buffer
//           of its box (cells farther than that are skipped whole), 32 candidate slots at a
//           time; a candidate in a later block within cutoff + buffer of the box and then of
//           the box of one of the block's four groups of 8 slots is appended (ballot and
//           prefix count), and every 32 appended atoms make a tile. The group boxes remove
//           pairs that only the whole box's corners and edges reached (NaCl melt: useful
//           pairs 10% -> 12%; testing every atom of the block too reached 19% but made the
//           build 2-2.6x slower, a net loss at a rebuild every 8 steps). Tile slots come from an integer counter: the order of
//           the tiles varies, their contents do not. A count beyond the capacity is recorded
//           (TileCounters), never written.
#include <cub/cub.cuh>

#include <algorithm>
#include <cmath>

#include "engine/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"
#include "kernels/neighbor/CudaTileList.h"

namespace faraday {
namespace {

constexpr int kThreads = 128;
constexpr int kWarpsPerBlock = kThreads / 32;
constexpr int kSubCellBits = 11;
constexpr int kSubBoxes = 4;  ///< groups of 8 slots per block with their own bounding boxes
constexpr unsigned kFull = 0xffffffffu;


/// Spreads the low 21 bits of v to every third bit.
__device__ unsigned long long spreadBits3(unsigned long long v) {
  v &= 0x1fffffull;
  v = (v | v << 32) & 0x1f00000000ffffull;
  v = (v | v << 16) & 0x1f0000ff0000ffull;
  v = (v | v << 8) & 0x100f00f00f00f00full;
  v = (v | v << 4) & 0x10c30c30c30c30c3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

__device__ unsigned long long morton3(unsigned x, unsigned y, unsigned z) {
  return spreadBits3(x) << 2 | spreadBits3(y) << 1 | spreadBits3(z);
}

struct CellGrid {
  int3 n;          ///< cells per dimension
  double3 invLength;  ///< 1/nm
};

/// Cell and sub-cell of a position along one dimension.
__device__ void cellOf(double x, double invLength, int cells, int& cell, int& sub) {
  double f = x * invLength;
  f -= floor(f);
  const double u = f * double(cells);
  cell = min(max(int(u), 0), cells - 1);
  sub = min(max(int((u - double(cell)) * double(1 << kSubCellBits)), 0), (1 << kSubCellBits) - 1);
}

__device__ void cellsOf(const double4_32a& r, const CellGrid& g, int c[3], int f[3]) {
  cellOf(r.x, g.invLength.x, g.n.x, c[0], f[0]);
  cellOf(r.y, g.invLength.y, g.n.y, c[1], f[1]);
  cellOf(r.z, g.invLength.z, g.n.z, c[2], f[2]);
}

__global__ void keysKernel(int n, const double4_32a* __restrict__ ref, CellGrid g, unsigned long long* __restrict__ keys,
                           int* __restrict__ slots) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  int c[3], f[3];
  cellsOf(ref[s], g, c, f);
  keys[s] = morton3(c[0], c[1], c[2]) << (3 * kSubCellBits) | morton3(f[0], f[1], f[2]);
  slots[s] = s;
}

__global__ void cellOfSlotKernel(int n, const double4_32a* __restrict__ ref, CellGrid g, int* __restrict__ cellOfSlot) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  int c[3], f[3];
  cellsOf(ref[s], g, c, f);
  cellOfSlot[s] = (c[0] * g.n.y + c[1]) * g.n.z + c[2];
}

/// Cell ranges [start, end) of slots; the ranges were zeroed (empty) before.
__global__ void cellRangeKernel(int n, const int* __restrict__ cellOfSlot, int2* __restrict__ range) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int c = cellOfSlot[s];
  if (s == 0 || cellOfSlot[s - 1] != c) range[c].x = s;
  if (s == n - 1 || cellOfSlot[s + 1] != c) range[c].y = s + 1;
}

__device__ float minimumImage(float d, float length, float invLength) { return d - length * rintf(d * invLength); }

struct BoxF {
  float3 length, invLength;
};

/// One warp per block: bounding box of its atoms, around the first atom by minimum image
/// (in double, then rounded outwards to float).
__global__ void boundsKernel(int n, int blocks, const double4_32a* __restrict__ ref, double3 length,
                             float4* __restrict__ center, float4* __restrict__ half) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= blocks) return;
  const int s = warp * 32 + lane;
  const double4_32a r0 = ref[warp * 32];
  double3 p = make_double3(r0.x, r0.y, r0.z);
  if (s < n) {
    const double4_32a r = ref[s];
    p.x = r0.x + (r.x - r0.x) - length.x * rint((r.x - r0.x) / length.x);
    p.y = r0.y + (r.y - r0.y) - length.y * rint((r.y - r0.y) / length.y);
    p.z = r0.z + (r.z - r0.z) - length.z * rint((r.z - r0.z) / length.z);
  }
  double lo[3] = {p.x, p.y, p.z}, hi[3] = {p.x, p.y, p.z};
  for (int o = 16; o > 0; o >>= 1)
    for (int d = 0; d < 3; ++d) {
      lo[d] = fmin(lo[d], __shfl_xor_sync(kFull, lo[d], o));
      hi[d] = fmax(hi[d], __shfl_xor_sync(kFull, hi[d], o));
    }
  if (lane == 0) {
    const double L[3] = {length.x, length.y, length.z};
    float c[3], h[3];
    for (int d = 0; d < 3; ++d) {
      double mid = 0.5 * (lo[d] + hi[d]);
      mid -= L[d] * floor(mid / L[d]);
      c[d] = float(mid);
      // Outwards: the float center may sit off by half an ulp of L.
      h[d] = float(0.5 * (hi[d] - lo[d]) + 1e-6 * L[d]);
    }
    center[warp] = make_float4(c[0], c[1], c[2], 0.f);
    half[warp] = make_float4(h[0], h[1], h[2], 0.f);
  }
}

struct TileStore {
  int capacity, exclusionCapacity;
  int* info;
  int* lanes;
  int* exclusionIndex;
  std::uint32_t* masks;
  TileCounters* counters;
  const int* exclusionOffsets;  ///< null: no exclusions
  const int* exclusions;
  const int* atomOfSlot;
  const int* slotOfAtom;
};

/// Bit k of the mask of lane `slot` (a slot or kNoAtom): atom 32 block + k is excluded with it.
__device__ std::uint32_t exclusionMask(const TileStore& t, int block, int slot) {
  std::uint32_t m = 0;
  if (slot == kNoAtom) return m;
  const int a = t.atomOfSlot[slot];
  for (int k = t.exclusionOffsets[a]; k < t.exclusionOffsets[a + 1]; ++k) {
    const int other = t.slotOfAtom[t.exclusions[k]];
    if ((other >> 5) == block) m |= 1u << (other & 31);
  }
  return m;
}

/// Writes one tile of block `block` whose lane l holds `slot` (kNoAtom: empty). Whole warp.
__device__ void emitTile(const TileStore& t, int block, bool diagonal, int slot, int lane) {
  int tile = 0;
  if (lane == 0) tile = atomicAdd(&t.counters->tiles, 1);
  tile = __shfl_sync(kFull, tile, 0);
  if (tile >= t.capacity) return;  // counted: the host grows the list and builds again
  if (lane == 0) t.info[tile] = 2 * block + (diagonal ? 1 : 0);
  t.lanes[std::size_t(tile) * 32 + lane] = slot;
  int index = -1;
  if (t.exclusionOffsets) {
    const std::uint32_t m = exclusionMask(t, block, slot);
    if (__any_sync(kFull, m != 0)) {
      if (lane == 0) index = atomicAdd(&t.counters->exclusionTiles, 1);
      index = __shfl_sync(kFull, index, 0);
      if (index < t.exclusionCapacity) t.masks[std::size_t(index) * 32 + lane] = m;
      else index = -1;  // counted beyond the capacity: the list is built again
    }
  }
  if (lane == 0) t.exclusionIndex[tile] = index;
}

/// Squared distance (nm^2) from x to the box (center c, half-extents h), minimum image.
__device__ float distanceToBox2(float3 x, float4 c, float4 h, const BoxF& b) {
  const float dx = fmaxf(fabsf(minimumImage(x.x - c.x, b.length.x, b.invLength.x)) - h.x, 0.f);
  const float dy = fmaxf(fabsf(minimumImage(x.y - c.y, b.length.y, b.invLength.y)) - h.y, 0.f);
  const float dz = fmaxf(fabsf(minimumImage(x.z - c.z, b.length.z, b.invLength.z)) - h.z, 0.f);
  return dx * dx + dy * dy + dz * dz;
}

/// Gap (nm, >= 0) along one dimension between the box [c - h, c + h] and cell k of edge
/// `edge`, by minimum image.
__device__ float gapToCell(float c, float h, int k, float edge, float length, float invLength) {
  const float d = fabsf(minimumImage((float(k) + 0.5f) * edge - c, length, invLength));
  return fmaxf(d - 0.5f * edge - h, 0.f);
}


/// The cells [first, first + count) (wrapped) along one dimension that overlap
/// [center - reach, center + reach]; all cells once when that covers the box.
__device__ void cellSpan(float center, float reach, float length, int cells, int& first, int& count) {
  const float scale = float(cells) / length;
  const int lo = int(floorf((center - reach) * scale)), hi = int(floorf((center + reach) * scale));
  if (hi - lo + 1 >= cells) {
    first = 0;
    count = cells;
  } else {
    first = ((lo % cells) + cells) % cells;
    count = hi - lo + 1;
  }
}

__global__ void __launch_bounds__(kThreads) tilesKernel(int n, int blocks, const double4_32a* __restrict__ ref,
                                                       const float4* __restrict__ center,
                                                       const float4* __restrict__ half, const int2* __restrict__ range,
                                                       int3 cells, BoxF b, float reach2, float reach, TileStore t) {
  __shared__ int buffer[kWarpsPerBlock][64];
  const int warpInBlock = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int block = blockIdx.x * kWarpsPerBlock + warpInBlock;
  if (block >= blocks) return;
  int* buf = buffer[warpInBlock];
  const int own = block * 32 + lane;
  emitTile(t, block, true, own < n ? own : kNoAtom, lane);

  const float4 c = center[block], h = half[block];
  // Bounding boxes of the block's four groups of 8 slots (empty slots repeat the first atom),
  // around the block's center by minimum image: a candidate must be near one of them.
  float4 subCenter[kSubBoxes], subHalf[kSubBoxes];
  {
    const double4_32a mine = ref[own < n ? own : block * 32];
    const float3 myAtom = make_float3(float(mine.x), float(mine.y), float(mine.z));
    const float p[3] = {c.x + minimumImage(myAtom.x - c.x, b.length.x, b.invLength.x),
                        c.y + minimumImage(myAtom.y - c.y, b.length.y, b.invLength.y),
                        c.z + minimumImage(myAtom.z - c.z, b.length.z, b.invLength.z)};
    float lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
    for (int o = 4; o > 0; o >>= 1)
      for (int d = 0; d < 3; ++d) {
        lo[d] = fminf(lo[d], __shfl_xor_sync(kFull, lo[d], o));
        hi[d] = fmaxf(hi[d], __shfl_xor_sync(kFull, hi[d], o));
      }
    for (int g = 0; g < kSubBoxes; ++g) {
      float v[6];
      for (int d = 0; d < 3; ++d) {
        v[d] = __shfl_sync(kFull, lo[d], 8 * g);
        v[3 + d] = __shfl_sync(kFull, hi[d], 8 * g);
      }
      // Outwards by the float rounding of the positions (~1e-6 of the box).
      const float pad = 1e-6f * fmaxf(b.length.x, fmaxf(b.length.y, b.length.z));
      subCenter[g] = make_float4(0.5f * (v[0] + v[3]), 0.5f * (v[1] + v[4]), 0.5f * (v[2] + v[5]), 0.f);
      subHalf[g] = make_float4(0.5f * (v[3] - v[0]) + pad, 0.5f * (v[4] - v[1]) + pad, 0.5f * (v[5] - v[2]) + pad, 0.f);
    }
  }
  int first[3], count[3];
  cellSpan(c.x, h.x + reach, b.length.x, cells.x, first[0], count[0]);
  cellSpan(c.y, h.y + reach, b.length.y, cells.y, first[1], count[1]);
  cellSpan(c.z, h.z + reach, b.length.z, cells.z, first[2], count[2]);
  const float3 cellEdge = make_float3(b.length.x / cells.x, b.length.y / cells.y, b.length.z / cells.z);
  const int laterSlots = (block + 1) * 32;  // candidates must be in later blocks
  int held = 0;
  for (int ix = 0; ix < count[0]; ++ix) {
    const int cx = (first[0] + ix) % cells.x;
    const float gx = gapToCell(c.x, h.x, cx, cellEdge.x, b.length.x, b.invLength.x);
    for (int iy = 0; iy < count[1]; ++iy) {
      const int cy = (first[1] + iy) % cells.y;
      const float gy = gapToCell(c.y, h.y, cy, cellEdge.y, b.length.y, b.invLength.y);
      if (gx * gx + gy * gy >= reach2) continue;
      for (int iz = 0; iz < count[2]; ++iz) {
        const int cz = (first[2] + iz) % cells.z;
        const float gz = gapToCell(c.z, h.z, cz, cellEdge.z, b.length.z, b.invLength.z);
        if (gx * gx + gy * gy + gz * gz >= reach2) continue;  // no atom of this cell can be near the box
        const int2 r = range[(cx * cells.y + cy) * cells.z + cz];
        for (int base = max(r.x, laterSlots); base < r.y; base += 32) {
          const int s = base + lane;
          bool take = false;
          float3 xs = make_float3(0.f, 0.f, 0.f);
          if (s < r.y) {
            const double4_32a x = ref[s];
            xs = make_float3(float(x.x), float(x.y), float(x.z));
            take = distanceToBox2(xs, c, h, b) < reach2;
          }
          // Near the box, the candidate must also be within reach of one of its four parts.
          if (take) {
            float nearest = distanceToBox2(xs, subCenter[0], subHalf[0], b);
            for (int g = 1; g < kSubBoxes; ++g) nearest = fminf(nearest, distanceToBox2(xs, subCenter[g], subHalf[g], b));
            take = nearest < reach2;
          }
          const unsigned mask = __ballot_sync(kFull, take);
          if (take) buf[held + __popc(mask & ((1u << lane) - 1))] = s;
          held += __popc(mask);
          __syncwarp();
          if (held >= 32) {
            emitTile(t, block, false, buf[lane], lane);
            __syncwarp();
            if (lane < held - 32) buf[lane] = buf[lane + 32];
            held -= 32;
            __syncwarp();
          }
        }
      }
    }
  }
  if (held > 0) emitTile(t, block, false, lane < held ? buf[lane] : kNoAtom, lane);
}

}  // namespace

CudaTileList::CudaTileList(const TileListParams& params, int n, const Box& box,
                           const std::vector<int>& exclusionOffsets, const std::vector<int>& exclusions)
    : params_(params), n_(n), blocks_((n + 31) / 32), box_(box), hasExclusions_(!exclusions.empty()) {
  if (n < 1) throw Error("tile list: no atoms");
  const double reach = params.cutoff + params.buffer;
  const Vec3 L = box.lengths();
  // Cells per edge: the power of 2 (at most 1024) nearest to edge / reach, so a cell's edge
  // lies within a factor sqrt(2) of the reach (the scan's cost, cells visited plus candidates,
  // is least near edge = reach). Powers of 2 make the key a Morton code of one uniform fine
  // grid, whose runs of 32 atoms are compact (random liquid, 32k atoms: largest block extent
  // 1.26 nm in the median, against 1.93 nm with 9 cells per edge).
  long long total = 1;
  for (int d = 0; d < 3; ++d) {
    const double ideal = std::max(1.0, L[d] / reach);
    nCells_[d] = std::clamp(1 << int(std::lround(std::log2(ideal))), 1, 1024);
    while (L[d] / nCells_[d] < 0.5 * reach && nCells_[d] > 1) nCells_[d] /= 2;
    total *= nCells_[d];
  }
  // Sparse boxes: no more cells than the atoms need (larger cells only cost candidates).
  const long long limit = std::max<long long>(8LL * n, 512);
  while (total > limit) {
    int d = 0;
    for (int e = 1; e < 3; ++e)
      if (nCells_[e] > nCells_[d]) d = e;
    nCells_[d] /= 2;
    total /= 2;
  }
  keys_ = DeviceBuffer<unsigned long long>("tile list sort keys", n);
  sortedKeys_ = DeviceBuffer<unsigned long long>("tile list sorted keys", n);
  slots_ = DeviceBuffer<int>("tile list slots", n);
  sortedSlots_ = DeviceBuffer<int>("tile list sorted slots", n);
  FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortTempBytes_, keys_.data(), sortedKeys_.data(),
                                                      slots_.data(), sortedSlots_.data(), n, 0, 63));
  sortTemp_ = DeviceBuffer<unsigned char>("tile list sort scratch", std::max<std::size_t>(sortTempBytes_, 1));
  cellOfSlot_ = DeviceBuffer<int>("tile list cell of slot", n);
  cellRange_ = DeviceBuffer<int2>("tile list cell ranges", std::size_t(total));
  boxCenter_ = DeviceBuffer<float4>("tile list block centers", blocks_);
  boxHalf_ = DeviceBuffer<float4>("tile list block extents", blocks_);
  counters_ = DeviceBuffer<TileCounters>("tile list counters", 1);
  info_ = DeviceBuffer<int>("tile list tiles", 0);
  lanes_ = DeviceBuffer<int>("tile list tile atoms", 0);
  exclusionIndex_ = DeviceBuffer<int>("tile list exclusion index", 0);
  masks_ = DeviceBuffer<std::uint32_t>("tile list exclusion masks", 0);
  counters_.zero();
  if (hasExclusions_) {
    if (exclusionOffsets.size() != std::size_t(n) + 1) throw Error("tile list: exclusion offsets need N + 1 entries");
    exclusionOffsets_.upload(exclusionOffsets);
    exclusions_.upload(exclusions);
  }
  // A first guess: the atoms within reach of a block's box, half of them in later blocks.
  const double density = n / box.volume();
  const double boxEdge = std::cbrt(32.0 / std::max(density, 1e-9));
  const double candidates = std::min(double(n), density * std::pow(boxEdge + 2 * reach, 3.0) * 0.5);
  reserve(int(std::min(1e9, blocks_ * (2.0 + candidates / 32.0))), hasExclusions_ ? blocks_ : 0);
}

void CudaTileList::allocateTiles(int capacity) {
  tileCapacity_ = capacity;
  // resize() frees the old storage before allocating the new.
  info_.resize(std::size_t(capacity));
  lanes_.resize(std::size_t(capacity) * 32);
  exclusionIndex_.resize(std::size_t(capacity));
}

void CudaTileList::reserve(int tiles, int exclusionTiles) {
  if (tiles > tileCapacity_) allocateTiles(tiles + tiles / 8 + 16);
  if (exclusionTiles > exclusionCapacity_) {
    exclusionCapacity_ = exclusionTiles + exclusionTiles / 8 + 16;
    masks_.resize(std::size_t(exclusionCapacity_) * 32);
  }
}

void CudaTileList::reserveExactlyForTesting(int tiles) { allocateTiles(tiles); }

std::size_t CudaTileList::deviceBytes() const {
  return keys_.bytes() + sortedKeys_.bytes() + slots_.bytes() + sortedSlots_.bytes() + sortTemp_.bytes() +
         cellOfSlot_.bytes() + cellRange_.bytes() + boxCenter_.bytes() + boxHalf_.bytes() + info_.bytes() +
         lanes_.bytes() + exclusionIndex_.bytes() + masks_.bytes() + exclusionOffsets_.bytes() + exclusions_.bytes();
}

void CudaTileList::enqueueSort(cudaStream_t stream, const double4_32a* ref) {
  const Vec3 L = box_.lengths();
  const CellGrid g{make_int3(nCells_[0], nCells_[1], nCells_[2]), make_double3(1 / L.x, 1 / L.y, 1 / L.z)};
  keysKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, ref, g, keys_.data(), slots_.data());
  FARADAY_CUDA_CHECK_LAUNCH("keysKernel");
  std::size_t bytes = sortTempBytes_;
  FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_.data(), bytes, keys_.data(), sortedKeys_.data(),
                                                      slots_.data(), sortedSlots_.data(), n_, 0, 63, stream));
}

void CudaTileList::enqueueBuild(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot,
                                const int* slotOfAtom) {
  const Vec3 L = box_.lengths();
  const CellGrid g{make_int3(nCells_[0], nCells_[1], nCells_[2]), make_double3(1 / L.x, 1 / L.y, 1 / L.z)};
  cellOfSlotKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, ref, g, cellOfSlot_.data());
  FARADAY_CUDA_CHECK_LAUNCH("cellOfSlotKernel");
  FARADAY_CUDA_CHECK(cudaMemsetAsync(cellRange_.data(), 0, cellRange_.bytes(), stream));
  cellRangeKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, cellOfSlot_.data(), cellRange_.data());
  FARADAY_CUDA_CHECK_LAUNCH("cellRangeKernel");
  boundsKernel<<<blocksFor(32LL * blocks_, kThreads), kThreads, 0, stream>>>(
      n_, blocks_, ref, make_double3(L.x, L.y, L.z), boxCenter_.data(), boxHalf_.data());
  FARADAY_CUDA_CHECK_LAUNCH("boundsKernel");
  // Only the per-build counts are cleared; the "needed" maxima stay for the host to read.
  FARADAY_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(int), stream));
  const BoxF b{make_float3(float(L.x), float(L.y), float(L.z)),
               make_float3(float(1 / L.x), float(1 / L.y), float(1 / L.z))};
  // Float rounding of the distances (~1e-6 of the box) must not drop a pair: a small margin.
  const float reach = float((params_.cutoff + params_.buffer) * (1 + 1e-5) + 1e-5);
  const TileStore t{tileCapacity_,        exclusionCapacity_,
                    info_.data(),         lanes_.data(),
                    exclusionIndex_.data(), masks_.data(),
                    counters_.data(),     hasExclusions_ ? exclusionOffsets_.data() : nullptr,
                    exclusions_.data(),   atomOfSlot,
                    slotOfAtom};
  tilesKernel<<<blocksFor(blocks_, kWarpsPerBlock), kThreads, 0, stream>>>(
      n_, blocks_, ref, boxCenter_.data(), boxHalf_.data(), cellRange_.data(),
      make_int3(nCells_[0], nCells_[1], nCells_[2]), b, reach * reach, reach, t);
  FARADAY_CUDA_CHECK_LAUNCH("tilesKernel");
}

HostTileList CudaTileList::toHost(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot) {
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  TileCounters c{};
  FARADAY_CUDA_CHECK(cudaMemcpy(&c, counters_.data(), sizeof c, cudaMemcpyDeviceToHost));
  if (c.tiles > tileCapacity_ || c.exclusionTiles > exclusionCapacity_)
    throw Error("tile list: the last build overflowed its storage");
  HostTileList h;
  h.atoms = n_;
  h.info.resize(c.tiles);
  h.lanes.resize(std::size_t(c.tiles) * 32);
  h.exclusionIndex.resize(c.tiles);
  h.exclusionMasks.resize(std::size_t(c.exclusionTiles) * 32);
  h.atomOfSlot.resize(n_);
  std::vector<double4_32a> r(n_);
  FARADAY_CUDA_CHECK(cudaMemcpy(h.info.data(), info_.data(), h.info.size() * sizeof(int), cudaMemcpyDeviceToHost));
  FARADAY_CUDA_CHECK(cudaMemcpy(h.lanes.data(), lanes_.data(), h.lanes.size() * sizeof(int), cudaMemcpyDeviceToHost));
  FARADAY_CUDA_CHECK(cudaMemcpy(h.exclusionIndex.data(), exclusionIndex_.data(), h.exclusionIndex.size() * sizeof(int),
                                cudaMemcpyDeviceToHost));
  if (!h.exclusionMasks.empty())
    FARADAY_CUDA_CHECK(cudaMemcpy(h.exclusionMasks.data(), masks_.data(), h.exclusionMasks.size() * 4,
                                  cudaMemcpyDeviceToHost));
  FARADAY_CUDA_CHECK(cudaMemcpy(h.atomOfSlot.data(), atomOfSlot, n_ * sizeof(int), cudaMemcpyDeviceToHost));
  FARADAY_CUDA_CHECK(cudaMemcpy(r.data(), ref, n_ * sizeof(double4_32a), cudaMemcpyDeviceToHost));
  h.slotPositions.resize(3 * std::size_t(n_));
  for (int s = 0; s < n_; ++s) {
    h.slotPositions[3 * s] = r[s].x;
    h.slotPositions[3 * s + 1] = r[s].y;
    h.slotPositions[3 * s + 2] = r[s].z;
  }
  return h;
}

}  // namespace faraday
