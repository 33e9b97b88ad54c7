// The tile search of the GPU tile list (see CudaTileSearch.cuh and CudaTileList.cu).
#include "kernels/neighbor/CudaTileSearch.cuh"

#include <climits>

#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"
#include "kernels/neighbor/CudaBoxImage.cuh"

namespace faraday {
namespace {

constexpr int kThreads = kTileListThreads;
constexpr int kWarpsPerBlock = kThreads / 32;
/// nm^2 added to R^2 in the tile search's expanded near test (its float rounding: a few 1e-6
/// for offsets up to 3 nm from the block's centre; R grows by under 1e-5 nm).
constexpr float kNearMargin2 = 2e-5f;
constexpr unsigned kFull = 0xffffffffu;

__device__ float minimumImage(float d, float length, float invLength) { return d - length * rintf(d * invLength); }

/// x (nm, unwrapped: it may lie far outside the box) from the box center c by minimum
/// image, taken in double before the rounding to float (float(x) alone loses ~1e-3 nm at
/// |x| ~ 10^4 nm).
__device__ float3 offsetFrom(const double4_32a& x, float4 c, const TileListBox& b) {
  double dx = x.x - double(c.x), dy = x.y - double(c.y), dz = x.z - double(c.z);
  boxImageInv(b, dx, dy, dz);
  return make_float3(float(dx), float(dy), float(dz));
}

/// Per slot, the blocks its excluded partners sit in, first and last (an empty range when it
/// has none): most tiles pair blocks far apart, and their masks then need no look-up.
__global__ void exclusionBlocksKernel(int n, const int* __restrict__ offsets, const int* __restrict__ exclusions,
                                      const int* __restrict__ atomOfSlot, const int* __restrict__ slotOfAtom,
                                      int2* __restrict__ blocks) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int a = atomOfSlot[s];
  int lo = INT_MAX, hi = -1;
  for (int k = offsets[a]; k < offsets[a + 1]; ++k) {
    const int b = slotOfAtom[exclusions[k]] >> 5;
    lo = min(lo, b), hi = max(hi, b);
  }
  blocks[s] = make_int2(lo, hi);
}

/// Bit k of the mask of lane `slot` (a slot or kNoAtom): atom 32 block + k is excluded with it.
__device__ std::uint32_t exclusionMask(const TileStore& t, int block, int slot) {
  std::uint32_t m = 0;
  if (slot == kNoAtom) return m;
  const int2 range = t.exclusionBlocks[slot];
  if (block < range.x || block > range.y) return m;
  const int a = t.atomOfSlot[slot];
  for (int k = t.exclusionOffsets[a]; k < t.exclusionOffsets[a + 1]; ++k) {
    const int other = t.slotOfAtom[t.exclusions[k]];
    if ((other >> 5) == block) m |= 1u << (other & 31);
  }
  return m;
}

/// Writes one tile of block `block` whose lane l holds `slot` (kNoAtom: empty). Whole warp.
/// A tile beyond the capacity is counted, not written, and so is its exclusion-mask tile: the
/// host then grows both to the counts and builds again once.
__device__ void emitTile(const TileStore& t, int block, bool diagonal, int slot, int lane) {
  int tile = 0;
  if (lane == 0) tile = atomicAdd(&t.counters->tiles, 1);
  tile = __shfl_sync(kFull, tile, 0);
  const bool stored = tile < t.capacity;
  if (stored) {
    if (lane == 0) t.info[tile] = 2 * block + (diagonal ? 1 : 0);
    t.lanes[std::size_t(tile) * 32 + lane] = slot;
  }
  int index = -1;
  if (t.exclusionOffsets) {
    const std::uint32_t m = exclusionMask(t, block, slot);
    if (__any_sync(kFull, m != 0)) {
      if (lane == 0) index = atomicAdd(&t.counters->exclusionTiles, 1);
      index = __shfl_sync(kFull, index, 0);
      if (stored && index < t.exclusionCapacity) t.masks[std::size_t(index) * 32 + lane] = m;
      else index = -1;
    }
  }
  if (stored && lane == 0) t.exclusionIndex[tile] = index;
}

/// After a pass appended to a warp's buffer (`held` slots, below 64): a tile of the first 32
/// once there are 32, the rest moved down. Whole warp.
__device__ void emitFullTile(const TileStore& t, int block, int* buf, int& held, int lane) {
  __syncwarp();
  if (held < 32) return;
  emitTile(t, block, false, buf[lane], lane);
  __syncwarp();
  if (lane < held - 32) buf[lane] = buf[lane + 32];
  held -= 32;
  __syncwarp();
}

/// Gap (nm, >= 0) along one dimension between the box [c - h, c + h] and cell k of edge
/// `edge`, by minimum image.
__device__ float gapToCell(float c, float h, int k, float edge, float length, float invLength) {
  const float d = fabsf(minimumImage((float(k) + 0.5f) * edge - c, length, invLength));
  return fmaxf(d - 0.5f * edge - h, 0.f);
}


/// The gap (nm^2, summed over the dimensions) between the box [c - h, c + h] and cell
/// (kx, ky, kz) of edges `edge` in a triclinic box: the cell's centre is taken to the image
/// nearest c by the c, b, a shifts, which is its true image whenever a point of the cell lies
/// within `reach` of the box and reach + edge/2 + h stays below half the diagonal element
/// (`wide` otherwise: the gap is then taken as zero, so the cell is scanned).
__device__ float triclinicCellGap2(float4 c, float4 h, int kx, int ky, int kz, float3 edge, const TileListBox& b,
                                   bool wide) {
  if (wide) return 0.f;
  const float3 d = boxImageF(b, make_float3((float(kx) + 0.5f) * edge.x - c.x, (float(ky) + 0.5f) * edge.y - c.y,
                                            (float(kz) + 0.5f) * edge.z - c.z));
  const float gx = fmaxf(fabsf(d.x) - 0.5f * edge.x - h.x, 0.f);
  const float gy = fmaxf(fabsf(d.y) - 0.5f * edge.y - h.y, 0.f);
  const float gz = fmaxf(fabsf(d.z) - 0.5f * edge.z - h.z, 0.f);
  return gx * gx + gy * gy + gz * gz;
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

/// The cells around block I's box that the search scans: per dimension [first, first + count)
/// (wrapped), the cells' edges, and the square of the reach a cell's gap must stay below. In a
/// triclinic box first.z is unwrapped, and the first cells in y and x depend on the shift
/// class of the cell's z (and y) index (laneCellRun): `reach` is the box's half extent plus
/// the cell reach.
struct BlockSpan {
  int3 first, count;
  float3 cellEdge;
  float3 reach;
  float cellReach2;
  int laterSlots;  ///< candidates must be in later blocks: slots from here
  bool wide;       ///< triclinic: a cell's gap cannot be told from its centre's image (every cell scanned)
};

/// The number of cells of edge `edge` that an interval of length 2r can touch at any offset
/// (all `cells` at most).
__device__ __forceinline__ int cellsTouched(float r, float edge, int cells) {
  return min(cells, int(2.f * r / edge) + 2);
}

/// floor(k / n) for n > 0.
__device__ __forceinline__ int floorDiv(int k, int n) { return k >= 0 ? k / n : -((n - 1 - k) / n); }

__device__ __forceinline__ BlockSpan blockSpan(float4 c, float4 h, int3 cells, const TileListBox& b, float cellReach,
                                               int block) {
  BlockSpan span;
  span.cellEdge = make_float3(b.length.x / cells.x, b.length.y / cells.y, b.length.z / cells.z);
  span.wide = false;
  if (b.triclinic) {
    // A cell whose z index is shifted by s_z (unwrapped) holds atoms whose images near the box
    // are moved by s_z c; along y by s_y b. The x and y spans keep their counts and move with
    // the shift class (laneCellRun); where a span covers a whole dimension the classes are
    // ambiguous and the dimensions within it are scanned whole. A margin of 1e-3 of a cell
    // covers the float rounding of an atom's cell at the box's faces.
    const float3 e = span.cellEdge;
    span.reach = make_float3(h.x + cellReach + 1e-3f * e.x, h.y + cellReach + 1e-3f * e.y,
                             h.z + cellReach + 1e-3f * e.z);
    span.count.z = cellsTouched(span.reach.z, e.z, cells.z);
    span.first.z = span.count.z == cells.z ? 0 : int(floorf((c.z - span.reach.z) / e.z));
    span.count.y = span.count.z == cells.z ? cells.y : cellsTouched(span.reach.y, e.y, cells.y);
    span.count.x = span.count.y == cells.y ? cells.x : cellsTouched(span.reach.x, e.x, cells.x);
    span.first.x = span.first.y = 0;
    span.wide = 2.f * (cellReach + 0.5f * e.x + h.x) >= b.length.x || 2.f * (cellReach + 0.5f * e.y + h.y) >= b.length.y ||
                2.f * (cellReach + 0.5f * e.z + h.z) >= b.length.z;
  } else {
    cellSpan(c.x, h.x + cellReach, b.length.x, cells.x, span.first.x, span.count.x);
    cellSpan(c.y, h.y + cellReach, b.length.y, cells.y, span.first.y, span.count.y);
    cellSpan(c.z, h.z + cellReach, b.length.z, cells.z, span.first.z, span.count.z);
  }
  span.cellReach2 = cellReach * cellReach;
  span.laterSlots = (block + 1) * 32;
  return span;
}

/// Cell (cx, cy, cz) of lane index (ix, iy, iz) in a triclinic box's span.
__device__ __forceinline__ int3 triclinicSpanCell(const BlockSpan& span, int ix, int iy, int iz, float4 c, int3 cells,
                                                  const TileListBox& b) {
  const float3 e = span.cellEdge;
  const int3 count = span.count;
  const int kz = span.first.z + iz;
  const int sz = count.z == cells.z ? 0 : floorDiv(kz, cells.z);
  const int ky = count.y == cells.y ? iy : int(floorf((c.y - span.reach.y - float(sz) * b.tilt.z) / e.y)) + iy;
  const int sy = count.y == cells.y ? 0 : floorDiv(ky, cells.y);
  const int kx = count.x == cells.x
                     ? ix
                     : int(floorf((c.x - span.reach.x - float(sz) * b.tilt.y - float(sy) * b.tilt.x) / e.x)) + ix;
  return make_int3(kx - floorDiv(kx, cells.x) * cells.x, ky - sy * cells.y, kz - sz * cells.z);
}

/// Cell q of the span (x, then y, then z): its run of candidate slots [start, start + size),
/// left empty where the cell's gap to the box [c - h, c + h] is beyond the reach.
__device__ __forceinline__ void laneCellRun(const BlockSpan& span, int q, float4 c, float4 h, int3 cells,
                                            const TileListBox& b, const int2* __restrict__ range, int& start,
                                            int& size) {
  const int3 first = span.first, count = span.count;
  const float3 cellEdge = span.cellEdge;
  const int iz = q % count.z, iy = (q / count.z) % count.y, ix = q / (count.z * count.y);
  int cx, cy, cz;
  float gap2;
  if (b.triclinic) {
    const int3 k = triclinicSpanCell(span, ix, iy, iz, c, cells, b);
    cx = k.x, cy = k.y, cz = k.z;
    gap2 = triclinicCellGap2(c, h, cx, cy, cz, cellEdge, b, span.wide);
  } else {
    cx = (first.x + ix) % cells.x, cy = (first.y + iy) % cells.y, cz = (first.z + iz) % cells.z;
    const float gx = gapToCell(c.x, h.x, cx, cellEdge.x, b.length.x, b.invLength.x);
    const float gy = gapToCell(c.y, h.y, cy, cellEdge.y, b.length.y, b.invLength.y);
    const float gz = gapToCell(c.z, h.z, cz, cellEdge.z, b.length.z, b.invLength.z);
    gap2 = gx * gx + gy * gy + gz * gz;
  }
  if (gap2 < span.cellReach2) {
    const int2 r = range[(cx * cells.y + cy) * cells.z + cz];
    start = max(r.x, span.laterSlots);
    size = max(r.y - start, 0);
  }
}

/// Whether a candidate at d (from the box's center, minimum image) near block I's box lies
/// within reach of one of I's atoms `a` (their offsets from the box center in shared memory,
/// each load the same address for the whole warp). Called by the lanes whose candidate is near
/// the box.
__device__ __forceinline__ bool nearAnAtomOfI(const float4* a, float3 d, bool wrapPairs, const TileListBox& b,
                                              float reach2) {
  bool near = false;
  if (!wrapPairs) {
    // Eight atoms at a time, stopping once every lane has found one near (dense systems
    // usually do within the first eight). |d - a|^2 < R^2 as d.a - (|a|^2 - R^2)/2 >
    // |d|^2/2: three multiply-adds and a compare per atom instead of seven operations.
    // |d|^2 in a fixed order of roundings (x^2 + y^2 fused, then z^2): which atoms are listed
    // must not follow the compiler's choice of which product to fuse.
    const float halfD2 = 0.5f * __fmaf_rn(d.z, d.z, __fmaf_rn(d.x, d.x, __fmul_rn(d.y, d.y)));
    for (int i0 = 0; i0 < 32; i0 += 8) {
#pragma unroll
      for (int i = i0; i < i0 + 8; ++i) {
        const float4 p = a[i];
        near |= d.x * p.x + (d.y * p.y + (d.z * p.z - p.w)) > halfD2;
      }
      if (__all_sync(__activemask(), near)) break;
    }
  } else {
    if (b.triclinic) {
#pragma unroll 4
      for (int i = 0; i < 32; ++i) {
        const float4 p = a[i];
        const float3 u = boxImageF(b, make_float3(d.x - p.x, d.y - p.y, d.z - p.z));
        near |= u.x * u.x + u.y * u.y + u.z * u.z < reach2;
      }
      return near;
    }
#pragma unroll 4
    for (int i = 0; i < 32; ++i) {
      const float4 p = a[i];
      const float ux = minimumImage(d.x - p.x, b.length.x, b.invLength.x),
                  uy = minimumImage(d.y - p.y, b.length.y, b.invLength.y),
                  uz = minimumImage(d.z - p.z, b.length.z, b.invLength.z);
      near |= ux * ux + uy * uy + uz * uz < reach2;
    }
  }
  return near;
}

/// The end of a block's search by one warp: its last tile, or (a shared search) the part's last
/// candidates (fewer than 32) for leftoversKernel, which packs those of the block's parts into
/// full tiles: sharing a block among warps costs no tile.
__device__ __forceinline__ void finishSearch(const TileStore& t, int block, int parts, int part, const int* buf,
                                             int held, int lane, int* __restrict__ leftover) {
  if (parts == 1) {
    if (held > 0) emitTile(t, block, false, lane < held ? buf[lane] : kNoAtom, lane);
  } else {
    int* mine = leftover + (std::size_t(block) * parts + part) * 33;
    if (lane < held) mine[1 + lane] = buf[lane];
    if (lane == 0) mine[0] = held;
  }
}

/// One warp per block I, in two levels:
///  - cells: 32 at a time, one per lane, from the span around I's box (x, then y, then z);
///    a cell whose gap to the box exceeds the reach contributes no candidate, the others
///    their slots after block I. A warp prefix sum lays those runs end to end.
///  - candidates: 32 at a time from the runs (each lane finds its run by a binary search over
///    the prefix sums), so every pass is full whatever the cells hold. A candidate within
///    reach of I's box is then tested against each atom of I (their offsets from the box
///    center in shared memory): it is kept when one is within reach.
/// Candidates are taken in a fixed order (cells, then slots), so the tiles' contents are fixed.
/// With slot groups a member sits in its anchor's cell, up to *groupReach from it: the cells
/// are scanned to reach + *groupReach (the candidates' own tests stay at reach).
/// Systems of fewer blocks than the GPU wants warps: there `parts` warps share a block I,
/// part p taking the passes of 32 candidates numbered p, p + parts, ... (and part 0 the
/// diagonal tile), each emitting its full tiles and leaving its last candidates to
/// leftoversKernel.
__global__ void __launch_bounds__(kThreads) tilesKernel(int n, int blocks, int parts, const double4_32a* __restrict__ ref,
                                                       const float4* __restrict__ center, const float4* __restrict__ half,
                                                       const int2* __restrict__ range, int3 cells, const TileListBox* __restrict__ box, float reach2,
                                                       float reach, const unsigned* __restrict__ groupReach, WorkShare share,
                                                       TileStore t, int* __restrict__ leftover) {
  __shared__ int buffer[kWarpsPerBlock][64];
  __shared__ float4 atomsOfI[kWarpsPerBlock][32];
  const int warpInBlock = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int warp = blockIdx.x * kWarpsPerBlock + warpInBlock;
  const int block = warp / parts, part = warp % parts;
  // Two members of a group lie within twice the group's reach: that must stay below the
  // list's reach for their pair (excluded, its correction in the tile kernel) to be listed.
  if (warp == 0 && lane == 0 && groupReach && !(2.f * __uint_as_float(*groupReach) < reach))
    atomicMax(&t.counters->groupsTooWide, 1);
  if (block >= blocks || !share.ownsBlock(block)) return;  // a whole warp
  const TileListBox b = *box;
  int* buf = buffer[warpInBlock];
  const int own = block * 32 + lane;
  if (part == 0) emitTile(t, block, true, own < n ? own : kNoAtom, lane);

  const float4 c = center[block], h = half[block];
  // The expanded near test below cancels terms of up to (R + 2h)^2: its rounding (a few
  // 1e-7 of that) is covered by a margin of kNearMargin2 on R^2, so the test only ever keeps
  // more, never fewer, of the atoms within R.
  const float nearReach2 = reach2 + kNearMargin2;
  // I's atoms from the box's center by minimum image (empty slots repeat the first), each
  // with w = (|a|^2 - R^2) / 2 for the near test's expanded form below.
  {
    const float3 a = offsetFrom(ref[own < n ? own : block * 32], c, b);
    atomsOfI[warpInBlock][lane] = make_float4(a.x, a.y, a.z, 0.5f * (a.x * a.x + a.y * a.y + a.z * a.z - nearReach2));
    __syncwarp();
  }
  // A candidate within reach of the box lies within reach + 2h of each atom of I along each
  // edge; where that is at most half the edge, the plain difference is the minimum image.
  const bool wrapPairs = 2.f * (reach + 2.f * h.x) > b.length.x || 2.f * (reach + 2.f * h.y) > b.length.y ||
                         2.f * (reach + 2.f * h.z) > b.length.z;
  const float cellReach = groupReach ? reach + __uint_as_float(*groupReach) : reach;
  const BlockSpan span = blockSpan(c, h, cells, b, cellReach, block);
  const int spanCells = span.count.x * span.count.y * span.count.z;
  int held = 0;
  int pass = 0;  // passes of 32 candidates over the whole span, counted for the parts
  for (int cellBase = 0; cellBase < spanCells; cellBase += 32) {
    // This lane's cell: its run of candidate slots [start, start + size).
    int start = 0, size = 0;
    const int q = cellBase + lane;
    if (q < spanCells) laneCellRun(span, q, c, h, cells, b, range, start, size);
    int end = size;  // inclusive prefix sum of the run sizes
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int v = __shfl_up_sync(kFull, end, o);
      if (lane >= o) end += v;
    }
    const int total = __shfl_sync(kFull, end, 31);
    const int slotBase = start - (end - size);  // slot of candidate k of this run: slotBase + k
    for (int base = 0; base < total; base += 32) {
      if (pass++ % parts != part) continue;
      const int k = base + lane;
      // The run holding candidate k: the number of runs that end at or before it.
      int run = 0;
#pragma unroll
      for (int step = 16; step > 0; step >>= 1)
        if (__shfl_sync(kFull, end, run + step - 1) <= k) run += step;
      const int s = __shfl_sync(kFull, slotBase, min(run, 31)) + k;
      bool take = false;
      float3 d = make_float3(0.f, 0.f, 0.f);  // the candidate from the box's center, minimum image
      if (k < total) {
        d = offsetFrom(ref[s], c, b);
        const float ex = fmaxf(fabsf(d.x) - h.x, 0.f), ey = fmaxf(fabsf(d.y) - h.y, 0.f),
                    ez = fmaxf(fabsf(d.z) - h.z, 0.f);
        // In a triclinic box with wide blocks d may be another image than the one nearest the
        // box: the atoms' own tests (by minimum image per pair there) decide alone.
        take = ex * ex + ey * ey + ez * ez < reach2 || (wrapPairs && b.triclinic);
      }
      bool near = false;
      if (__any_sync(kFull, take) && take) near = nearAnAtomOfI(atomsOfI[warpInBlock], d, wrapPairs, b, reach2);
      const unsigned mask = __ballot_sync(kFull, near);
      if (near) buf[held + __popc(mask & ((1u << lane) - 1))] = s;
      held += __popc(mask);
      emitFullTile(t, block, buf, held, lane);
    }
  }
  finishSearch(t, block, parts, part, buf, held, lane, leftover);
}

/// One warp per block I of a shared search: the parts' last candidates, in part order, into
/// tiles (full ones, then one partial), so the block has the tiles of an unshared search but
/// one at most.
__global__ void __launch_bounds__(kThreads) leftoversKernel(int blocks, int parts, WorkShare share, TileStore t,
                                                           const int* __restrict__ leftover) {
  __shared__ int buffer[kWarpsPerBlock][64];
  const int warpInBlock = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int block = blockIdx.x * kWarpsPerBlock + warpInBlock;
  if (block >= blocks || !share.ownsBlock(block)) return;  // a whole warp
  int* buf = buffer[warpInBlock];
  int held = 0;
  for (int part = 0; part < parts; ++part) {
    const int* from = leftover + (std::size_t(block) * parts + part) * 33;
    const int count = from[0];
    if (lane < count) buf[held + lane] = from[1 + lane];
    held += count;
    emitFullTile(t, block, buf, held, lane);
  }
  if (held > 0) emitTile(t, block, false, lane < held ? buf[lane] : kNoAtom, lane);
}

}  // namespace

