#pragma once
// Lennard-Jones coefficients of every pair of atom types, as the pair loops read them.
#include <vector>

#include "core/System.h"
#include "kernels/nonbonded/PairEvaluators.h"

namespace faraday {

/// LJ parameters of every type pair, row-major types x types.
struct LjTable {
  int types = 0;
  std::vector<LjParams<double>> pairs;
  const LjParams<double>& at(int a, int b) const { return pairs[std::size_t(a) * types + b]; }
};

/// The table of `system`'s types: the topology's c6/c12 pairs (Topology::ljC6, ljC12) when
/// it has them, else Lorentz-Berthelot mixing of the types' sigma and epsilon; shifted to
/// zero at `cutoff` (nm) when `shift`.
LjTable makeLjTable(const System& system, double cutoff, bool shift);

/// Types whose rows of the table are equal are one class for the pair loops: a topology's
/// many atom types (CHARMM's hydrogens, say) share few distinct LJ parameter sets.
struct LjClasses {
  std::vector<int> classOfType;  ///< per atom type: its class
  LjTable table;                 ///< classes x classes
};
LjClasses ljClasses(const LjTable& table);

}  // namespace faraday
