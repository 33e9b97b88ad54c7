// The GPU tile list, in four steps (see TileList.h for what the list holds):
//   sort    per slot a key: the atom's index along a Hilbert curve through a uniform fine
//           grid (the cells, a power of 2 per box edge with edge within sqrt(2) of cutoff +
//           buffer, each cut into 2^kSubCellBits = 32 sub-cells per edge, fewer where the
//           64-bit key has no room); CUB radix sort of (key, slot)
//           over the key's significant bits. The keys depend on the positions alone, so the
//           order (and with it every sum of the force kernels) does not depend on the
//           input's order. With slot groups (SlotGroups.h) a member takes its anchor's
//           position and, below it, its rank: a group's atoms take consecutive slots.
//   cells   each cell's range of slots, from the sorted keys (a member in its anchor's cell;
//           the largest member-anchor distance widens the scan's reach)
//   bounds  one warp per block of 32 slots: its bounding box (minimum image around its
//           first atom)
//   tiles   (CudaTileSearch.cu) one warp per block I (of this GPU's share, WorkShare): its
//           diagonal tile, then the
//           candidates (slots in later blocks, in the cells whose gap to I's box is within
//           cutoff + buffer), 32 at a time; a candidate within cutoff + buffer of I's box
//           and of one of I's atoms is appended (ballot and prefix count), and every 32
//           appended atoms make a tile. Where the blocks are fewer than the GPU wants
//           warps, several warps share a block's candidates and a second kernel packs their
//           last (partial) runs into tiles, so the block gets no more tiles than from one warp
//           but one.
//           Tile slots come from an integer counter: the order of the tiles varies, their
//           contents do not. A count beyond the capacity is recorded (TileCounters), never
//           written.
#include <cub/cub.cuh>

#include <algorithm>
#include <climits>
#include <cmath>

#include "core/Error.h"
#include "kernels/common/CudaCheck.h"
#include "kernels/common/Launch.h"
#include "kernels/neighbor/CudaBoxImage.cuh"
#include "kernels/neighbor/CudaTileList.h"
#include "kernels/neighbor/CudaTileSearch.cuh"

