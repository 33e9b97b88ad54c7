#include "kernels/bonded/CpuBonded.h"

#include "core/Error.h"

namespace faraday {

namespace {

/// What one loop over a term array needs.
struct LoopArgs {
  const std::vector<Vec3>& positions;
  MinimumImage box;
  BondedView view;
  std::vector<Vec3>& forces;
  BondedEnergies& out;
  double w[6];
};

/// Every term of `terms` in order: energy into `slot` (and a 1-4 pair's Coulomb into
/// `slot2`), forces into out.forces, virial into w.
template <typename Term>
void addTerms(const std::vector<Term>& terms, int slot, int slot2, LoopArgs& a) {
  constexpr int N = kTermAtoms<Term>;
  const auto position = [&](int atom) { return a.positions[std::size_t(atom)]; };
  for (const Term& t : terms) {
    int atoms[N];
    Vec3 x[N];
    termAtoms(t, atoms);
    relativePositions(t, atoms, position, a.box, x);
    const TermForces<N> r = evaluateTerm(t, x, a.view);
    for (int k = 0; k < N; ++k) a.forces[std::size_t(atoms[k])] += r.f[k];
    a.out.energy[slot] += r.energy;
    if (slot2 >= 0) a.out.energy[slot2] += r.energy2;
    addTermVirial<N>(x, r.f, a.w);
  }
}

}  // namespace

CpuBonded::CpuBonded(const Topology& topology, const std::vector<double>& charges, const BondedParams& params)
    : topology_(topology), cmap_(topology.cmapGrids), params_(params) {
  checkBondedTopology(topology, charges.size());
  exclusions_ = exclusionCorrectionPairs(topology, charges, params);
}

BondedEnergies CpuBonded::compute(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces,
                                  int parts) {
  if (forces.size() != positions.size()) throw Error("bonded forces: positions and forces differ in size");
  BondedEnergies out;
  LoopArgs a{positions, MinimumImage::fromBox(box), BondedView{cmap_.view(), params_.ewaldBeta}, forces, out, {}};
  const Topology& t = topology_;
  if (parts & kExclusionCorrectionPart) addTerms(exclusions_, kExclusionCorrectionSlot, -1, a);
  if (!(parts & kBondedTermsPart)) {
    out.virial = symmetricTensor(a.w);
    return out;
  }
  addTerms(t.bonds, kBondSlot, -1, a);
  addTerms(t.g96Bonds, kG96BondSlot, -1, a);
  addTerms(t.morseBonds, kMorseSlot, -1, a);
  addTerms(t.cubicBonds, kCubicBondSlot, -1, a);
  addTerms(t.angles, kAngleSlot, -1, a);
  addTerms(t.g96Angles, kG96AngleSlot, -1, a);
  addTerms(t.ureyBradleys, kUreyBradleySlot, -1, a);
  addTerms(t.properDihedrals, kProperDihSlot, -1, a);
  addTerms(t.rbDihedrals, kRbDihSlot, -1, a);
  addTerms(t.impropers, kImproperDihSlot, -1, a);
  addTerms(t.periodicImpropers, kPeriodicImproperDihSlot, -1, a);
  addTerms(t.cmaps, kCmapSlot, -1, a);
  addTerms(t.pairs14, kLj14Slot, kCoulomb14Slot, a);
  addTerms(t.positionRestraints, kPositionRestraintSlot, -1, a);
  out.virial = symmetricTensor(a.w);
  return out;
}

std::unique_ptr<BondedForces> makeCpuBonded(const Topology& topology, const std::vector<double>& charges,
                                            const BondedParams& params) {
  return std::make_unique<CpuBonded>(topology, charges, params);
}

}  // namespace faraday
