#pragma once
// The CPU reference of the bonded forces: double precision, one plain loop per term array
// of the topology in its order, single-threaded (so the sums never depend on a thread count).
#include <vector>

#include "kernels/bonded/Bonded.h"
#include "kernels/bonded/CmapTable.h"

namespace faraday {

class CpuBonded : public BondedForces {
 public:
  /// Keeps a copy of the topology's terms; `charges` (e, per particle) and params.ewaldBeta
  /// give the exclusion correction. Throws Error on a malformed topology.
  CpuBonded(const Topology& topology, const std::vector<double>& charges, const BondedParams& params);

  BondedEnergies compute(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces) override {
    return compute(positions, box, forces, kAllBondedParts);
  }
  /// The parts of BondedParts in `parts` alone.
  BondedEnergies compute(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces, int parts);

  const CmapTable& cmapTable() const { return cmap_; }

 private:
  Topology topology_;
  CmapTable cmap_;
  std::vector<ExclusionPair> exclusions_;
  BondedParams params_;
};

}  // namespace faraday