namespace faraday {
namespace {

constexpr int kThreads = kTileListThreads;
/// Sub-cell levels per cell edge in the sort keys: a sub-cell's diagonal stays below the
/// closest approach of two keyed atoms, and more levels only add radix passes (NOTES.md).
constexpr int kSubCellBits = 5;
/// Warps the tile search wants at least (an H100 holds 132 SMs x 40 of these warps, by their
/// registers; two waves): a system of fewer blocks shares each block among several warps.
constexpr int kSearchWarps = 10560;
constexpr int kMaxParts = 8;
/// Atoms per cell above which the cells get finer (see the constructor).
constexpr double kAtomsPerCell = 64;
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
  int3 n;                 ///< cells per dimension
  const TileListBox* box;  ///< the box, in device memory
};

/// Cell and sub-cell of a position along one dimension.
__device__ void cellOf(double x, double invLength, int cells, int& cell, int& sub) {
  double f = x * invLength;
  f -= floor(f);
  const double u = f * double(cells);
  cell = min(max(int(u), 0), cells - 1);
  sub = min(max(int((u - double(cell)) * double(1 << kSubCellBits)), 0), (1 << kSubCellBits) - 1);
}

/// The slot groups as the kernels read them (anchor null: none).
struct GroupView {
  const int* anchor;      ///< per atom: the atom whose position places it
  const int* rank;        ///< per atom: 0 for an anchor, 1.. for its members
  const int* atomOfSlot;
  const int* slotOfAtom;
};

GroupView groupView(const DeviceBuffer<int>& anchor, const DeviceBuffer<int>& rank, bool grouped, const int* atomOfSlot,
                    const int* slotOfAtom) {
  return GroupView{grouped ? anchor.data() : nullptr, rank.data(), atomOfSlot, slotOfAtom};
}

/// The slot whose reference position places slot s in the sort and the cells: its anchor's.
__device__ __forceinline__ int placingSlot(const GroupView& v, int s) {
  return v.anchor ? v.slotOfAtom[v.anchor[v.atomOfSlot[s]]] : s;
}

/// The cells of the brick [0, a_x) x [0, b_y) x [0, c_z): r is first shifted by c and b as
/// the wrap into the brick does (nothing in a rectangular box), then each coordinate taken
/// modulo its diagonal element.
__device__ void cellsOf(const double4_32a& r, const CellGrid& g, int c[3], int f[3]) {
  const double3 inv = g.box->invLengthD;
  const double3 t = g.box->tiltD;
  const double sz = floor(r.z * inv.z);
  const double y = r.y - t.z * sz;
  const double x = r.x - t.y * sz - t.x * floor(y * inv.y);
  cellOf(x, inv.x, g.n.x, c[0], f[0]);
  cellOf(y, inv.y, g.n.y, c[1], f[1]);
  cellOf(r.z, inv.z, g.n.z, c[2], f[2]);
}

/// The Hilbert index of the point x (each coordinate below 2^bits) as its "transpose": after
/// the call, interleaving the bits of x[0], x[1], x[2] (x[0] most significant) gives the
/// index (J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004).
__device__ void hilbertTranspose(unsigned x[3], int bits) {
  const unsigned top = 1u << (bits - 1);
  for (unsigned q = top; q > 1; q >>= 1) {  // undo the excess work
    const unsigned p = q - 1;
    for (int i = 0; i < 3; ++i) {
      if (x[i] & q) {
        x[0] ^= p;  // invert
      } else {      // exchange
        const unsigned t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  x[1] ^= x[0];  // Gray encode
  x[2] ^= x[1];
  unsigned t = 0;
  for (unsigned q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  for (int i = 0; i < 3; ++i) x[i] ^= t;
}

/// Keys along a Hilbert curve through the fine grid (2^kSubCellBits sub-cells per cell edge):
/// consecutive sub-cells are neighbours, so a run of 32 atoms is compact (a Morton curve
/// jumps across the box between octants, and the blocks that straddle such a jump reach
/// most of the box). Every cell is an aligned sub-cube of the fine grid, so its atoms stay
/// contiguous. `bits` per dimension: the cells' and the sub-cells' (`subBits`, at most
/// kSubCellBits); with groups the rank below them.
__global__ void keysKernel(int n, const double4_32a* __restrict__ ref, CellGrid g, int bits, int subBits, GroupView v,
                           unsigned long long* __restrict__ keys, int* __restrict__ slots) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  int c[3], f[3];
  cellsOf(ref[placingSlot(v, s)], g, c, f);
  unsigned x[3];
  for (int d = 0; d < 3; ++d) x[d] = unsigned(c[d]) << subBits | unsigned(f[d]) >> (kSubCellBits - subBits);
  hilbertTranspose(x, bits);
  unsigned long long key = morton3(x[0], x[1], x[2]);
  if (v.anchor) key = key << SlotGroups::kRankBits | unsigned(v.rank[v.atomOfSlot[s]]);
  keys[s] = key;
  slots[s] = s;
}

/// Each slot's cell (a member's is its anchor's); with groups, the largest member-anchor
/// distance (minimum image, rounded up to float) into *groupReach as its bits (a float >= 0
/// orders as its bits): the maximum, so the same whatever the order.
__global__ void cellOfSlotKernel(int n, const double4_32a* __restrict__ ref, CellGrid g, GroupView v,
                                 int* __restrict__ cellOfSlot, unsigned* __restrict__ groupReach) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned reach = 0;
  if (s < n) {
    const int p = placingSlot(v, s);
    int c[3], f[3];
    cellsOf(ref[p], g, c, f);
    cellOfSlot[s] = (c[0] * g.n.y + c[1]) * g.n.z + c[2];
    if (p != s) {
      const double4_32a a = ref[p], r = ref[s];
      double dx = r.x - a.x, dy = r.y - a.y, dz = r.z - a.z;
      boxImage(*g.box, dx, dy, dz);
      reach = __float_as_uint(__double2float_ru(sqrt(dx * dx + dy * dy + dz * dz)));
    }
  }
  if (v.anchor) {
    reach = __reduce_max_sync(kFull, reach);
    if ((threadIdx.x & 31) == 0 && reach != 0) atomicMax(groupReach, reach);
  }
}

/// Cell ranges [start, end) of slots; the ranges were zeroed (empty) before.
__global__ void cellRangeKernel(int n, const int* __restrict__ cellOfSlot, int2* __restrict__ range) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const int c = cellOfSlot[s];
  if (s == 0 || cellOfSlot[s - 1] != c) range[c].x = s;
  if (s == n - 1 || cellOfSlot[s + 1] != c) range[c].y = s + 1;
}

/// One warp per block: bounding box of its atoms, around the first atom by minimum image
/// (in double, then rounded outwards to float).
__global__ void boundsKernel(int n, int blocks, const double4_32a* __restrict__ ref, const TileListBox* __restrict__ box,
                             float4* __restrict__ center, float4* __restrict__ half) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= blocks) return;
  const int s = warp * 32 + lane;
  const TileListBox b = *box;
  const double4_32a r0 = ref[warp * 32];
  double3 p = make_double3(r0.x, r0.y, r0.z);
  if (s < n) {
    // r0 + (r - r0) moved by the shifts of boxImage(): c, then b, then a.
    const double4_32a r = ref[s];
    const double dx = r.x - r0.x, dy = r.y - r0.y, dz = r.z - r0.z;
    const double sz = rint(dz / b.lengthD.z);
    const double ey = dy - b.tiltD.z * sz;
    const double sy = rint(ey / b.lengthD.y);
    const double sx = rint((dx - b.tiltD.y * sz - b.tiltD.x * sy) / b.lengthD.x);
    p.x = r0.x + dx - b.tiltD.y * sz - b.tiltD.x * sy - b.lengthD.x * sx;
    p.y = r0.y + dy - b.tiltD.z * sz - b.lengthD.y * sy;
    p.z = r0.z + dz - b.lengthD.z * sz;
  }
  double lo[3] = {p.x, p.y, p.z}, hi[3] = {p.x, p.y, p.z};
  for (int o = 16; o > 0; o >>= 1)
    for (int d = 0; d < 3; ++d) {
      lo[d] = fmin(lo[d], __shfl_xor_sync(kFull, lo[d], o));
      hi[d] = fmax(hi[d], __shfl_xor_sync(kFull, hi[d], o));
    }
  if (lane == 0) {
    const double L[3] = {b.lengthD.x, b.lengthD.y, b.lengthD.z};
    double mid[3];
    for (int d = 0; d < 3; ++d) mid[d] = 0.5 * (lo[d] + hi[d]);
    boxWrap(b, mid[0], mid[1], mid[2]);
    float c[3], h[3];
    for (int d = 0; d < 3; ++d) {
      c[d] = float(mid[d]);
      // Outwards: the float center may sit off by half an ulp of L.
      h[d] = float(0.5 * (hi[d] - lo[d]) + 1e-6 * L[d]);
    }
    center[warp] = make_float4(c[0], c[1], c[2], 0.f);
    half[warp] = make_float4(h[0], h[1], h[2], 0.f);
  }
}

