#pragma once
// The tile search of the GPU tile list (CudaTileList.cu has the sort, the cells and the
// blocks' bounding boxes; its header comment the four steps): for every block I of this GPU's
// share its diagonal tile and the tiles of the atoms of later blocks within cutoff + buffer of
// I's bounding box and of one of I's atoms, with their exclusion masks.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/common/WorkShare.h"
#include "kernels/neighbor/CudaTileList.h"

namespace faraday {

/// Threads per block of the tile list's kernels.
inline constexpr int kTileListThreads = 128;

/// Where the tiles go, and the exclusions their masks come from.
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
  const int2* exclusionBlocks;  ///< per slot: the first and last block holding one of its excluded partners
};

/// What the search reads: the sorted slots' reference positions, the blocks' bounding boxes,
/// the cells' slot ranges.
struct TileSearch {
  int n, blocks;
  int parts;  ///< warps sharing a block's candidates (1: a warp per block)
  const double4_32a* ref;
  const float4* center;  ///< per block: its bounding box's center (nm)
  const float4* half;    ///< per block: its half extents (nm)
  const int2* range;     ///< per cell: its slots [x, y)
  int3 cells;
  const TileListBox* box;
  float reach;                ///< cutoff + buffer with a margin for float rounding (nm)
  const unsigned* groupReach; ///< the slot groups' largest member-anchor distance (float bits), or null
  int* leftover;              ///< parts > 1: per block and part, the last candidates (33 ints)
  int2* exclusionBlocks;      ///< with exclusions: written first, then read through TileStore
};

/// The exclusion blocks (with exclusions), the tiles and, with parts > 1, the leftovers'
/// tiles of every block `share` owns, on `stream`.
void launchTileSearch(cudaStream_t stream, const TileSearch& search, const WorkShare& share, const TileStore& t);

}  // namespace faraday
