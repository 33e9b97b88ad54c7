#pragma once
// What a checkpoint remembers of the system it continues: every per-atom parameter and every
// term of the topology, so that a restart of another system with the same atom count (a
// TIP3P checkpoint restarted as SPC/E, a charge or a bond constant changed, -DFLEXIBLE
// dropped) is refused, naming the first atom or term that differs.
#include <cstdint>
#include <string>
#include <vector>

#include "core/System.h"

namespace faraday {

/// One kind of item (the masses, the harmonic bonds, the exclusions, ...) and a 64-bit value
/// per item: the value itself for a per-atom number (mass, charge), else a hash of the item's
/// atoms and parameters.
struct FingerprintSection {
  std::string name;  ///< "mass", "charge", "LJ type", "harmonic bond", ...
  std::vector<std::uint64_t> items;
};
using SystemFingerprint = std::vector<FingerprintSection>;

/// The fingerprint of `system`: per atom its mass, charge and LJ parameters (type name,
/// sigma, epsilon and the LJ table row of its type), then the LJ table, every bonded term,
/// 1-4 pair, position restraint, CMAP grid, constraint, settle and exclusion with its
/// parameters. (Faraday has no virtual sites: a topology with them is refused.)
SystemFingerprint systemFingerprint(const System& system);

/// "" when `saved` (the checkpoint's) and `current` describe the same system; otherwise what
/// differs first: a section's count ("the checkpoint's system has 2040 settles, this one 0")
/// or its first differing item, named by the atoms of `system` (the current one):
/// "the charge of atom 12 (OW, 0-based) is -0.8476 e in the checkpoint, -0.834 e now".
std::string fingerprintDifference(const SystemFingerprint& saved, const SystemFingerprint& current,
                                  const System& system);

}  // namespace faraday