/// The cells of the sort and the scan, per edge into `cells`; returns their number.
long long chooseCells(int n, const Box& box, double reach, int cells[3]) {
  const Vec3 L = box.diagonal();
  // Cells per edge: the power of 2 (at most 1024) nearest to edge / reach, so a cell's edge
  // lies within a factor sqrt(2) of the reach (the scan's cost, cells visited plus candidates,
  // is least near edge = reach). Powers of 2 make every cell an aligned sub-cube of one uniform
  // fine grid, along whose Hilbert curve runs of 32 atoms are compact (random liquid, 32k
  // atoms: largest block extent 1.26 nm in the median, against 1.93 nm with 9 cells per edge).
  // Dense systems (water: ~100 atoms/nm^3, 240 atoms in a cell of edge 1.34 nm) halve the edge
  // while a cell holds more than kAtomsPerCell and stays at least half the reach: the candidates
  // then come from a span closer to the block's reach.
  const double atomsPerNm3 = n / box.volume();
  long long total = 1;
  for (int d = 0; d < 3; ++d) {
    const double ideal = std::max(1.0, L[d] / reach);
    cells[d] = std::clamp(1 << int(std::lround(std::log2(ideal))), 1, 1024);
    while (L[d] / cells[d] < 0.5 * reach && cells[d] > 1) cells[d] /= 2;
    total *= cells[d];
  }
  const auto atomsPerCell = [&] { return atomsPerNm3 * box.volume() / double(total); };
  for (bool finer = true; finer && atomsPerCell() > kAtomsPerCell;) {
    finer = false;
    for (int d = 0; d < 3; ++d)
      if (cells[d] < 1024 && L[d] / (2 * cells[d]) >= 0.5 * reach) {
        cells[d] *= 2, total *= 2, finer = true;
      }
  }
  // Sparse boxes: no more cells than the atoms need (larger cells only cost candidates).
  const long long limit = std::max<long long>(8LL * n, 512);
  while (total > limit) {
    int d = 0;
    for (int e = 1; e < 3; ++e)
      if (cells[e] > cells[d]) d = e;
    cells[d] /= 2;
    total /= 2;
  }
  return total;
}

}  // namespace

