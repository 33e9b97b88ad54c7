#include "kernels/bonded/Bonded.h"

#include <string>
#include <utility>

#include "core/Error.h"
#include "core/Units.h"

namespace faraday {

const char* bondedSlotName(int slot) {
  static const char* const kNames[kBondedSlots] = {
      "Bond",        "G96Bond",        "Morse",         "Cubic Bonds",    "Angle",     "G96Angle",
      "U-B",         "Proper Dih.",    "Ryckaert-Bell.", "Improper Dih.", "Per. Imp. Dih.", "CMAP Dih.",
      "LJ-14",       "Coulomb-14",     "Position Rest.", "Excl. corr."};
  return slot >= 0 && slot < kBondedSlots ? kNames[slot] : "";
}

std::vector<int> bondedSlotsPresent(const Topology& t) {
  const std::pair<int, bool> slots[] = {
      {kBondSlot, !t.bonds.empty()},
      {kG96BondSlot, !t.g96Bonds.empty()},
      {kMorseSlot, !t.morseBonds.empty()},
      {kCubicBondSlot, !t.cubicBonds.empty()},
      {kAngleSlot, !t.angles.empty()},
      {kG96AngleSlot, !t.g96Angles.empty()},
      {kUreyBradleySlot, !t.ureyBradleys.empty()},
      {kProperDihSlot, !t.properDihedrals.empty()},
      {kRbDihSlot, !t.rbDihedrals.empty()},
      {kImproperDihSlot, !t.impropers.empty()},
      {kPeriodicImproperDihSlot, !t.periodicImpropers.empty()},
      {kCmapSlot, !t.cmaps.empty()},
      {kLj14Slot, !t.pairs14.empty()},
      {kCoulomb14Slot, !t.pairs14.empty()},
      {kPositionRestraintSlot, !t.positionRestraints.empty()}};
  std::vector<int> out;
  for (const auto& [slot, present] : slots)
    if (present) out.push_back(slot);
  return out;
}

double BondedEnergies::total() const {
  double sum = 0;
  for (double e : energy) sum += e;
  return sum;
}

std::vector<ExclusionPair> exclusionCorrectionPairs(const Topology& topology, const std::vector<double>& charges,
                                                    const BondedParams& params) {
  std::vector<ExclusionPair> pairs;
  if (params.ewaldBeta == 0 || topology.exclusionOffsets.empty()) return pairs;
  const int n = int(topology.exclusionOffsets.size()) - 1;
  for (int i = 0; i < n; ++i)
    for (int e = topology.exclusionOffsets[i]; e < topology.exclusionOffsets[i + 1]; ++e) {
      const int j = topology.exclusions[std::size_t(e)];
      if (j > i) pairs.push_back({i, j, units::kCoulomb * charges[std::size_t(i)] * charges[std::size_t(j)]});
    }
  return pairs;
}

namespace {

template <typename Term>
void checkAtoms(const std::vector<Term>& terms, const char* what, std::size_t atoms) {
  for (std::size_t t = 0; t < terms.size(); ++t) {
    int a[kTermAtoms<Term>];
    termAtoms(terms[t], a);
    for (int k = 0; k < kTermAtoms<Term>; ++k)
      if (a[k] < 0 || std::size_t(a[k]) >= atoms)
        throw Error(std::string(what) + " " + std::to_string(t + 1) + ": atom index " + std::to_string(a[k]) +
                    " is outside the system's " + std::to_string(atoms) + " particles");
  }
}

}  // namespace

void checkBondedTopology(const Topology& t, std::size_t atoms) {
  checkAtoms(t.bonds, "bond", atoms);
  checkAtoms(t.g96Bonds, "G96 bond", atoms);
  checkAtoms(t.morseBonds, "Morse bond", atoms);
  checkAtoms(t.cubicBonds, "cubic bond", atoms);
  checkAtoms(t.angles, "angle", atoms);
  checkAtoms(t.g96Angles, "G96 angle", atoms);
  checkAtoms(t.ureyBradleys, "Urey-Bradley angle", atoms);
  checkAtoms(t.properDihedrals, "proper dihedral", atoms);
  checkAtoms(t.periodicImpropers, "periodic improper dihedral", atoms);
  checkAtoms(t.rbDihedrals, "Ryckaert-Bellemans dihedral", atoms);
  checkAtoms(t.impropers, "improper dihedral", atoms);
  checkAtoms(t.cmaps, "CMAP term", atoms);
  checkAtoms(t.pairs14, "1-4 pair", atoms);
  checkAtoms(t.positionRestraints, "position restraint", atoms);
  for (std::size_t c = 0; c < t.cmaps.size(); ++c)
    if (t.cmaps[c].grid < 0 || std::size_t(t.cmaps[c].grid) >= t.cmapGrids.size())
      throw Error("CMAP term " + std::to_string(c + 1) + ": grid " + std::to_string(t.cmaps[c].grid) +
                  " does not exist (" + std::to_string(t.cmapGrids.size()) + " grids)");
  if (t.exclusionOffsets.empty()) return;
  if (t.exclusionOffsets.size() != atoms + 1 || std::size_t(t.exclusionOffsets.back()) != t.exclusions.size())
    throw Error("exclusion lists: " + std::to_string(t.exclusionOffsets.size()) + " offsets and " +
                std::to_string(t.exclusions.size()) + " partners do not describe " + std::to_string(atoms) +
                " particles");
  for (int j : t.exclusions)
    if (j < 0 || std::size_t(j) >= atoms)
      throw Error("exclusion lists: partner " + std::to_string(j) + " is outside the system's " +
                  std::to_string(atoms) + " particles");
}

}  // namespace faraday
