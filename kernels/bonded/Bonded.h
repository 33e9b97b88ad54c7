#pragma once
// The bonded forces of a topology (bonds, angles, dihedrals, CMAP, 1-4 pairs, position
// restraints) and the Ewald exclusion correction of its excluded pairs: what they compute,
// and the interface the CPU reference (CpuBonded) and the host-vector adapter of the GPU
// kernels (CudaBonded) share. The GPU kernels on device data are CudaBonded.h.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/Box.h"
#include "core/Topology.h"
#include "core/Vec3.h"
#include "core/Virial.h"
#include "kernels/bonded/BondedTerms.h"

namespace faraday {

struct BondedParams {
  /// Ewald splitting parameter (1/nm) of the reciprocal-space Coulomb whose excluded pairs
  /// are corrected; 0: no exclusion correction (no Ewald electrostatics).
  double ewaldBeta = 0;
};

/// What a call computes: the bonded terms (bonds to position restraints, 1-4 pairs included),
/// the exclusion correction, or both; the backends time the two as phases of their own.
enum BondedParts : int { kBondedTermsPart = 1, kExclusionCorrectionPart = 2, kAllBondedParts = 3 };

/// `gmx energy`'s name of a slot ("Bond", "G96Bond", "Morse", "Cubic Bonds", "Angle",
/// "G96Angle", "U-B", "Proper Dih.", "Ryckaert-Bell.", "Improper Dih.", "Per. Imp. Dih.",
/// "CMAP Dih.", "LJ-14", "Coulomb-14", "Position Rest."), and "Excl. corr." for the exclusion
/// correction.
const char* bondedSlotName(int slot);

/// The slots of the terms `topology` has (non-empty arrays, in slot order; not the
/// exclusion correction): the bonded columns of an energy table.
std::vector<int> bondedSlotsPresent(const Topology& topology);

/// Energies (kJ/mol) per slot (BondedSlot) and the virial of all the terms.
struct BondedEnergies {
  std::array<double, kBondedSlots> energy{};
  /// W = sum over terms of sum_a x_a (x) F_a (kJ/mol), symmetric, with each term's positions
  /// unwrapped around its first atom (addTermVirial), the exclusion correction's included:
  /// the convention of Energies::virial, P = (2 K + tr W) / (3 V).
  Tensor3 virial;

  double operator[](BondedSlot s) const { return energy[s]; }
  /// The exclusion correction (kJ/mol), which belongs to a Coulomb column.
  double exclusionCorrection() const { return energy[kExclusionCorrectionSlot]; }
  /// Everything, the exclusion correction included.
  double total() const;
};

/// Bonded forces of one topology on positions given and returned on the host.
class BondedForces {
 public:
  virtual ~BondedForces() = default;
  /// Adds the forces (kJ/mol/nm) at `positions` (nm, per particle, wrapped or not) in a
  /// rectangular `box` to `forces` and returns the energies and virial.
  virtual BondedEnergies compute(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces) = 0;
  /// The forces alone (on the GPU: the kernels without their energy sums).
  virtual void addForces(const std::vector<Vec3>& positions, const Box& box, std::vector<Vec3>& forces) {
    compute(positions, box, forces);
  }
};

/// The CPU reference (CpuBonded.h).
std::unique_ptr<BondedForces> makeCpuBonded(const Topology& topology, const std::vector<double>& charges,
                                            const BondedParams& params);
/// The GPU kernels behind host vectors (uploads, runs, downloads: for tests and benchmarks).
/// Defined in CudaBonded.cu; in builds without CUDA it throws Error.
std::unique_ptr<BondedForces> makeCudaBondedOnHost(const Topology& topology, const std::vector<double>& charges,
                                                   const BondedParams& params);

/// Every excluded pair once (i < j, from the CSR lists, in order), with qq = k_C q_i q_j;
/// empty when params.ewaldBeta is 0.
std::vector<ExclusionPair> exclusionCorrectionPairs(const Topology& topology, const std::vector<double>& charges,
                                                    const BondedParams& params);

/// Throws Error naming the term when an atom index is outside [0, atoms), a CMAP term's grid
/// does not exist, or the exclusion lists do not match `atoms`.
void checkBondedTopology(const Topology& topology, std::size_t atoms);

}  // namespace faraday