CudaTileList::CudaTileList(const TileListParams& params, int n, const Box& box,
                           const std::vector<int>& exclusionOffsets, const std::vector<int>& exclusions,
                           const SlotGroups& groups)
    : params_(params), n_(n), blocks_((n + 31) / 32), hasExclusions_(!exclusions.empty()),
      grouped_(!groups.empty()) {
  if (n < 1) throw Error("tile list: no atoms");
  if (grouped_ && (groups.anchor.size() != std::size_t(n) || groups.rank.size() != std::size_t(n)))
    throw Error("tile list: slot groups need one anchor and one rank per atom");
  const double reach = params.cutoff + params.buffer;
  const long long total = chooseCells(n, box, reach, nCells_);
  // The keys' significant bits: 3 per level of the fine grid. Sorting only those saves
  // radix passes (110k atoms: 27 bits, 4 passes instead of 8). Groups add the rank's bits
  // below.
  int cellBits = 0;
  for (int d = 0; d < 3; ++d)
    while ((1 << cellBits) < nCells_[d]) ++cellBits;
  const int rankBits = grouped_ ? SlotGroups::kRankBits : 0;
  subCellBits_ = std::min(kSubCellBits, (64 - rankBits) / 3 - cellBits);
  curveBits_ = cellBits + subCellBits_;
  keyBits_ = 3 * curveBits_ + rankBits;
  if (grouped_) {
    groupAnchor_.upload(groups.anchor);
    groupRank_.upload(groups.rank);
  }
  groupReach_ = DeviceBuffer<unsigned>("tile list group reach", 1);
  groupReach_.zero();
  keys_ = DeviceBuffer<unsigned long long>("tile list sort keys", n);
  sortedKeys_ = DeviceBuffer<unsigned long long>("tile list sorted keys", n);
  slots_ = DeviceBuffer<int>("tile list slots", n);
  sortedSlots_ = DeviceBuffer<int>("tile list sorted slots", n);
  FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sortTempBytes_, keys_.data(), sortedKeys_.data(),
                                                      slots_.data(), sortedSlots_.data(), n, 0, keyBits_));
  sortTemp_ = DeviceBuffer<unsigned char>("tile list sort scratch", std::max<std::size_t>(sortTempBytes_, 1));
  cellOfSlot_ = DeviceBuffer<int>("tile list cell of slot", n);
  const int parts = std::clamp(kSearchWarps / blocks_, 1, kMaxParts);
  leftover_ = DeviceBuffer<int>("tile list search leftovers", parts > 1 ? std::size_t(blocks_) * parts * 33 : 0);
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
    exclusionBlocks_ = DeviceBuffer<int2>("tile list exclusion blocks", std::size_t(n));
  }
  // A first guess: the atoms within reach of a block's box, half of them in later blocks.
  const double density = n / box.volume();
  const double boxEdge = std::cbrt(32.0 / std::max(density, 1e-9));
  const double candidates = std::min(double(n), density * std::pow(boxEdge + 2 * reach, 3.0) * 0.5);
  reserve(int(std::min(1e9, blocks_ * (2.0 + candidates / 32.0))), hasExclusions_ ? blocks_ : 0);
  setBox(box, nullptr);
  // The uploads above ran on the default stream; the list's work runs on the caller's streams.
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(nullptr));
}