void launchTileSearch(cudaStream_t stream, const TileSearch& s, const WorkShare& share, const TileStore& t) {
  if (t.exclusionOffsets) {
    exclusionBlocksKernel<<<blocksFor(s.n, kThreads), kThreads, 0, stream>>>(
        s.n, t.exclusionOffsets, t.exclusions, t.atomOfSlot, t.slotOfAtom, s.exclusionBlocks);
    FARADAY_CUDA_CHECK_LAUNCH("exclusionBlocksKernel");
  }
  // Warps for every block, several for each where blocks are few (at least ~4 per SM scheduler).
  tilesKernel<<<blocksFor((long long)s.blocks * s.parts, kWarpsPerBlock), kThreads, 0, stream>>>(
      s.n, s.blocks, s.parts, s.ref, s.center, s.half, s.range, s.cells, s.box, s.reach * s.reach, s.reach,
      s.groupReach, share, t, s.leftover);
  FARADAY_CUDA_CHECK_LAUNCH("tilesKernel");
  if (s.parts > 1) {
    leftoversKernel<<<blocksFor(s.blocks, kWarpsPerBlock), kThreads, 0, stream>>>(s.blocks, s.parts, share, t,
                                                                                   s.leftover);
    FARADAY_CUDA_CHECK_LAUNCH("leftoversKernel");
  }
}

}  // namespace faraday
