#pragma once
// The share of a step's force work that one GPU of several computes, when every GPU holds the
// whole state (replicated) and the partial forces are summed across the GPUs as 64-bit fixed
// point: the sum is exact, so the forces are those of one GPU, bit for bit, whatever the split.
//   tiles   by the tile's block I (a block of 32 sorted slots): block I is this GPU's when
//           I mod kPeriod lies in [begin, end); or (contiguous, with the direct sum) when it
//           lies in [cuts[rank], cuts[rank + 1]): runs of blocks cut where the tiles of the
//           first list reach each rank's share (cutContiguous), so that a GPU's partial forces
//           lie mostly in its own slots and the sum sends little else. The tiles' order in
//           the list varies from build to build (an integer counter), their blocks do not, so
//           every GPU picks the same set; who computes a tile never changes its forces.
//   bonded  by warp (32 consecutive terms of one array): warp w when w mod ranks == rank, so
//           each warp's energy sum is the one-GPU warp's.
//   PME     on rank 0 alone (pme), its tile share smaller by the cost model's weight; or
//           split over every GPU in slabs of x planes (pmeSlabs), with equal tile shares.
// The split depends on the GPU count and the cost model's constants only, never on timings.
#include <vector>

#include "core/HostDevice.h"

namespace faraday {

struct WorkShare {
  /// Blocks are dealt in runs of kPeriod: the granularity of the weights.
  static constexpr int kPeriod = 64;
  int rank = 0, ranks = 1;
  static constexpr int kMaxCuts = 9;  ///< up to 8 GPUs
  int period = 1;
  int shareEnds[kMaxCuts] = {0, 1};    ///< rank r's blocks: I mod period in [shareEnds[r], shareEnds[r + 1])
  bool contiguous = false;             ///< blocks in [cuts[rank], cuts[rank + 1]) instead (set by cutContiguous)
  int cuts[kMaxCuts] = {};
  bool pme = true;                     ///< this GPU runs PME
  bool pmeSlabs = false;               ///< PME is split over every GPU (pme on each)
  /// Each GPU integrates and constrains its own run of slots (the update split), the step's
  /// sum is a reduce-scatter and the positions an all-gather; else every GPU updates every slot.
  bool updateSplit = false;

  /// This rank's share of the period: blocks I with I mod period in [begin(), end()).
  FARADAY_HD int begin() const { return shareEnds[rank]; }
  FARADAY_HD int end() const { return shareEnds[rank + 1]; }
  FARADAY_HD bool ownsBlock(int block) const {
    if (contiguous) return block >= cuts[rank] && block < cuts[rank + 1];
    const int m = block % period;
    return m >= begin() && m < end();
  }
  /// Contiguous runs of blocks from the tiles of each block (a whole list): rank r's run ends
  /// at the first block where the tiles before it reach shareEnds[r + 1] / period of them all.
  void cutContiguous(const std::vector<long long>& tilesPerBlock);
  FARADAY_HD bool ownsWarp(int warp) const { return warp % ranks == rank; }
  bool whole() const { return ranks == 1; }
};

/// The shares of `ranks` GPUs: rank 0 runs PME and takes `rank0Weight` (0..1) of a full
/// GPU's tile share, the others one each: the kPeriod slots of a run cut in proportion, in
/// rank order (boundaries rounded to the nearest slot). One GPU: the whole work.
std::vector<WorkShare> makeWorkShares(int ranks, double rank0Weight);

/// The shares of `ranks` GPUs that split PME among them in slabs: equal tile shares, PME
/// (its own slab) on every GPU.
std::vector<WorkShare> makeSlabWorkShares(int ranks);

/// The weight of rank 0's tile share when it also runs PME, from a cost model of the state
/// (never timings): T = tiles / kTilesPerMs, P = gridPoints / kGridPointsPerMs + atoms /
/// kPmeAtomsPerMs (one GPU's milliseconds). Rank 0 computes P + w s, the others s, with
/// (w + ranks - 1) s = T; equal times give w = (T - (ranks - 1) P) / (T + P), clamped to
/// [0, 1]. One GPU: 1.
double rank0TileWeight(int ranks, double tiles, double gridPoints, double atoms);

/// The cost model's rates (one H100, SXM): tiles of the short-range kernel per ms, PME grid
/// points (two FFTs and the convolution) per ms, atoms spread and gathered per ms.
inline constexpr double kTilesPerMs = 1.0e6, kGridPointsPerMs = 2.0e7, kPmeAtomsPerMs = 2.5e6;

}  // namespace faraday