TileListBox TileListBox::of(const Box& box) {
  const Vec3 L = box.diagonal();
  return {make_float3(float(L.x), float(L.y), float(L.z)),
          make_float3(float(1 / L.x), float(1 / L.y), float(1 / L.z)),
          make_double3(L.x, L.y, L.z),
          make_double3(1 / L.x, 1 / L.y, 1 / L.z),
          make_float3(float(box.b.x), float(box.c.x), float(box.c.y)),
          make_double3(box.b.x, box.c.x, box.c.y),
          box.isRectangular() ? 0 : 1};
}

std::vector<long long> CudaTileList::tilesPerBlock(cudaStream_t stream) {
  TileCounters c{};
  FARADAY_CUDA_CHECK(cudaMemcpyAsync(&c, counters_.data(), sizeof c, cudaMemcpyDeviceToHost, stream));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> info(std::size_t(std::min(c.tiles, tileCapacity_)));
  if (!info.empty())
    FARADAY_CUDA_CHECK(cudaMemcpyAsync(info.data(), info_.data(), info.size() * sizeof(int), cudaMemcpyDeviceToHost, stream));
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<long long> perBlock(std::size_t(blocks_), 0);
  for (const int i : info)
    if (tileBlock(i) >= 0 && tileBlock(i) < blocks_) ++perBlock[std::size_t(tileBlock(i))];
  return perBlock;
}

void CudaTileList::setBox(const Box& box, cudaStream_t stream) { boxTerms_.set(TileListBox::of(box), stream); }

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

void CudaTileList::shrink(int tiles, cudaStream_t stream) {
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));  // allocateTiles frees what earlier work may use
  if (tiles + tiles / 8 + 16 < tileCapacity_) allocateTiles(tiles + tiles / 8 + 16);
  enqueueClearNeeded(stream);
  FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename F>
void CudaTileList::forEachKept(F&& f) {
  f(info_, keptInfo_);
  f(lanes_, keptLanes_);
  f(exclusionIndex_, keptExclusionIndex_);
  f(masks_, keptMasks_);
  f(boxCenter_, keptCenter_);
  f(boxHalf_, keptHalf_);
  f(counters_, keptCounters_);
}

void CudaTileList::enqueueClearNeeded(cudaStream_t stream) {
  static_assert(offsetof(TileCounters, groupsTooWide) == offsetof(TileCounters, tilesNeeded) + 2 * sizeof(int));
  FARADAY_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<char*>(counters_.data()) + offsetof(TileCounters, tilesNeeded), 0,
                                     3 * sizeof(int), stream));
}

bool CudaTileList::prepareKeep(cudaStream_t stream) {
  bool sized = true;
  forEachKept([&sized](const auto& live, const auto& kept) { sized = sized && live.size() == kept.size(); });
  if (!sized) {
    // resize() may free and allocate: after the stream's earlier work.
    FARADAY_CUDA_CHECK(cudaStreamSynchronize(stream));
    forEachKept([](const auto& live, auto& kept) { kept.resize(live.size()); });
  }
  keptTileCapacity_ = tileCapacity_;
  keptExclusionCapacity_ = exclusionCapacity_;
  return !sized;
}

void CudaTileList::enqueueKeepCopies(cudaStream_t stream) {
  forEachKept([stream](const auto& live, auto& kept) { kept.copyFrom(live, stream); });
}

bool CudaTileList::takeKept() {
  const bool same = keptTileCapacity_ == tileCapacity_ && keptExclusionCapacity_ == exclusionCapacity_;
  keptTileCapacity_ = keptExclusionCapacity_ = -1;
  return same;
}

void CudaTileList::enqueuePutBackCopies(cudaStream_t stream) {
  forEachKept([stream](auto& live, const auto& kept) { live.copyFrom(kept, stream); });
}

