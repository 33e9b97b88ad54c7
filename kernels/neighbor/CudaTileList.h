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
#include "kernels/common/WorkShare.h"
#include "kernels/neighbor/SlotGroups.h"
#include "kernels/neighbor/TileList.h"

namespace faraday {

/// Device-side counters of the list, read by the host at check points.
struct TileCounters {
  int tiles;            ///< tiles the last build asked for (diagonal tiles included)
  int exclusionTiles;   ///< exclusion-mask tiles the last build asked for
  int tilesNeeded;      ///< largest `tiles` of any build since the host last reset it
  int exclusionNeeded;  ///< likewise for exclusionTiles
  /// 1 once a build found a slot group wider than half of cutoff + buffer (twice its largest
  /// member-anchor distance): its excluded pairs might then be missing from the tiles.
  int groupsTooWide;
};

/// The box as the list's kernels read it, from device memory (CudaTileList::setBox), so that
/// a captured build stays valid when the box changes.
/// A triclinic box (reduced form) adds its tilts b_x, c_x, c_y: minimum image and wrapping
/// then shift by c, b and a in turn (kernels/neighbor/CudaBoxImage.cuh).
struct TileListBox {
  float3 length, invLength;     ///< the diagonal a_x, b_y, c_z (nm), its inverse (1/nm)
  double3 lengthD, invLengthD;  ///< the same in double
  float3 tilt;                  ///< b_x, c_x, c_y (nm); zero in a rectangular box
  double3 tiltD;
  int triclinic;                ///< any tilt non-zero
  static TileListBox of(const Box& box);
};

class CudaTileList {
 public:
  /// `n` atoms in a rectangular `box` (setBox changes it); `exclusionOffsets`/`exclusions`: CSR lists of
  /// excluded partners per input particle (both directions; empty: none); `groups`: atoms kept
  /// in consecutive slots (SlotGroups.h; empty: none).
  CudaTileList(const TileListParams& params, int n, const Box& box, const std::vector<int>& exclusionOffsets,
               const std::vector<int>& exclusions, const SlotGroups& groups = {});

  /// Sort keys of `ref` (slot order; atomOfSlot / slotOfAtom map slots and input particles)
  /// and their radix sort: afterwards newToOld() holds, for each new slot, the slot the atom
  /// had before.
  void enqueueSort(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot, const int* slotOfAtom);
  const int* newToOld() const { return sortedSlots_.data(); }
  /// With slot groups, the sorted keys of the last enqueueSort (a group's members share their
  /// anchor's key above SlotGroups::kRankBits); null without groups.
  const unsigned long long* groupSortedKeys() const { return grouped_ ? sortedKeys_.data() : nullptr; }

  /// Cells, block bounding boxes and tiles from the reference positions `ref` (slot order,
  /// sorted by enqueueSort's keys). atomOfSlot / slotOfAtom map slots and input particles.
  /// `share`: the tiles of the blocks this GPU computes (WorkShare::ownsBlock), the others'
  /// are not built (one GPU: all).
  void enqueueBuild(cudaStream_t stream, const double4_32a* ref, const int* atomOfSlot, const int* slotOfAtom,
                    const WorkShare& share = {});

  /// A new box for the next sort and build, written to the list's device copy on `stream`
  /// (never inside a capture): the cell grid keeps its cell counts, so the cells' edges follow
  /// the box (the scan's span is computed from them).
  void setBox(const Box& box, cudaStream_t stream);

