#pragma once
// Atoms the GPU keeps next to each other in its slot order: each hydrogen with the heavy atom
// it is bonded to (a water's hydrogens with its oxygen), as GROMACS' update groups. The sort
// keys every member of a group by its anchor's position (and then its rank), so a water's
// three atoms, or a methyl group, take consecutive slots; the per-molecule kernels (SETTLE,
// constraint stars, bonded terms) then read and write a few whole memory sectors per group
// instead of one scattered sector per atom. The neighbor list stays exact: a member is put in
// its anchor's cell, and the cell scan widens its reach by the members' largest distance from
// their anchors at the build.
#include <vector>

#include "core/System.h"

namespace faraday {

struct SlotGroups {
  static constexpr int kRankBits = 3;                      ///< sort-key bits below the position
  static constexpr int kMaxRank = (1 << kRankBits) - 1;    ///< hydrogens one anchor can take
  std::vector<int> anchor;  ///< per particle: the atom whose position sorts it (itself for an anchor); empty: no groups
  std::vector<int> rank;    ///< per particle: 0 for an anchor, 1.. for its hydrogens in index order

  bool empty() const { return anchor.empty(); }
};

/// The hydrogen groups of a system: every hydrogen (isHydrogen) joined to the first heavy atom
/// it is bonded to, by [settles] (a water's hydrogens to its oxygen), then bonds, Morse bonds
/// and constraints in topology order; hydrogens beyond SlotGroups::kMaxRank on one atom, and
/// those bonded to no heavy atom, stay alone. Empty when no hydrogen joins an atom.
SlotGroups hydrogenSlotGroups(const System& system);

}  // namespace faraday