std::size_t CudaTileList::deviceBytes() const {
  return groupAnchor_.bytes() + groupRank_.bytes() + groupReach_.bytes() + leftover_.bytes() + keys_.bytes() + sortedKeys_.bytes() + slots_.bytes() + sortedSlots_.bytes() + sortTemp_.bytes() +
         cellOfSlot_.bytes() + cellRange_.bytes() + boxCenter_.bytes() + boxHalf_.bytes() + info_.bytes() +
         lanes_.bytes() + exclusionIndex_.bytes() + masks_.bytes() + exclusionOffsets_.bytes() + exclusions_.bytes() +
         exclusionBlocks_.bytes() + keptInfo_.bytes() + keptLanes_.bytes() + keptExclusionIndex_.bytes() +
         keptMasks_.bytes() + keptCenter_.bytes() + keptHalf_.bytes() + keptCounters_.bytes();
}

void CudaTileList::enqueueSort(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot,
                               const int* slotOfAtom) {
  const CellGrid g{make_int3(nCells_[0], nCells_[1], nCells_[2]), boxTerms_.data()};
  const GroupView v = groupView(groupAnchor_, groupRank_, grouped_, atomOfSlot, slotOfAtom);
  keysKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, ref, g, curveBits_, subCellBits_, v, keys_.data(),
                                                               slots_.data());
  FARADAY_CUDA_CHECK_LAUNCH("keysKernel");
  std::size_t bytes = sortTempBytes_;
  FARADAY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sortTemp_.data(), bytes, keys_.data(), sortedKeys_.data(),
                                                      slots_.data(), sortedSlots_.data(), n_, 0, keyBits_, stream));
}

void CudaTileList::enqueueBuild(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot,
                                const int* slotOfAtom, const WorkShare& share) {
  const CellGrid g{make_int3(nCells_[0], nCells_[1], nCells_[2]), boxTerms_.data()};
  const GroupView v = groupView(groupAnchor_, groupRank_, grouped_, atomOfSlot, slotOfAtom);
  if (grouped_) FARADAY_CUDA_CHECK(cudaMemsetAsync(groupReach_.data(), 0, sizeof(unsigned), stream));
  cellOfSlotKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, ref, g, v, cellOfSlot_.data(),
                                                                     groupReach_.data());
  FARADAY_CUDA_CHECK_LAUNCH("cellOfSlotKernel");
  FARADAY_CUDA_CHECK(cudaMemsetAsync(cellRange_.data(), 0, cellRange_.bytes(), stream));
  cellRangeKernel<<<blocksFor(n_, kThreads), kThreads, 0, stream>>>(n_, cellOfSlot_.data(), cellRange_.data());
  FARADAY_CUDA_CHECK_LAUNCH("cellRangeKernel");
  boundsKernel<<<blocksFor(32LL * blocks_, kThreads), kThreads, 0, stream>>>(
      n_, blocks_, ref, boxTerms_.data(), boxCenter_.data(), boxHalf_.data());
  FARADAY_CUDA_CHECK_LAUNCH("boundsKernel");
  // Only the per-build counts are cleared; the "needed" maxima stay for the host to read.
  FARADAY_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(int), stream));
  // Float rounding of the distances (~1e-6 of the box) must not drop a pair: a small margin.
  const float reach = float((params_.cutoff + params_.buffer) * (1 + 1e-5) + 1e-5);
  const TileStore t{tileCapacity_,        exclusionCapacity_,
                    info_.data(),         lanes_.data(),
                    exclusionIndex_.data(), masks_.data(),
                    counters_.data(),     hasExclusions_ ? exclusionOffsets_.data() : nullptr,
                    exclusions_.data(),   atomOfSlot,
                    slotOfAtom,           exclusionBlocks_.data()};
  const TileSearch search{n_,
                          blocks_,
                          std::clamp(kSearchWarps / blocks_, 1, kMaxParts),
                          ref,
                          boxCenter_.data(),
                          boxHalf_.data(),
                          cellRange_.data(),
                          make_int3(nCells_[0], nCells_[1], nCells_[2]),
                          boxTerms_.data(),
                          reach,
                          grouped_ ? groupReach_.data() : nullptr,
                          leftover_.data(),
                          exclusionBlocks_.data()};
  launchTileSearch(stream, search, share, t);
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
