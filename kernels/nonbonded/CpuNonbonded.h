#pragma once
#include <array>
#include <optional>
#include <vector>

#include "core/System.h"
#include "core/Vec3.h"
#include "kernels/neighbor/NeighborList.h"
#include "kernels/nonbonded/LjTable.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "kernels/nonbonded/TypedPairTable.h"

namespace faraday {

/// What the short-range pair loop computes.
struct NonbondedOptions {
  double cutoff = 1.0;     ///< nm; pairs at r >= cutoff are skipped
  bool ljShift = true;     ///< potential-shift LJ so that U(cutoff) = 0
  double ewaldBeta = 0;    ///< 1/nm; > 0 adds real-space Ewald Coulomb k_C q_i q_j erfc(beta r)/r
  bool coulombShift = true;  ///< potential-shift the real-space Coulomb so that U(cutoff) = 0
  /// Set: the typed pair force (typedPair, shifted so that U(cutoff) = 0) replaces LJ.
  std::optional<TypedPairTable> typed;
  int threads = 0;         ///< OpenMP threads (0 = all)
};

/// Short-range energies (kJ/mol) and virial W = sum over pairs r_ij (x) F_ij (kJ/mol).
struct NonbondedResult {
  double lj = 0;
  double typed = 0;  ///< the typed pair force (options.typed set; lj is then 0)
  double coulombReal = 0;
  Tensor3 virial;
};

/// The typed pair energy at the cutoff rc (nm) for every type pair, row-major like the table:
/// subtracted from each pair inside the cutoff so that the energy is continuous there (the
/// force is not: it jumps by F(rc), as LJ's does under the potential shift).
std::vector<double> typedPairShifts(const TypedPairTable& table, double cutoff);

/// Sums over one row of the full list: force on i (kJ/mol/nm), pair energies (kJ/mol: `pair`
/// is LJ or the typed force) and pair virials r_ij (x) F_ij (kJ/mol: xx yy zz xy xz yz).
struct RowSums {
  Vec3 force;
  double pair = 0, coulomb = 0;
  double w[6] = {0, 0, 0, 0, 0, 0};
};

/// The CPU pair loop over the full neighbor list, in the list's slot (cell) order, skipping
/// the topology's excluded pairs (no LJ, no real-space Coulomb): OpenMP
/// over rows, each row summing its particle's force, half pair energies and half pair
/// virials in ascending neighbour order; the totals are then summed over slots in order.
/// The results are therefore bitwise identical for any number of threads.
class CpuNonbonded {
 public:
  CpuNonbonded(const System& system, const NonbondedOptions& options);
  /// Overwrites `forces` (kJ/mol/nm, resized to N) with the short-range forces at
  /// `positions` (nm) in `box`, using `list` (built with a radius >= the cutoff).
  NonbondedResult compute(const std::vector<Vec3>& positions, const Box& box, const NeighborList& list,
                          std::vector<Vec3>& forces);
  const LjTable& ljTable() const { return table_; }

 private:
  void gatherSlots(const std::vector<Vec3>& positions, const Box& box, const NeighborList& list);
  /// The excluded partners of each slot as slots, ascending (after each list build).
  void gatherExclusions(const NeighborList& list);
  template <bool kCoulomb, bool kTyped, bool kExclusions>
  void computeRows(const Box& box, const NeighborList& list, std::vector<Vec3>& forces);
  template <bool kCoulomb, bool kTyped, bool kExclusions>
  RowSums sumRow(int i, const Box& box, const NeighborList& list) const;
  /// The pair energy and F/r of LJ or the typed force (shifted) for types a and b.
  template <bool kTyped>
  PairResult<double> shortRangePair(double r2, int a, int b) const;
  NonbondedResult sumParticles() const;

  NonbondedOptions options_;
  LjTable table_;
  std::vector<double> typedShift_;     ///< per type pair, kJ/mol (options_.typed set)
  std::vector<int> type_;              ///< per particle
  std::vector<double> charge_;         ///< per particle, e
  std::vector<double> scaledCharge_;   ///< per particle k_C q_i, so that qq = k_C q_i * q_j
  std::vector<int> exclusionOffsets_, exclusions_;  ///< the topology's excluded pairs (CSR by particle)
  std::vector<int> slotExclusionOffsets_, slotExclusions_;  ///< the same by slot, ascending
  std::vector<int> exclusionsOrder_;   ///< the list's slot order slotExclusions_ belongs to
  // Per slot of the neighbor list (slot s holds particle list.order()[s]):
  std::vector<Vec3> wrapped_;                    ///< positions wrapped into the box, nm
  std::vector<int> slotType_;
  std::vector<double> slotCharge_, slotScaledCharge_;
  std::vector<double> energyPair_, energyCoulomb_;  ///< half of the slot's pair energies (LJ or typed, Coulomb)
  std::vector<std::array<double, 6>> virial_;     ///< half of its pair virials (xx yy zz xy xz yz)
};

/// Long-range dispersion correction (GROMACS DispCorr = EnerPres), assuming g(r) = 1
/// beyond the cutoff and, for the shift term, inside it. With <C6> the average of
/// C6_ij = 4 eps_ij sigma_ij^6 over the N(N-1)/2 distinct particle pairs:
///   tail:   E = -(2/3) pi N^2/V <C6> / rc^3          (the -C6/r^6 missing beyond rc)
///   shift:  E += -(2/3) pi N^2/V <C6> / rc^3         (only with ljShift: every pair inside
///           rc had its dispersion raised by C6/rc^6; (N^2/2V)(4/3 pi rc^3) pairs on average)
///   virial: W_xx = W_yy = W_zz = -(4/3) pi N^2/V <C6> / rc^3   (from the tail only:
///           trace W = (N^2/2V) int_rc^inf 4 pi r^2 (r . F) dr with r . F = -6 C6/r^6),
///           i.e. the pressure correction P = -(4/3) pi rho^2 <C6> / rc^3.
/// The repulsion's shift and tail (c12 terms, ~(sigma/rc)^6 smaller) are not corrected,
/// as in GROMACS' EnerPres.
struct DispersionCorrection {
  double energy = 0;       ///< kJ/mol
  double virialDiagonal = 0;  ///< kJ/mol, added to each diagonal element of the virial
};
DispersionCorrection dispersionCorrection(const System& system, double cutoff, bool ljShift, double volume);

}  // namespace faraday