  /// Grows the storage to hold at least the counts asked for (contents are lost).
  void reserve(int tiles, int exclusionTiles);
  /// Tile storage for `tiles` (with reserve's margin) where it holds more (after a whole list
  /// that one GPU of several no longer builds); the "needed" maxima cleared.
  void shrink(int tiles, cudaStream_t stream);
  /// A device copy of the last build's tiles (and block boxes and counts), made before a trial
  /// build that may be undone (a volume move) and put back instead of building again. The
  /// tiles' contents depend only on the reference positions, the slots and the box, so the
  /// copy is the list a build from the same state would give. In two parts each, so that a
  /// graph may capture the copies: prepareKeep sizes the copy's storage as the live list's
  /// (true where it had to be allocated again: a graph holding the copies is then stale);
  /// takeKept says whether the copy can be put back (false when the storage has grown since,
  /// or nothing was kept: then build again), and takes it.
  bool prepareKeep(cudaStream_t stream);
  void enqueueKeepCopies(cudaStream_t stream);
  bool takeKept();
  void enqueuePutBackCopies(cudaStream_t stream);
  /// Clears the "needed" maxima and the group flag (TileCounters), on `stream`.
  void enqueueClearNeeded(cudaStream_t stream);
  /// Storage for exactly `tiles` tiles (tests of the list's growth).
  void reserveExactlyForTesting(int tiles);
  int tileCapacity() const { return tileCapacity_; }
  int exclusionCapacity() const { return exclusionCapacity_; }
  int blocks() const { return blocks_; }
  int atoms() const { return n_; }

  const int* tileInfo() const { return info_.data(); }
  /// The tiles of each block in the last build (synchronous on `stream`, outside graphs).
  std::vector<long long> tilesPerBlock(cudaStream_t stream);
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
  /// f(live, kept) for every array the kept copy holds.
  template <typename F>
  void forEachKept(F&& f);

  TileListParams params_;
  int n_, blocks_;
  int nCells_[3];
  bool hasExclusions_;
  bool grouped_;
  int tileCapacity_ = 0, exclusionCapacity_ = 0;
  // Set by the constructor from the cells and kSubCellBits (CudaTileList.cu).
  int subCellBits_ = 0;  ///< sub-cell levels per cell edge in the sort keys (at most 5)
  int curveBits_ = 0;    ///< bits per dimension of the keys' Hilbert curve (cells and sub-cells)
  int keyBits_ = 0;      ///< significant bits of the sort keys
  DeviceValue<TileListBox> boxTerms_{"tile list box"};
  DeviceBuffer<int> groupAnchor_{"tile list group anchors", 0}, groupRank_{"tile list group ranks", 0};
  DeviceBuffer<unsigned> groupReach_;  ///< float bits: the largest member-anchor distance at the last build
  std::size_t sortTempBytes_ = 0;
  DeviceBuffer<unsigned long long> keys_, sortedKeys_;
  DeviceBuffer<int> slots_, sortedSlots_;
  DeviceBuffer<unsigned char> sortTemp_;
  DeviceBuffer<int> cellOfSlot_;
  DeviceBuffer<int> leftover_;  ///< per block and search part: its last (< 32) candidates, count first
  DeviceBuffer<int2> cellRange_;
  DeviceBuffer<float4> boxCenter_, boxHalf_;
  DeviceBuffer<int> info_, lanes_, exclusionIndex_;
  DeviceBuffer<std::uint32_t> masks_;
  DeviceBuffer<int> exclusionOffsets_, exclusions_;
  DeviceBuffer<int2> exclusionBlocks_;  ///< per slot: the blocks of its excluded partners (first, last)
  DeviceBuffer<TileCounters> counters_;
  // The kept copy, and the capacities it was made at (-1: none).
  DeviceBuffer<int> keptInfo_{"tile list kept tiles", 0}, keptLanes_{"tile list kept tile atoms", 0},
      keptExclusionIndex_{"tile list kept exclusion index", 0};
  DeviceBuffer<std::uint32_t> keptMasks_{"tile list kept exclusion masks", 0};
  DeviceBuffer<float4> keptCenter_{"tile list kept block centers", 0}, keptHalf_{"tile list kept block extents", 0};
  DeviceBuffer<TileCounters> keptCounters_{"tile list kept counters", 0};
  int keptTileCapacity_ = -1, keptExclusionCapacity_ = -1;
};

}  // namespace faraday
#endif
