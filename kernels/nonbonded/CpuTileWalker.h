#pragma once
// A CPU walk over the GPU's own tile list with the double-precision pair evaluators: where
// the GPU forces differ from the CPU backend's, comparing both with this walk tells a list
// bug (walk != CPU backend) from a kernel bug (GPU != walk).
#include <vector>

#include "core/Box.h"
#include "core/System.h"
#include "core/Vec3.h"
#include "kernels/neighbor/TileList.h"
#include "kernels/nonbonded/CpuNonbonded.h"

namespace faraday {

struct TileWalkResult {
  std::vector<Vec3> forces;  ///< per input particle, kJ/mol/nm
  double lj = 0, coulombReal = 0;
  Tensor3 virial;
  long long pairsInCutoff = 0;     ///< pairs evaluated (within the cutoff, not excluded)
  long long excludedInCutoff = 0;  ///< pairs within the cutoff skipped by an exclusion bit
};

/// Every pair of every tile, as the GPU kernel takes it (diagonal tiles: i < j; exclusion
/// bits honoured; r < cutoff at `positions`, input order, nm), with ljPair and ewaldRealPair
/// in double (beta = 0: no Coulomb; coulombShift subtracted per k_C q_i q_j).
TileWalkResult walkTiles(const HostTileList& list, const System& system, const std::vector<Vec3>& positions,
                         const Box& box, const LjTable& table, double cutoff, double beta, double coulombShift = 0);

/// Pairs the tiles list (each once, excluded ones too: the kernel evaluates their lanes) and
/// those within `cutoff` (nm) at the build's reference positions, minimum image in `box`.
struct TilePairCounts {
  long long listed = 0, inCutoff = 0;
};
TilePairCounts countTilePairs(const HostTileList& list, const Box& box, double cutoff);

/// Pairs (input indices a < b) listed in the tiles, with multiplicity: every pair once,
/// sorted; a pair listed twice appears twice.
std::vector<std::pair<int, int>> tilePairs(const HostTileList& list);

}  // namespace faraday
