#pragma once
// All-pairs forces with open boundaries and no cutoff: every pair once (Newton's third
// law), for softened gravity (Plummer) or the typed pair force. The CPU loop here is the
// double-precision reference; the GPU's triangular warp tiles are in CudaAllPairs.h.
#include <string>
#include <vector>

#include "core/Vec3.h"
#include "kernels/nonbonded/PairEvaluators.h"
#include "kernels/nonbonded/TypedPairTable.h"

namespace faraday {

enum class AllPairsPotential { Gravity, Typed };

/// What the all-pairs mode computes (nonbonded.mode = all-pairs).
struct AllPairsParams {
  AllPairsPotential potential = AllPairsPotential::Gravity;
  double G = 1;          ///< gravity.g: kJ/mol nm / amu^2 (F = G m_i m_j / r^2 in kJ/mol/nm)
  double softening = 0;  ///< gravity.softening, nm (Plummer: r^2 -> r^2 + eps^2)
  TypedPairTable typed;  ///< potential = typed
};

/// Energy (kJ/mol) and virial (sum over pairs r_ij (x) F_ij, kJ/mol) of one evaluation.
struct AllPairsResult {
  double energy = 0;
  Tensor3 virial;
};

/// Double-precision reference: every pair i < j once, F_i += F_ij, F_j -= F_ij.
/// `mass` amu and `type` (index into the typed table) per particle; `forces` is resized
/// and overwritten (kJ/mol/nm). OpenMP over `threads` threads.
AllPairsResult allPairsForces(const std::vector<Vec3>& positions, const std::vector<double>& mass,
                              const std::vector<int>& type, const AllPairsParams& params, std::vector<Vec3>& forces,
                              int threads);

}  // namespace faraday
