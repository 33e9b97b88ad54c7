#pragma once
// The GPU neighbor list as tiles of the warp size, in a form the host can read back.
//
// Atoms live in "slots": the device sorts them along a space-filling curve (a Hilbert curve
// through one uniform fine grid: a power of 2 of cells per box edge, each cut into up to 2^5
// sub-cells per edge), so that 32 consecutive slots, a block, sit close together. For every
// block I the list holds
//   - one diagonal tile: the pairs inside block I, each once (triangular);
//   - tiles pairing block I with up to 32 atoms of later blocks (J > I), each selected
//     one by one because it lies within cutoff + buffer of block I's bounding box and then
//     of one of block I's 32 atoms.
// Every pair within cutoff + buffer of the reference positions is in exactly one tile, so
// every pair within the cutoff is evaluated exactly once while no atom has moved more than
// half the buffer since the build.
#include <cstdint>
#include <vector>

namespace faraday {

/// Parameters of the tile list.
struct TileListParams {
  double cutoff = 1.0;  ///< nm
  double buffer = 0.1;  ///< nm; the list holds pairs within cutoff + buffer
};

inline constexpr int kTileSize = 32;  ///< atoms per block and per tile: the warp size
inline constexpr int kNoAtom = -1;    ///< an empty lane of a tile

/// tileInfo = 2 * block + (1 if diagonal).
inline constexpr int tileBlock(int info) { return info >> 1; }
inline constexpr bool tileIsDiagonal(int info) { return (info & 1) != 0; }

/// A host copy of the device list (for tests and the CPU walker).
struct HostTileList {
  int atoms = 0;                    ///< N
  std::vector<int> info;            ///< per tile: 2 block + diagonal
  std::vector<int> lanes;           ///< per tile 32 slots (kNoAtom where empty); diagonal: block's slots
  std::vector<int> exclusionIndex;  ///< per tile: index into exclusionMasks / 32, or -1
  std::vector<std::uint32_t> exclusionMasks;  ///< per exclusion tile, per lane j: bit i = pair excluded
  std::vector<int> atomOfSlot;      ///< slot -> input particle index (N entries)
  std::vector<double> slotPositions;  ///< 3 per slot: the reference positions of the build, nm
};

}  // namespace faraday
