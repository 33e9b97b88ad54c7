#pragma once
// The GPU tile list (TileList.h): spatial sort of the atoms, blocks of 32 slots with
// bounding boxes, and the tiles of every block. CUDA builds only; every method enqueues
// work on a stream and none synchronises, so the calls can be captured into a graph.
#if defined(FARADAY_HAVE_CUDA)
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "core/Box.h"
#include "kernels/common/DeviceBuffer.h"
#include "kernels/neighbor/TileList.h"

namespace faraday {

/// Device-side counters of the list, read by the host at check points.
struct TileCounters {
  int tiles;            ///< tiles the last build asked for (diagonal tiles included)
  int exclusionTiles;   ///< exclusion-mask tiles the last build asked for
  int tilesNeeded;      ///< largest `tiles` of any build since the host last reset it
  int exclusionNeeded;  ///< likewise for exclusionTiles
};

class CudaTileList {
 public:
  /// `n` atoms in a rectangular `box` (setBox changes it); `exclusionOffsets`/`exclusions`: CSR lists of
  /// excluded partners per input particle (both directions; empty: none).
  CudaTileList(const TileListParams& params, int n, const Box& box, const std::vector<int>& exclusionOffsets,
               const std::vector<int>& exclusions);

  /// Sort keys of `ref` (slot order) and their radix sort: afterwards newToOld() holds, for
  /// each new slot, the slot the atom had before.
  void enqueueSort(cudaStream_t stream, const double4_32a* ref);
  const int* newToOld() const { return sortedSlots_.data(); }

  /// Cells, block bounding boxes and tiles from the reference positions `ref` (slot order,
  /// sorted by enqueueSort's keys). atomOfSlot / slotOfAtom map slots and input particles.
  void enqueueBuild(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot, const int* slotOfAtom);

  /// A new box for the next sort and build: the cell grid keeps its cell counts, so the cells'
  /// edges follow the box (the scan's span is computed from them).
  void setBox(const Box& box) { box_ = box; }

  /// Grows the storage to hold at least the counts asked for (contents are lost).
  void reserve(int tiles, int exclusionTiles);
  /// Storage for exactly `tiles` tiles (tests of the list's growth).
  void reserveExactlyForTesting(int tiles);
  int tileCapacity() const { return tileCapacity_; }
  int exclusionCapacity() const { return exclusionCapacity_; }
  int blocks() const { return blocks_; }
  int atoms() const { return n_; }

  const int* tileInfo() const { return info_.data(); }
  const int* tileLanes() const { return lanes_.data(); }
  const int* tileExclusion() const { return exclusionIndex_.data(); }
  const std::uint32_t* exclusionMasks() const { return masks_.data(); }
  TileCounters* counters() { return counters_.data(); }
  bool hasExclusions() const { return hasExclusions_; }
  /// Per block: the centre and half extents (x, y, z, nm) of its atoms' bounding box at the
  /// last build, by minimum image around its first atom.
  const float4* blockCenters() const { return boxCenter_.data(); }
  const float4* blockHalfExtents() const { return boxHalf_.data(); }
  const TileListParams& params() const { return params_; }

  /// Host copy of the tiles of the last build (synchronises `stream`).
  HostTileList toHost(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot);

  std::size_t deviceBytes() const;

 private:
  /// Tile storage for exactly `capacity` tiles (contents lost).
  void allocateTiles(int capacity);

  TileListParams params_;
  int n_, blocks_;
  Box box_;
  int nCells_[3];
  bool hasExclusions_;
  int tileCapacity_ = 0, exclusionCapacity_ = 0;
  int keyBits_ = 63;  ///< significant bits of the sort keys
  std::size_t sortTempBytes_ = 0;
  DeviceBuffer<unsigned long long> keys_, sortedKeys_;
  DeviceBuffer<int> slots_, sortedSlots_;
  DeviceBuffer<unsigned char> sortTemp_;
  DeviceBuffer<int> cellOfSlot_;
  DeviceBuffer<int2> cellRange_;
  DeviceBuffer<float4> boxCenter_, boxHalf_;
  DeviceBuffer<int> info_, lanes_, exclusionIndex_;
  DeviceBuffer<std::uint32_t> masks_;
  DeviceBuffer<int> exclusionOffsets_, exclusions_;
  DeviceBuffer<int2> exclusionBlocks_;  ///< per slot: the blocks of its excluded partners (first, last)
  DeviceBuffer<TileCounters> counters_;
};

}  // namespace faraday
#endif
